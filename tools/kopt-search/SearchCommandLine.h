//===- SearchCommandLine.h - kopt-search's arguments ------------*- C++ -*-===//
#ifndef KOPT_TOOLS_SEARCHCOMMANDLINE_H
#define KOPT_TOOLS_SEARCHCOMMANDLINE_H

#include "kopt/Search/SearchLoop.h"

#include <optional>
#include <string>
#include <vector>

namespace kopt::search {

struct CommandLine {
  std::string Command = "search";  // search, show, export
  std::vector<std::string> Inputs; // problems, or the store for show/export
  std::string Out = "kopt-search-out", Store, Json;
  bool OutGiven = false;
  std::vector<int> Devices = {0};
  std::string Strategy = "beam";
  int BeamWidth = 4, Depth = 3;
  Budgets Limits;
  std::vector<std::string> Proposers = {"passes"};
  std::uint64_t Seed = 1;
  bool DryRun = false, KeepWork = false, LookAhead = false, Overlap = true;
  /// kopt-bench's containment: --contain, --no-contain, or (unset) on
  /// exactly when the llm proposer is used.
  std::optional<bool> Contain;
  std::string Simulate, KoptOptPath, KoptBenchPath, Arch = "sm_90a";
  /// --make-memo: a directory, "run" (DIR/work/made), or empty (the
  /// cache directory's made/).
  std::string MakeMemo;
  double TimeoutSeconds = 0;
  unsigned Jobs = 0;
  // The LLM proposer (--proposers ...,llm).
  std::string LLMProvider = "openai", LLMModel, LLMBaseUrl, LLMReplay;
  std::string LLMPrompt, LLMRepairPrompt, LLMSystem;
  std::uint64_t LLMBudgetTokens = 0;
  int LLMFixRounds = 2, LLMMaxTokens = 8192, LLMProposals = 1,
      LLMMaxRetries = 4;
  double LLMTimeoutSeconds = 300;
  bool LLMPrintTemplate = false, LLMProfile = true;
  // Where evaluations run: local workers, or Slurm job arrays.
  std::string Executor = "local", Partition, Gres = "gpu:1";
  std::vector<std::string> SbatchArgs;
  int MaxJobs = 8, SlurmRetries = 2;
  double SlurmPollSeconds = 5;
};

extern const char *HelpText;

/// Parses \p Args (without the program name). Returns an exit code when
/// parsing ends the program (help, version, a usage error), -1 otherwise.
int parseCommandLine(const std::vector<std::string> &Args, CommandLine &CL);

/// Prints "kopt-search: error: MESSAGE" and the usage hint; returns 2.
int usageError(const std::string &Message);

} // namespace kopt::search

#endif // KOPT_TOOLS_SEARCHCOMMANDLINE_H
