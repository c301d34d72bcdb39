//===- PrefixHeader.cpp - The precompiled prefix of every CUDA parse ------===//

#include "kopt/Frontend/PrefixHeader.h"
#include "kopt/Frontend/NvccCompat.h"

#include "clang/Basic/DiagnosticOptions.h"
#include "clang/Basic/Version.h"
#include "clang/Driver/CreateInvocationFromArgs.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/CompilerInvocation.h"
#include "clang/Frontend/FrontendActions.h"
#include "clang/Lex/PreprocessorOptions.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/VirtualFileSystem.h"
#include "llvm/Support/xxhash.h"

using namespace clang;
using namespace llvm;

namespace kopt {

namespace {

constexpr llvm::StringLiteral PrefixMainFile = "/kopt-virtual/kopt_prefix.cu";

/// The size and modification time of the file, or "" if it is absent.
std::string stamp(StringRef Path) {
  sys::fs::file_status S;
  if (sys::fs::status(Path, S))
    return "";
  return std::to_string(S.getSize()) + "@" +
         std::to_string(S.getLastModificationTime().time_since_epoch().count());
}

/// Clang does not check system headers against a PCH: a CUDA toolkit or
/// Clang installed again in place must change the key instead.
std::string headerStamps(const std::vector<std::string> &Args) {
  std::string Out;
  for (const std::string &A : Args) {
    StringRef Arg(A);
    if (Arg.consume_front("--cuda-path=")) {
      SmallString<256> P(Arg);
      sys::path::append(P, "include", "cuda_runtime.h");
      Out += stamp(P) + ";";
      P = Arg;
      sys::path::append(P, "include", "crt", "math_functions.h");
      Out += stamp(P) + ";";
    } else if (Arg.consume_front("-resource-dir=")) {
      SmallString<256> P(Arg);
      sys::path::append(P, "include", "__clang_cuda_runtime_wrapper.h");
      Out += stamp(P) + ";";
    }
  }
  return Out;
}

} // namespace

std::optional<std::string> prefixHeaderFor(const std::vector<std::string> &Args,
                                           StringRef Dir) {
  std::string Key = getClangFullVersion() + "\n" + nvccCompatHeader().str() +
                    "\n" + headerStamps(Args);
  for (const std::string &A : Args)
    Key += "\n" + A;
  SmallString<256> Path(Dir);
  sys::path::append(Path, "prefix-" + utohexstr(xxh3_64bits(Key)) + ".pch");
  if (sys::fs::exists(Path))
    return std::string(Path);
  if (sys::fs::create_directories(Dir))
    return std::nullopt;

  std::vector<const char *> Argv = {"clang", "-fsyntax-only"};
  for (const std::string &A : Args)
    Argv.push_back(A.c_str());
  Argv.push_back(PrefixMainFile.data());
  DiagnosticOptions DiagOpts;
  IntrusiveRefCntPtr<DiagnosticsEngine> Diags =
      CompilerInstance::createDiagnostics(*vfs::getRealFileSystem(), DiagOpts,
                                          new IgnoringDiagConsumer());
  CreateInvocationOptions CIOpts;
  CIOpts.Diags = Diags;
  std::shared_ptr<CompilerInvocation> Inv = createInvocation(Argv, CIOpts);
  if (!Inv)
    return std::nullopt;
  // Written beside its final name and linked there only if no other
  // process did first: a published prefix never changes under a tool that
  // parsed with it (its re-parses read it again), and no reader sees half
  // of one.
  SmallString<256> Tmp;
  int FD;
  if (sys::fs::createUniqueFile(Path + ".%%%%%%.tmp", FD, Tmp))
    return std::nullopt;
  sys::Process::SafelyCloseFileDescriptor(FD);
  Inv->getFrontendOpts().ProgramAction = frontend::GeneratePCH;
  Inv->getFrontendOpts().OutputFile = std::string(Tmp);
  Inv->getPreprocessorOpts().addRemappedFile(
      PrefixMainFile, MemoryBuffer::getMemBuffer("", PrefixMainFile).release());
  Inv->getPreprocessorOpts().addRemappedFile(
      nvccCompatHeaderPath(),
      MemoryBuffer::getMemBuffer(nvccCompatHeader(), nvccCompatHeaderPath())
          .release());
  CompilerInstance CI(std::move(Inv));
  CI.createDiagnostics(new IgnoringDiagConsumer(), /*ShouldOwnClient=*/true);
  GeneratePCHAction Action;
  bool Ok = CI.ExecuteAction(Action) && !CI.getDiagnostics().hasErrorOccurred();
  if (Ok && sys::fs::create_hard_link(Tmp, Path) && !sys::fs::exists(Path))
    Ok = !sys::fs::rename(Tmp, Path); // a file system without hard links
  sys::fs::remove(Tmp);
  if (!Ok || !sys::fs::exists(Path))
    return std::nullopt;
  return std::string(Path);
}

void forgetPrefixHeader(StringRef Path) { sys::fs::remove(Path); }

StringRef prefixMainFile() { return PrefixMainFile; }

} // namespace kopt
