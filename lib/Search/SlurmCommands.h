//===- SlurmCommands.h - sbatch, squeue, scontrol, scancel ------*- C++ -*-===//
//
// The Slurm commands the executor runs, and what it reads from them. Only
// lib/Search includes this file.
//
//===----------------------------------------------------------------------===//
#ifndef KOPT_LIB_SEARCH_SLURMCOMMANDS_H
#define KOPT_LIB_SEARCH_SLURMCOMMANDS_H

#include "kopt/Search/Slurm.h"

#include <map>
#include <string>
#include <vector>

namespace kopt::search::slurm {

/// Submits `TaskProgram __slurm-task MANIFEST $SLURM_ARRAY_TASK_ID` as a job
/// array over \p Indices ("0-3"). Returns the job id, or "" with \p Error.
std::string submitArray(const SlurmOptions &O, const std::string &Indices,
                        const std::string &Manifest, const std::string &Name,
                        std::string &Error);

/// The tasks of \p Jobs still queued or running: "JOB_INDEX" -> state.
/// False with \p Error when squeue failed.
bool liveTasks(const std::vector<std::string> &Jobs,
               std::map<std::string, std::string> &Out, std::string &Error);

/// How task "JOB_INDEX" ended (JobState: COMPLETED, NODE_FAIL, CANCELLED,
/// PREEMPTED, TIMEOUT, FAILED, ...), or "LOST" when Slurm no longer knows.
std::string finalState(const std::string &Task);

/// scancel of the given jobs or tasks; false with \p Error.
bool cancel(const std::vector<std::string> &JobsOrTasks, std::string &Error);

/// The jobs cancelSlurmJobsFromSignal() cancels.
void setActiveJobs(const std::vector<std::string> &Jobs);

} // namespace kopt::search::slurm

#endif // KOPT_LIB_SEARCH_SLURMCOMMANDS_H
