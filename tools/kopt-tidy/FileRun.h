//===- FileRun.h - kopt-tidy's work on one file -----------------*- C++ -*-===//

#ifndef KOPT_TOOLS_KOPT_TIDY_FILERUN_H
#define KOPT_TOOLS_KOPT_TIDY_FILERUN_H

#include "kopt/Pass/PassRegistry.h"
#include "kopt/Tidy/FileChecker.h"

#include <optional>
#include <string>
#include <vector>

namespace kopt {

/// What the command line decides for every file.
struct TidySettings {
  const PassRegistry *Registry = nullptr;
  std::string ChecksOverride; ///< --checks, appended to the config's
  std::optional<std::string> WarningsAsErrors; ///< --warnings-as-errors
  std::string ConfigFile; ///< --config-file; empty: find .kopt.yaml
  std::string GpuArch;    ///< --arch; empty: command, config, sm_90
  std::string CudaPath, ResourceDir;
  std::vector<std::string> ArgsBefore, ArgsAfter; ///< --extra-arg(-before)
  bool Fix = false;
  bool ShowMissed = false; ///< --show-missed (else the config's ShowMissed)
  /// --export-fixes: findings keep only the fix-its --fix would apply.
  bool Export = false;
};

/// One file and the flags its compile command gives.
struct FileJob {
  std::string Path; ///< absolute
  std::vector<std::string> ClangArgs;
  std::optional<std::string> GpuArch;
  std::string BuildDirectory;
};

struct FileOutcome {
  std::string Diagnostics; ///< printed, in file order
  std::vector<Finding> Findings;
  std::vector<bool> AsError; ///< per finding: a warning made an error
  unsigned Warnings = 0, WarningsAsErrors = 0, Notes = 0;
  unsigned FixesApplied = 0;
  bool Failed = false; ///< the file could not be read, configured or parsed
};

/// Checks one file (and with --fix rewrites it). Never throws or exits.
FileOutcome runFile(const FileJob &Job, const TidySettings &Settings);

} // namespace kopt

#endif // KOPT_TOOLS_KOPT_TIDY_FILERUN_H
