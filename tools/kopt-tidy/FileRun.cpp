//===- FileRun.cpp - kopt-tidy's work on one file -------------------------===//

#include "FileRun.h"

#include "kopt/Tidy/CheckGlob.h"
#include "kopt/Tidy/Checks.h"
#include "kopt/Tidy/Config.h"
#include "kopt/Tidy/Report.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace kopt {

namespace {

/// Writes Text to Path through a temporary file in the same directory, so a
/// failed write leaves the original whole.
Error writeAtomically(StringRef Path, StringRef Text) {
  SmallString<256> Temp;
  int FD;
  if (std::error_code EC =
          sys::fs::createUniqueFile(Path + ".kopt-tidy-%%%%%%", FD, Temp))
    return createStringError(EC, "cannot write next to %s: %s",
                             Path.str().c_str(), EC.message().c_str());
  {
    raw_fd_ostream OS(FD, /*shouldClose=*/true);
    OS << Text;
    OS.close();
    if (OS.has_error()) {
      sys::fs::remove(Temp);
      return createStringError(OS.error(), "cannot write %s", Temp.c_str());
    }
  }
  if (std::error_code EC = sys::fs::rename(Temp, Path)) {
    sys::fs::remove(Temp);
    return createStringError(EC, "cannot replace %s: %s", Path.str().c_str(),
                             EC.message().c_str());
  }
  return Error::success();
}

void error(FileOutcome &Out, StringRef File, const Twine &Message) {
  raw_string_ostream OS(Out.Diagnostics);
  OS << File << ": error: " << Message << " [kopt-tidy]\n";
  Out.Failed = true;
}

} // namespace

FileOutcome runFile(const FileJob &Job, const TidySettings &S) {
  FileOutcome Out;
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buffer =
      MemoryBuffer::getFile(Job.Path, /*IsText=*/true);
  if (!Buffer) {
    error(Out, Job.Path,
          "cannot read the file: " + Buffer.getError().message());
    return Out;
  }
  StringRef Code = (*Buffer)->getBuffer();

  Expected<TidyConfig> Config =
      S.ConfigFile.empty() ? findConfig(Job.Path) : readConfig(S.ConfigFile);
  if (!Config) {
    error(Out, Job.Path, "bad configuration: " + toString(Config.takeError()));
    return Out;
  }
  if (Error E = validateCheckOptions(*S.Registry, Config->CheckOptions)) {
    error(Out, Job.Path,
          (Config->Sources.empty() ? std::string("configuration")
                                   : Config->Sources.front()) +
              ": " + toString(std::move(E)));
    return Out;
  }

  std::string ChecksText = Config->Checks.value_or(DefaultChecks.str());
  if (!S.ChecksOverride.empty())
    ChecksText += "," + S.ChecksOverride;
  CheckGlob Enabled(ChecksText);
  CheckGlob AsErrors(
      S.WarningsAsErrors.value_or(Config->WarningsAsErrors.value_or("")));

  std::vector<CheckRequest> Requests;
  for (const PassSpec &Spec : S.Registry->passes()) {
    std::string Name = checkName(Spec);
    if (!Enabled.contains(Name))
      continue;
    auto Lookup = [&](StringRef Option) -> std::optional<std::string> {
      auto It = Config->CheckOptions.find(Name + "." + Option.str());
      if (It == Config->CheckOptions.end())
        return std::nullopt;
      return It->second;
    };
    Expected<PassInstance> Instance = checkInstance(Spec, Lookup);
    if (!Instance) {
      error(Out, Job.Path, toString(Instance.takeError()));
      return Out;
    }
    Requests.push_back({Name, std::move(*Instance)});
  }
  if (Requests.empty())
    return Out;

  FrontendOptions FO;
  FO.GpuArch = !S.GpuArch.empty() ? S.GpuArch
               : Job.GpuArch      ? *Job.GpuArch
               : Config->GpuArch  ? *Config->GpuArch
                                  : FO.GpuArch;
  FO.CudaPath = S.CudaPath;
  FO.ResourceDir = S.ResourceDir;
  FO.ExtraArgs = S.ArgsBefore;
  append_range(FO.ExtraArgs, Job.ClangArgs);
  if (Config->ExtraArgs)
    append_range(FO.ExtraArgs, *Config->ExtraArgs);
  append_range(FO.ExtraArgs, S.ArgsAfter);
  CudaFrontend Frontend(FO);

  Expected<std::unique_ptr<FileChecker>> Checker =
      FileChecker::parse(Frontend, Job.Path, Code);
  if (!Checker) {
    raw_string_ostream OS(Out.Diagnostics);
    handleAllErrors(
        Checker.takeError(),
        [&](const ParseError &PE) {
          for (const std::string &D : PE.Diagnostics)
            OS << D << " [clang-diagnostic-error]\n";
          OS << Job.Path << ": error: the file does not parse as CUDA ("
             << (PE.Side == CudaSide::Device ? "device" : "host")
             << " side); no kopt check ran on it [kopt-tidy]\n";
        },
        [&](const ErrorInfoBase &EI) {
          OS << Job.Path << ": error: " << EI.message() << " [kopt-tidy]\n";
        });
    Out.Failed = true;
    return Out;
  }

  Out.Findings = (*Checker)->run(Requests);
  // Missed remarks are notes only when asked for (--show-missed, or
  // ShowMissed: true in .kopt.yaml).
  if (!S.ShowMissed && !Config->ShowMissed.value_or(false))
    llvm::erase_if(Out.Findings, [](const Finding &F) { return F.Missed; });
  raw_string_ostream OS(Out.Diagnostics);
  // As clang-tidy: an unmatched NOLINTBEGIN/END is a warning of its own.
  for (const NolintMap::Problem &P : (*Checker)->nolint().problems()) {
    OS << Job.Path << ":" << P.Line << ":1: warning: " << P.Message
       << " [kopt-tidy-nolint]\n";
    ++Out.Warnings;
  }
  for (const Finding &F : Out.Findings) {
    bool AsError = F.Severity == Finding::Warning && AsErrors.contains(F.Check);
    Out.AsError.push_back(AsError);
    printFinding(OS, F, Code, AsError);
    if (F.Severity == Finding::Note)
      ++Out.Notes;
    else
      ++(AsError ? Out.WarningsAsErrors : Out.Warnings);
  }

  if (S.Fix || S.Export) {
    // The set --fix applies is the set exported: overlapping checks'
    // fix-its are left out of both (clang-apply-replacements refuses a file
    // whose fixes overlap), and said so.
    FixResult Fixed = (*Checker)->fix(Out.Findings);
    for (const std::string &Why : Fixed.Refused)
      OS << Job.Path << ": note: fix-its of " << Why
         << (S.Fix ? "; not applied\n" : "; not exported\n");
    if (S.Export)
      for (Finding &F : Out.Findings)
        if (!llvm::is_contained(Fixed.Kept, F.Check))
          F.Fix = clang::tooling::Replacements();
    if (S.Fix && Fixed.Applied) {
      if (Error E = writeAtomically(Job.Path, Fixed.Code)) {
        error(Out, Job.Path, toString(std::move(E)));
        return Out;
      }
      Out.FixesApplied = Fixed.Applied;
      OS << Job.Path << ": note: applied " << Fixed.Applied
         << " fix-it edit(s)\n";
    }
  }
  return Out;
}

} // namespace kopt
