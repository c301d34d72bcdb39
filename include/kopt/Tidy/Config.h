//===- Config.h - .kopt.yaml, found like .clang-tidy ------------*- C++ -*-===//
//
// A `.kopt.yaml` configures kopt for the files below its directory:
//
//   Checks: 'kopt-*,-kopt-unroll'        # which kopt-<pass> checks run
//   WarningsAsErrors: 'kopt-launch-bounds'
//   CheckOptions:                        # a check's options are its pass's
//     kopt-vectorize-loads.Width: 4      #   parameters, in CamelCase
//   Pipeline: 'launch-bounds,vectorize-loads'   # what kopt-opt -O runs
//   GpuArch: sm_90
//   ExtraArgs: ['-DNDEBUG']              # further Clang flags for the parse
//   InheritParentConfig: true            # merge with the parent directory's
//
// As with .clang-tidy, the nearest file applies; with InheritParentConfig
// its keys override those of the next file up.
//
//===----------------------------------------------------------------------===//

#ifndef KOPT_TIDY_CONFIG_H
#define KOPT_TIDY_CONFIG_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kopt {

struct TidyConfig {
  std::optional<std::string> Checks;
  std::optional<std::string> WarningsAsErrors;
  std::map<std::string, std::string> CheckOptions;
  std::optional<std::string> Pipeline;
  std::optional<std::string> GpuArch;
  std::optional<std::vector<std::string>> ExtraArgs;
  /// Missed remarks (what a check could not do, and why) as notes; off by
  /// default, as -Rpass-missed is for kopt-opt.
  std::optional<bool> ShowMissed;
  bool InheritParentConfig = false;
  /// The files this configuration was read from, nearest first.
  std::vector<std::string> Sources;

  /// Sets every key Overrides sets (options one by one).
  void mergeFrom(const TidyConfig &Overrides);
};

inline constexpr llvm::StringLiteral ConfigFileName = ".kopt.yaml";
inline constexpr llvm::StringLiteral DefaultChecks = "kopt-*";

/// Parses a .kopt.yaml text. Errors name Path, the line and the column.
llvm::Expected<TidyConfig> parseConfig(llvm::StringRef Text,
                                       llvm::StringRef Path);

/// Reads and parses the file at Path.
llvm::Expected<TidyConfig> readConfig(llvm::StringRef Path);

/// The configuration of File: the nearest .kopt.yaml in File's directory or
/// above (merged with its parents' while InheritParentConfig says so); an
/// empty configuration when there is none.
llvm::Expected<TidyConfig> findConfig(llvm::StringRef File);

/// The configuration as YAML, every key written (defaults filled in).
std::string dumpConfig(const TidyConfig &Config);

} // namespace kopt

#endif // KOPT_TIDY_CONFIG_H
