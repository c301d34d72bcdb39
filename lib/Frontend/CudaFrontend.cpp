//===- CudaFrontend.cpp - Parse CUDA sources with Clang -------------------===//

#include "kopt/Frontend/CudaFrontend.h"
#include "kopt/Frontend/HeaderPackages.h"
#include "kopt/Frontend/NvccCompat.h"
#include "kopt/Frontend/PrefixHeader.h"

#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/DiagnosticLex.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Driver/CreateASTUnitFromArgs.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/VirtualFileSystem.h"

#include <future>

using namespace clang;
using namespace llvm;

namespace kopt {

char ParseError::ID = 0;

void ParseError::log(raw_ostream &OS) const {
  OS << (Side == CudaSide::Device ? "device" : "host") << "-side parse failed";
  for (const std::string &D : Diagnostics)
    OS << "\n" << D;
}

std::error_code ParseError::convertToErrorCode() const {
  return inconvertibleErrorCode();
}

void ErrorCollector::HandleDiagnostic(DiagnosticsEngine::Level Level,
                                      const Diagnostic &Info) {
  DiagnosticConsumer::HandleDiagnostic(Level, Info);
  if (Level < DiagnosticsEngine::Error || Messages.size() >= MaxKept)
    return;
  SmallString<256> Text;
  Info.FormatDiagnostic(Text);
  std::string Where;
  if (Info.getLocation().isValid() && Info.hasSourceManager()) {
    const SourceManager &SM = Info.getSourceManager();
    PresumedLoc P = SM.getPresumedLoc(SM.getFileLoc(Info.getLocation()));
    if (P.isValid())
      Where = (Twine(P.getFilename()) + ":" + Twine(P.getLine()) + ":" +
               Twine(P.getColumn()) + ": ")
                  .str();
  }
  std::string Message = Where + "error: " + std::string(Text);
  if (Info.getID() == diag::err_pp_file_not_found &&
      Info.getArgKind(0) == DiagnosticsEngine::ak_std_string) {
    StringRef Package =
        packageProvidingHeader(sys::path::filename(Info.getArgStdStr(0)));
    if (!Package.empty())
      Message += " (it comes with " + Package.str() + ")";
  }
  Messages.push_back(Message);
}

void ErrorCollector::clear() {
  DiagnosticConsumer::clear();
  Messages.clear();
}

CudaFrontend::CudaFrontend(FrontendOptions O) : Opts(std::move(O)) {}

std::string resolveCudaPath(StringRef Explicit) {
  if (!Explicit.empty())
    return Explicit.str();
  if (std::optional<std::string> Env = sys::Process::GetEnv("CUDA_PATH"))
    if (!Env->empty())
      return *Env;
  return "/usr/local/cuda";
}

std::string resolveResourceDir(StringRef Explicit, const char *Argv0,
                               void *MainAddr) {
  if (!Explicit.empty())
    return Explicit.str();
  std::string Exe = sys::fs::getMainExecutable(Argv0, MainAddr);
  if (!Exe.empty()) {
    StringRef Dir = sys::path::parent_path(Exe);
    // Installed layout (<prefix>/bin/kopt-opt, <prefix>/lib/kopt/clang) and
    // the carried layout (resource headers beside the binary).
    for (const char *Rel : {"../lib/kopt/clang", "clang-resource"}) {
      SmallString<256> Candidate(Dir);
      sys::path::append(Candidate, Rel);
      SmallString<256> Probe(Candidate);
      sys::path::append(Probe, "include", "__clang_cuda_runtime_wrapper.h");
      if (sys::fs::exists(Probe)) {
        sys::path::remove_dots(Candidate, /*remove_dot_dot=*/true);
        return std::string(Candidate);
      }
    }
  }
  return KOPT_CLANG_RESOURCE_DIR;
}

std::vector<std::string> CudaFrontend::argsFor(CudaSide Side) const {
  std::vector<std::string> Args = {
      "-x",
      "cuda",
      "--cuda-gpu-arch=" + Opts.GpuArch,
      Side == CudaSide::Device ? "--cuda-device-only" : "--cuda-host-only",
      "--cuda-path=" + resolveCudaPath(Opts.CudaPath),
      "-resource-dir=" + Opts.ResourceDir,
      // Clang 22 fully knows CUDA up to 12.9 and parses 13.x with a warning.
      "-Wno-unknown-cuda-version",
      "-include",
      nvccCompatHeaderPath().str(),
  };
  // CUDA 13 keeps libcu++, CUB and Thrust under include/cccl; nvcc searches
  // it, clang's CUDA mode does not (<cooperative_groups.h> needs it).
  SmallString<256> Cccl(resolveCudaPath(Opts.CudaPath));
  sys::path::append(Cccl, "include", "cccl");
  if (sys::fs::is_directory(Cccl))
    Args.insert(Args.end(), {"-isystem", std::string(Cccl)});
  bool HasStd = false;
  for (const std::string &A : Opts.ExtraArgs)
    HasStd |= StringRef(A).starts_with("-std=");
  if (!HasStd)
    Args.push_back("-std=c++17");
  Args.insert(Args.end(), Opts.ExtraArgs.begin(), Opts.ExtraArgs.end());
  return Args;
}

namespace {

/// The buffer of a remapped file; the ASTUnit takes ownership.
ASTUnit::RemappedFile remapped(StringRef Path, StringRef Code) {
  return {Path.str(), MemoryBuffer::getMemBufferCopy(Code, Path).release()};
}

/// The files a parse sees in memory: the source, the nvcc prelude and the
/// (empty) file the precompiled prefix was made from.
std::vector<ASTUnit::RemappedFile> remappedFiles(StringRef Path,
                                                 StringRef Code) {
  return {remapped(Path, Code),
          remapped(nvccCompatHeaderPath(), nvccCompatHeader()),
          remapped(prefixMainFile(), "")};
}

/// Errors met while building the preamble (an #include that is not found)
/// reach only the unit's stored diagnostics, not the client: a file whose
/// header is missing would otherwise parse without it.
bool hasStoredError(const ASTUnit &AST) {
  for (auto D = AST.stored_diag_begin(); D != AST.stored_diag_end(); ++D)
    if (D->getLevel() >= DiagnosticsEngine::Error)
      return true;
  return false;
}

/// Whether a failed parse shows the source itself broken: every error was
/// reported in the main file and none while building the preamble. Then
/// parsing again (without the precompiled prefix, or afresh) would only
/// repeat them; errors elsewhere (a stale prefix, a missing header) do
/// not count.
bool brokenInMainFile(const ErrorCollector &Errors, const ASTUnit *AST,
                      StringRef Path) {
  if (!AST || hasStoredError(*AST) || Errors.Messages.empty())
    return false;
  return llvm::all_of(Errors.Messages, [&](const std::string &M) {
    return StringRef(M).starts_with((Path + ":").str());
  });
}

void scopeToMainFile(ASTUnit &AST) {
  ASTContext &Ctx = AST.getASTContext();
  Ctx.setTraversalScope(mainFileDecls(Ctx));
}

} // namespace

std::vector<Decl *> mainFileDecls(ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  std::vector<Decl *> Decls;
  for (Decl *D : Ctx.getTranslationUnitDecl()->noload_decls())
    if (SM.isInMainFile(SM.getExpansionLoc(D->getBeginLoc())))
      Decls.push_back(D);
  return Decls;
}

Error CudaFrontend::diagnose(CudaSide Side, StringRef Path,
                             StringRef Code) const {
  // A failed parse with a preamble may not report errors inside the
  // preamble itself (an #include that is not found): parse once more
  // without one, for the user's benefit. Only failures pay for this.
  ErrorCollector Errors;
  tooling::buildASTFromCodeWithArgs(
      Code, argsFor(Side), Path, "kopt",
      std::make_shared<PCHContainerOperations>(),
      tooling::getClangStripDependencyFileAdjuster(),
      tooling::FileContentMappings{
          {nvccCompatHeaderPath().str(), nvccCompatHeader().str()}},
      &Errors);
  if (Errors.Messages.empty())
    Errors.Messages.push_back("error: clang could not build an AST");
  return make_error<ParseError>(Side, Errors.Messages);
}

Error CudaFrontend::parseSide(CudaSide Side, ParsedSource &Source) const {
  std::vector<std::string> Args = argsFor(Side);
  std::optional<std::string> Prefix;
  if (!Opts.PrefixHeaderDir.empty())
    Prefix = prefixHeaderFor(Args, Opts.PrefixHeaderDir);
  if (Prefix && !parseSideWith(Side, Source, Args, Prefix))
    return Error::success();
  if (Prefix)
    if (std::optional<Error> E = brokenSource(Side, Source))
      return std::move(*E);
  if (!parseSideWith(Side, Source, Args, std::nullopt)) {
    // The file parses, but not with the prefix: Clang refused it (its
    // headers changed since). The next parse builds it again.
    if (Prefix)
      forgetPrefixHeader(*Prefix);
    return Error::success();
  }
  if (std::optional<Error> E = brokenSource(Side, Source))
    return std::move(*E);
  return diagnose(Side, Source.Path, Source.Code);
}

std::optional<Error> CudaFrontend::brokenSource(CudaSide Side,
                                                ParsedSource &Source) const {
  const std::unique_ptr<ErrorCollector> &Errors =
      Side == CudaSide::Device ? Source.DeviceErrors : Source.HostErrors;
  const std::unique_ptr<ASTUnit> &AST =
      Side == CudaSide::Device ? Source.Device : Source.Host;
  if (!Errors || !brokenInMainFile(*Errors, AST.get(), Source.Path))
    return std::nullopt;
  return Error(make_error<ParseError>(Side, Errors->Messages));
}

bool CudaFrontend::parseSideWith(
    CudaSide Side, ParsedSource &Source, std::vector<std::string> Args,
    const std::optional<std::string> &Prefix) const {
  std::unique_ptr<ErrorCollector> &Errors =
      Side == CudaSide::Device ? Source.DeviceErrors : Source.HostErrors;
  std::unique_ptr<ASTUnit> &AST =
      Side == CudaSide::Device ? Source.Device : Source.Host;
  Errors = std::make_unique<ErrorCollector>();
  Args.insert(Args.begin(), {"clang", "-fsyntax-only"});
  if (Prefix)
    Args.insert(Args.end(), {"-include-pch", *Prefix});
  Args.push_back(Source.Path);
  std::vector<const char *> Argv;
  for (const std::string &A : Args)
    Argv.push_back(A.c_str());
  auto DiagOpts = std::make_shared<DiagnosticOptions>();
  IntrusiveRefCntPtr<DiagnosticsEngine> Diags =
      CompilerInstance::createDiagnostics(*vfs::getRealFileSystem(), *DiagOpts,
                                          Errors.get(),
                                          /*ShouldOwnClient=*/false);
  std::unique_ptr<ASTUnit> ErrAST;
  // The preamble (the headers the file includes, CUDA's among them) is
  // precompiled on the first parse and reused by reparse().
  AST = CreateASTUnitFromCommandLine(
      Argv.data(), Argv.data() + Argv.size(),
      std::make_shared<PCHContainerOperations>(), DiagOpts, Diags,
      Opts.ResourceDir, /*StorePreamblesInMemory=*/true,
      /*PreambleStoragePath=*/"", /*OnlyLocalDecls=*/false,
      CaptureDiagsKind::All, remappedFiles(Source.Path, Source.Code),
      /*RemappedFilesKeepOriginalName=*/true,
      /*PrecompilePreambleAfterNParses=*/1, TU_Complete,
      /*CacheCodeCompletionResults=*/false,
      /*IncludeBriefCommentsInCodeCompletion=*/false,
      /*AllowPCHWithCompilerErrors=*/false, SkipFunctionBodiesScope::Preamble,
      /*SingleFileParse=*/false, /*UserFilesAreVolatile=*/true,
      /*ForSerialization=*/false, /*RetainExcludedConditionalBlocks=*/false,
      std::nullopt, &ErrAST);
  if (!AST || Errors->getNumErrors() > 0 || hasStoredError(*AST))
    return true;
  scopeToMainFile(*AST);
  return false;
}

Error CudaFrontend::reparseSide(CudaSide Side, ParsedSource &Source) const {
  ErrorCollector &Errors =
      Side == CudaSide::Device ? *Source.DeviceErrors : *Source.HostErrors;
  ASTUnit &AST = Source.side(Side);
  Errors.clear();
  bool Failed = AST.Reparse(std::make_shared<PCHContainerOperations>(),
                            remappedFiles(Source.Path, Source.Code));
  if (Failed || Errors.getNumErrors() > 0 || hasStoredError(AST)) {
    if (std::optional<Error> E = brokenSource(Side, Source))
      return std::move(*E);
    // A reparse reads the precompiled prefix again, which another process
    // may have removed as stale since: parse the side afresh (with a prefix
    // built again, or none) before calling the text broken.
    return parseSide(Side, Source);
  }
  scopeToMainFile(AST);
  return Error::success();
}

Expected<ParsedSource> CudaFrontend::parse(StringRef Path,
                                           StringRef Code) const {
  ParsedSource Result;
  Result.Path = Path.str();
  Result.Code = Code.str();
  // The two sides are independent compiles: parse them on two threads.
  auto HostFuture = std::async(
      std::launch::async, [&] { return parseSide(CudaSide::Host, Result); });
  Error Device = parseSide(CudaSide::Device, Result);
  Error Host = HostFuture.get();
  if (Device) {
    consumeError(std::move(Host));
    return std::move(Device);
  }
  if (Host)
    return std::move(Host);
  return std::move(Result);
}

Error CudaFrontend::reparse(ParsedSource &Source, StringRef NewCode) const {
  Source.Code = NewCode.str();
  auto HostFuture = std::async(
      std::launch::async, [&] { return reparseSide(CudaSide::Host, Source); });
  Error Device = reparseSide(CudaSide::Device, Source);
  Error Host = HostFuture.get();
  if (Device) {
    consumeError(std::move(Host));
    return Device;
  }
  return Host;
}

} // namespace kopt
