//===- Slurm.h - Evaluations as Slurm job arrays ----------------*- C++ -*-===//
//
// kopt-search's executor for clusters: validation (compile, static rules)
// stays on the submitting host; each batch of evaluations becomes a Slurm
// job array, one task per candidate, and each task runs
// `kopt-search __slurm-task MANIFEST INDEX` on its node, which evaluates
// one candidate with the local executor (kopt-bench's evaluator on the GPU
// Slurm gave it, or --simulate's model) and writes its verdict next to the
// manifest on the shared file system. Only the submitting process reads the
// verdicts and writes the store.
//
// Slurm reports failures, kopt handles them: a task that ends without a
// verdict (PREEMPTED, NODE_FAIL, CANCELLED, TIMEOUT, FAILED, or gone) is
// resubmitted up to Retries times, then recorded as `slurm-<state>`. Every
// submission is journaled (slurm/jobs.jsonl under the output directory), so
// a restarted kopt-search adopts tasks still queued or running, and takes
// verdicts that arrived while it was away, instead of resubmitting. An
// interrupted search cancels its tasks (scancel). docs/slurm.md.
//
//===----------------------------------------------------------------------===//
#ifndef KOPT_SEARCH_SLURM_H
#define KOPT_SEARCH_SLURM_H

#include "kopt/Search/Executor.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace kopt::search {

struct SlurmOptions {
  std::string Partition;               ///< --partition; empty: the default
  std::string Gres = "gpu:1";          ///< --gres per task; empty: none
  int MaxJobs = 8;                     ///< tasks of an array run at once
  std::vector<std::string> SbatchArgs; ///< passed to sbatch as they are
  int Retries = 2;                     ///< resubmissions of a failed task
  double PollSeconds = 5;              ///< squeue every so often
  std::string Dir;         ///< shared: manifests, verdicts, logs, journal
  std::string TaskProgram; ///< kopt-search, as the nodes run it
  std::string ProblemPath; ///< problem.json, as the nodes see it
  /// "gpu" or --simulate's model: what each task evaluates with.
  std::string Model = "gpu";
  std::function<bool()> Interrupted;
  std::function<void(const std::string &)> Log;
};

/// The Slurm executor. \p Local validates on this host (and names the
/// evaluations: the tasks use the same model).
std::unique_ptr<Executor> createSlurmExecutor(const SlurmOptions &SO,
                                              const ExecutorOptions &EO,
                                              std::unique_ptr<Executor> Local);

/// The task side: evaluates task \p Index of \p Manifest and writes its
/// verdict. Returns the process's exit code (0 when a verdict was written,
/// whatever it says).
int runSlurmTask(const std::string &Manifest, int Index);

/// Cancels the tasks of the running search: safe to call from a signal
/// handler (fork, exec scancel, wait). Does nothing when none run.
void cancelSlurmJobsFromSignal();

} // namespace kopt::search

#endif // KOPT_SEARCH_SLURM_H
