//===- Evaluator.h - The parent side of check and run -----------*- C++ -*-===//
//
// The parent never touches the GPU. It compiles (identical flags for the
// reference and every candidate), applies the static rules, and hands each
// surviving candidate to a child process per evaluation, one device per
// worker thread; a child that hangs is killed at its wall-clock limit.
//
//===----------------------------------------------------------------------===//
#ifndef KOPT_EVAL_EVALUATOR_H
#define KOPT_EVAL_EVALUATOR_H

#include "kopt/Eval/Status.h"
#include "kopt/Eval/WorkerJob.h"
#include "kopt/Spec/Problem.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace kopt::eval {

struct EvaluatorOptions {
  std::vector<std::string> Candidates; // empty: the problem's own source
  std::vector<int> Devices = {0};
  double TimeoutSeconds = 0; // 0: the problem's timeout_s
  std::string Arch;          // check only: the target (default sm_90a)
  /// The inputs' base seed, shared by every candidate of the run; unset:
  /// drawn at random once per run.
  std::optional<std::uint64_t> Seed;
  TimingOptions Timing;
  std::string WorkDir; // empty: a fresh temporary directory
  bool KeepWorkDir = false;
  std::string CacheDir; // empty: defaultCacheDir()
  /// Reuse compiled libraries from CacheDir/compile (see CompileCache.h).
  bool CompileCache = true;
  /// The reference's outputs kept in CacheDir/reference for the run's
  /// candidates (and later runs with the same seed): "auto" keeps those
  /// that cost more to recompute than to read back, "always" all of them,
  /// "off" none (docs/evaluator.md).
  std::string ReferenceCache = "auto";
  bool OnDevice = true; // false: `check` (compile and static rules only)
  /// After an ok evaluation, a few ncu metrics of the candidate (run).
  bool Profile = false;
  /// Containment (Capture.h, Containment.h): the candidate's host code
  /// runs only in a confined capture child; the evaluation replays its
  /// captured work. Needs an entry that takes a stream; turns the
  /// reference cache off.
  bool Contain = false;
  /// The program whose `__probe`/`__evaluate` modes run the children;
  /// empty: this one (kopt-bench). kopt-search names kopt-bench here.
  std::string WorkerExecutable;
  /// Called as each candidate's compile ends (Stage "compiled", of all
  /// candidates) and each evaluation on a device ends ("evaluated", of
  /// those that compiled ok), one call at a time, from worker threads:
  /// how many have passed the stage, of how many, the candidate, its
  /// status then. Unset: nothing is reported.
  std::function<void(const char *Stage, std::size_t Done, std::size_t Total,
                     const std::string &Candidate, const std::string &Status)>
      OnProgress;
};

struct EvaluationOutcome {
  std::vector<nlohmann::json> Records; // one per candidate
  nlohmann::json Devices = nlohmann::json::array();
  /// Set when the problem itself is at fault (the reference does not
  /// compile or fails) or the environment is (no nvcc, no GPU): exit 2.
  std::vector<std::string> ProblemErrors;
  std::string WorkDir;
};

EvaluationOutcome evaluateCandidates(const spec::Problem &P,
                                     const EvaluatorOptions &Options);

/// The status a record holds.
Status recordStatus(const nlohmann::json &Record);

} // namespace kopt::eval

#endif // KOPT_EVAL_EVALUATOR_H
