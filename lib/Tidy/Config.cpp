//===- Config.cpp - .kopt.yaml, found like .clang-tidy --------------------===//

#include "kopt/Tidy/Config.h"
#include "kopt/Frontend/CudaFrontend.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/YAMLTraits.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using kopt::TidyConfig;

LLVM_YAML_IS_STRING_MAP(std::string)

namespace llvm {
namespace yaml {

template <> struct MappingTraits<TidyConfig> {
  static void mapping(IO &IO, TidyConfig &C) {
    IO.mapOptional("Checks", C.Checks);
    IO.mapOptional("WarningsAsErrors", C.WarningsAsErrors);
    IO.mapOptional("CheckOptions", C.CheckOptions);
    IO.mapOptional("Pipeline", C.Pipeline);
    IO.mapOptional("GpuArch", C.GpuArch);
    IO.mapOptional("ExtraArgs", C.ExtraArgs);
    IO.mapOptional("ShowMissed", C.ShowMissed);
    IO.mapOptional("InheritParentConfig", C.InheritParentConfig);
  }
};

} // namespace yaml
} // namespace llvm

namespace kopt {

void TidyConfig::mergeFrom(const TidyConfig &O) {
  if (O.Checks)
    Checks = O.Checks;
  if (O.WarningsAsErrors)
    WarningsAsErrors = O.WarningsAsErrors;
  for (const auto &[Key, Value] : O.CheckOptions)
    CheckOptions[Key] = Value;
  if (O.Pipeline)
    Pipeline = O.Pipeline;
  if (O.GpuArch)
    GpuArch = O.GpuArch;
  if (O.ExtraArgs)
    ExtraArgs = O.ExtraArgs;
  if (O.ShowMissed)
    ShowMissed = O.ShowMissed;
  InheritParentConfig = O.InheritParentConfig;
  Sources.insert(Sources.begin(), O.Sources.begin(), O.Sources.end());
}

Expected<TidyConfig> parseConfig(StringRef Text, StringRef Path) {
  std::string Diagnostic;
  auto Handler = [](const SMDiagnostic &D, void *Ctx) {
    std::string &Out = *static_cast<std::string *>(Ctx);
    if (!Out.empty())
      return; // the first error is the one to fix
    raw_string_ostream OS(Out);
    OS << D.getFilename() << ":" << D.getLineNo() << ":"
       << (D.getColumnNo() + 1) << ": error: " << D.getMessage();
  };
  TidyConfig Config;
  // An empty file (or one of comments only) configures nothing.
  if (!Text.trim().empty()) {
    yaml::Input In(MemoryBufferRef(Text, Path), nullptr, Handler, &Diagnostic);
    In >> Config;
    if (In.error()) {
      if (Diagnostic.empty())
        Diagnostic = (Path + ": error: not a kopt configuration").str();
      return createStringError(inconvertibleErrorCode(), Diagnostic);
    }
  }
  Config.Sources = {Path.str()};
  return Config;
}

Expected<TidyConfig> readConfig(StringRef Path) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buf = MemoryBuffer::getFile(Path);
  if (!Buf)
    return createStringError(Buf.getError(), "cannot read %s: %s",
                             Path.str().c_str(),
                             Buf.getError().message().c_str());
  return parseConfig((*Buf)->getBuffer(), Path);
}

Expected<TidyConfig> findConfig(StringRef File) {
  SmallString<256> Dir(File);
  if (std::error_code EC = sys::fs::make_absolute(Dir))
    return createStringError(EC, "cannot make %s absolute", File.str().c_str());
  sys::path::remove_dots(Dir, /*remove_dot_dot=*/true);
  if (!sys::fs::is_directory(Dir))
    sys::path::remove_filename(Dir);

  // The nearest file first, then its parents while it says to inherit.
  std::vector<TidyConfig> Chain;
  for (StringRef D = Dir; !D.empty(); D = sys::path::parent_path(D)) {
    SmallString<256> Candidate(D);
    sys::path::append(Candidate, ConfigFileName);
    if (!sys::fs::exists(Candidate))
      continue;
    Expected<TidyConfig> C = readConfig(Candidate);
    if (!C)
      return C.takeError();
    bool Inherit = C->InheritParentConfig;
    Chain.push_back(std::move(*C));
    if (!Inherit)
      break;
  }
  TidyConfig Result;
  for (const TidyConfig &C : llvm::reverse(Chain))
    Result.mergeFrom(C);
  return Result;
}

std::string dumpConfig(const TidyConfig &Config) {
  TidyConfig Filled = Config;
  if (!Filled.Checks)
    Filled.Checks = DefaultChecks.str();
  if (!Filled.WarningsAsErrors)
    Filled.WarningsAsErrors = "";
  if (!Filled.Pipeline)
    Filled.Pipeline = "default";
  if (!Filled.GpuArch)
    Filled.GpuArch = FrontendOptions().GpuArch;
  if (!Filled.ExtraArgs)
    Filled.ExtraArgs = std::vector<std::string>();
  std::string Out;
  raw_string_ostream OS(Out);
  yaml::Output YOut(OS);
  YOut << Filled;
  return Out;
}

} // namespace kopt
