//===- CudaFrontend.cpp - Parse CUDA sources with Clang -------------------===//

#include "kopt/Frontend/CudaFrontend.h"

#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"

#include <future>

using namespace clang;
using namespace llvm;

namespace kopt {

char ParseError::ID = 0;

void ParseError::log(raw_ostream &OS) const {
  OS << (Side == CudaSide::Device ? "device" : "host")
     << "-side parse failed";
  for (const std::string &D : Diagnostics)
    OS << "\n" << D;
}

std::error_code ParseError::convertToErrorCode() const {
  return inconvertibleErrorCode();
}

namespace {

/// Collects error diagnostics as "file:line:col: error: message" lines. Only
/// the first few are kept: one broken brace can produce hundreds.
class ErrorCollector : public DiagnosticConsumer {
public:
  static constexpr size_t MaxKept = 10;

  void HandleDiagnostic(DiagnosticsEngine::Level Level,
                        const Diagnostic &Info) override {
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
    Messages.push_back(Where + "error: " + std::string(Text));
  }

  std::vector<std::string> Messages;
};

} // namespace

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
  };
  bool HasStd = false;
  for (const std::string &A : Opts.ExtraArgs)
    HasStd |= StringRef(A).starts_with("-std=");
  if (!HasStd)
    Args.push_back("-std=c++17");
  Args.insert(Args.end(), Opts.ExtraArgs.begin(), Opts.ExtraArgs.end());
  return Args;
}

Expected<std::unique_ptr<ASTUnit>>
CudaFrontend::parseSide(CudaSide Side, StringRef Path, StringRef Code) const {
  ErrorCollector Errors;
  std::unique_ptr<ASTUnit> AST = tooling::buildASTFromCodeWithArgs(
      Code, argsFor(Side), Path, "kopt", std::make_shared<PCHContainerOperations>(),
      tooling::getClangStripDependencyFileAdjuster(),
      tooling::FileContentMappings(), &Errors);
  if (!AST || Errors.getNumErrors() > 0) {
    if (Errors.Messages.empty())
      Errors.Messages.push_back("error: clang could not build an AST");
    return make_error<ParseError>(Side, std::move(Errors.Messages));
  }
  // The collector dies with this frame; later diagnostics go nowhere.
  AST->getDiagnostics().setClient(new IgnoringDiagConsumer(),
                                  /*ShouldOwnClient=*/true);
  return std::move(AST);
}

Expected<ParsedSource> CudaFrontend::parse(StringRef Path,
                                           StringRef Code) const {
  ParsedSource Result;
  Result.Path = Path.str();
  Result.Code = Code.str();
  // The two sides are independent compiles: parse them on two threads.
  auto HostFuture = std::async(std::launch::async, [&] {
    return parseSide(CudaSide::Host, Result.Path, Result.Code);
  });
  Expected<std::unique_ptr<ASTUnit>> Device =
      parseSide(CudaSide::Device, Result.Path, Result.Code);
  Expected<std::unique_ptr<ASTUnit>> Host = HostFuture.get();
  if (!Device) {
    consumeError(Host.takeError());
    return Device.takeError();
  }
  if (!Host)
    return Host.takeError();
  Result.Device = std::move(*Device);
  Result.Host = std::move(*Host);
  return std::move(Result);
}

} // namespace kopt
