//===- SlurmCommands.cpp - sbatch, squeue, scontrol, scancel --------------===//
#include "SlurmCommands.h"

#include "kopt/Eval/Process.h"

#include <cstring>
#include <mutex>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

namespace kopt::search::slurm {

namespace {

/// Slurm's commands answer quickly or not at all.
constexpr double CommandTimeout = 60;

std::string quote(const std::string &S) {
  std::string Out = "'";
  for (char C : S)
    Out += C == '\'' ? std::string("'\\''") : std::string(1, C);
  return Out + "'";
}

std::string trim(std::string S) {
  while (!S.empty() && std::isspace((unsigned char)S.back()))
    S.pop_back();
  size_t B = 0;
  while (B < S.size() && std::isspace((unsigned char)S[B]))
    ++B;
  return S.substr(B);
}

// The signal handler's copy of the active jobs: fixed storage, written
// under a mutex by the executor, read without one by the handler (a torn
// read can at worst name a job that already ended).
constexpr size_t MaxActive = 64, IdBytes = 32;
char ActiveIds[MaxActive][IdBytes];
volatile size_t ActiveCount = 0;
std::mutex ActiveMutex;

} // namespace

std::string submitArray(const SlurmOptions &O, const std::string &Indices,
                        const std::string &Manifest, const std::string &Name,
                        std::string &Error) {
  std::vector<std::string> Argv = {
      // kopt resubmits failed tasks itself, a bounded number of times.
      "sbatch",
      "--parsable",
      "--no-requeue",
      "--job-name=" + Name,
      "--array=" + Indices + "%" + std::to_string(O.MaxJobs),
      "--output=" + O.Dir + "/logs/%A_%a.out"};
  if (!O.Partition.empty())
    Argv.push_back("--partition=" + O.Partition);
  if (!O.Gres.empty())
    Argv.push_back("--gres=" + O.Gres);
  Argv.insert(Argv.end(), O.SbatchArgs.begin(), O.SbatchArgs.end());
  Argv.push_back("--wrap=exec " + quote(O.TaskProgram) + " __slurm-task " +
                 quote(Manifest) + " \"$SLURM_ARRAY_TASK_ID\"");
  eval::ProcessOptions PO;
  PO.TimeoutSeconds = CommandTimeout;
  eval::ProcessResult R = eval::runProcess(Argv, PO);
  std::string Out = trim(R.Output);
  if (!R.succeeded()) {
    Error = "sbatch failed (" + R.describeEnd() +
            "): " + (R.StartError.empty() ? Out : R.StartError);
    return "";
  }
  // --parsable prints "JOBID" or "JOBID;CLUSTER" (after any warnings).
  std::string Last = Out.substr(
      Out.rfind('\n') == std::string::npos ? 0 : Out.rfind('\n') + 1);
  std::string Id = Last.substr(0, Last.find(';'));
  if (Id.empty() || Id.find_first_not_of("0123456789") != std::string::npos) {
    Error = "sbatch printed no job id: " + Out;
    return "";
  }
  return Id;
}

bool liveTasks(const std::vector<std::string> &Jobs,
               std::map<std::string, std::string> &Out, std::string &Error) {
  Out.clear();
  if (Jobs.empty())
    return true;
  // All of this user's tasks, filtered here: `squeue -j` fails outright
  // when one of the ids has left slurmctld's memory.
  eval::ProcessOptions PO;
  PO.TimeoutSeconds = CommandTimeout;
  eval::ProcessResult R =
      eval::runProcess({"squeue", "-h", "-r", "--me", "-o", "%i %T"}, PO);
  if (!R.succeeded()) {
    Error = "squeue failed (" + R.describeEnd() +
            "): " + (R.StartError.empty() ? trim(R.Output) : R.StartError);
    return false;
  }
  std::istringstream In(R.Output);
  for (std::string Task, State; In >> Task >> State;) {
    std::string Job = Task.substr(0, Task.find('_'));
    for (const std::string &J : Jobs)
      if (J == Job)
        Out[Task] = State;
  }
  return true;
}

std::string finalState(const std::string &Task) {
  eval::ProcessOptions PO;
  PO.TimeoutSeconds = CommandTimeout;
  eval::ProcessResult R =
      eval::runProcess({"scontrol", "-o", "show", "job", Task}, PO);
  if (!R.succeeded())
    return "LOST";
  size_t At = R.Output.find("JobState=");
  if (At == std::string::npos)
    return "LOST";
  std::string State = R.Output.substr(At + std::strlen("JobState="));
  return State.substr(0, State.find_first_of(" \n"));
}

bool cancel(const std::vector<std::string> &JobsOrTasks, std::string &Error) {
  if (JobsOrTasks.empty())
    return true;
  std::vector<std::string> Argv = {"scancel"};
  Argv.insert(Argv.end(), JobsOrTasks.begin(), JobsOrTasks.end());
  eval::ProcessOptions PO;
  PO.TimeoutSeconds = CommandTimeout;
  eval::ProcessResult R = eval::runProcess(Argv, PO);
  if (!R.succeeded()) {
    Error = "scancel failed (" + R.describeEnd() + "): " + trim(R.Output);
    return false;
  }
  return true;
}

void setActiveJobs(const std::vector<std::string> &Jobs) {
  std::lock_guard<std::mutex> Lock(ActiveMutex);
  ActiveCount = 0;
  for (const std::string &J : Jobs) {
    if (ActiveCount == MaxActive || J.size() >= IdBytes)
      break;
    std::memcpy(ActiveIds[ActiveCount], J.c_str(), J.size() + 1);
    ActiveCount = ActiveCount + 1;
  }
}

} // namespace kopt::search::slurm

namespace kopt::search {

void cancelSlurmJobsFromSignal() {
  size_t N = slurm::ActiveCount;
  if (N == 0)
    return;
  char *Argv[slurm::MaxActive + 2];
  char Name[] = "scancel";
  Argv[0] = Name;
  for (size_t I = 0; I < N; ++I)
    Argv[I + 1] = slurm::ActiveIds[I];
  Argv[N + 1] = nullptr;
  pid_t Pid = fork();
  if (Pid == 0) {
    execvp(Name, Argv);
    _exit(127);
  }
  if (Pid > 0) {
    int Status;
    waitpid(Pid, &Status, 0);
  }
}

} // namespace kopt::search
