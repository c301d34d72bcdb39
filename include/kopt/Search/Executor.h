//===- Executor.h - Where candidates are validated and measured -*- C++ -*-===//
//
// An executor takes candidate sources of one problem and returns one verdict
// each. validate() is the part before the GPU (compile once with the
// evaluation's flags, static rules, the SASS hash for duplicate detection);
// evaluate() measures, with exactly kopt-bench's rules. The GPU executor
// calls the evaluator library, one worker per device; the simulated one
// stands in for the GPU so the loop runs in CI.
//
//===----------------------------------------------------------------------===//
#ifndef KOPT_SEARCH_EXECUTOR_H
#define KOPT_SEARCH_EXECUTOR_H

#include "kopt/Eval/Evaluator.h"
#include "kopt/Search/Candidate.h"
#include "kopt/Spec/Problem.h"

#include <memory>
#include <string>
#include <vector>

namespace kopt::search {

struct Validation {
  std::string Status; // "ok", "compile-error" or "rejected"
  std::string Reason;
  std::string SassSha256; // empty when the SASS was not read
};

struct ExecutorOptions {
  std::vector<int> Devices = {0};
  std::string KoptBench; // the program that runs the evaluation children
  std::string Arch = "sm_90a";
  eval::TimingOptions Timing;
  double TimeoutSeconds = 0;
  std::string WorkDir;
  std::string KoptVersion;
  /// kopt-bench's containment (`run --contain`, docs/evaluator.md): the
  /// candidate's host code runs only in a confined capture process.
  bool Contain = false;
};

class Executor {
public:
  virtual ~Executor();
  /// "gpu", "simulate:cost", ...: evaluations are stored under this name.
  virtual std::string name() const = 0;
  /// How many candidates one evaluate() call should take: a budget or an
  /// interruption is looked at between calls.
  virtual std::size_t batchSize() const { return 1; }
  /// Compile and static rules, no GPU. \p Errors: the problem's own faults.
  virtual std::vector<Validation>
  validate(const spec::Problem &P, const std::vector<std::string> &Paths,
           std::vector<std::string> &Errors) = 0;
  virtual std::vector<Evaluation>
  evaluate(const spec::Problem &P, const std::vector<std::string> &Paths,
           std::vector<std::string> &Errors) = 0;
  /// Nsight Compute metrics of the source at \p Path (kopt-bench run
  /// --profile's "profile" JSON, which says why when there are none);
  /// empty when this executor has no GPU.
  virtual std::string profile(const spec::Problem &P, const std::string &Path);
};

/// kopt-bench's evaluator library (needs nvcc; evaluate() needs a GPU).
std::unique_ptr<Executor> createGpuExecutor(const ExecutorOptions &O);

/// MODEL is `cost` (a deterministic function of the source: the same source
/// always gets the same speedup) or `replay=STORE` (timings recorded by an
/// earlier search, looked up by source hash). Options after a comma:
/// `delay-ms=N` (wall time per evaluation). Validation compiles as the GPU
/// executor does. nullptr with \p Error for a bad model.
std::unique_ptr<Executor> createSimulatedExecutor(const std::string &Model,
                                                  const ExecutorOptions &O,
                                                  std::string &Error);

/// An evaluation from one of kopt-bench's records.
Evaluation evaluationFromRecord(const nlohmann::json &Record,
                                const std::string &Executor);

} // namespace kopt::search

#endif // KOPT_SEARCH_EXECUTOR_H
