//===- SlurmExecutor.cpp - Evaluations as Slurm job arrays ----------------===//
//
// See Slurm.h. Layout of SlurmOptions::Dir (on the shared file system):
//   sources/SHA.cu        each candidate, by the SHA-256 of its text
//   results/SHA.json      its verdict, written by the task (temp + rename)
//   manifests/NAME-N.json what one submission's tasks evaluate
//   logs/JOB_INDEX.out    each task's output
//   jobs.jsonl            the journal: one line per submitted task
//
//===----------------------------------------------------------------------===//
#include "SlurmCommands.h"

#include "kopt/Eval/Sha256.h"
#include "kopt/Search/Outputs.h"
#include "kopt/Search/Slurm.h"
#include "kopt/Spec/ProblemParser.h"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <thread>
#include <unistd.h>

namespace fs = std::filesystem;
using nlohmann::json;

namespace kopt::search {

namespace {

std::optional<std::string> readFile(const fs::path &P) {
  std::ifstream In(P, std::ios::binary);
  if (!In)
    return std::nullopt;
  std::ostringstream S;
  S << In.rdbuf();
  return S.str();
}

bool writeAtomically(const fs::path &P, const std::string &Text) {
  std::string Error;
  return writeFileAtomically(P.string(), Text, Error);
}

json toJSON(const Evaluation &E) {
  json J = {
      {"executor", E.Executor},      {"status", E.Status},
      {"reason", E.Reason},          {"speedup", E.Speedup},
      {"speedup_low", E.SpeedupLow}, {"speedup_high", E.SpeedupHigh},
      {"median_ms", E.MedianMs},     {"baseline_median_ms", E.BaselineMedianMs},
      {"gpu_seconds", E.GpuSeconds}, {"device", E.Device},
      {"driver", E.Driver},          {"clocks", E.Clocks},
      {"record", E.Record},          {"kopt_version", E.KoptVersion}};
  if (E.AchievedGbps)
    J["achieved_gbps"] = *E.AchievedGbps;
  if (E.FractionOfCopyBandwidth)
    J["fraction_of_copy_bandwidth"] = *E.FractionOfCopyBandwidth;
  return J;
}

Evaluation fromJSON(const json &J) {
  Evaluation E;
  E.Executor = J.value("executor", "");
  E.Status = J.value("status", "runtime-error");
  E.Speedup = J.value("speedup", 0.0);
  E.SpeedupLow = J.value("speedup_low", 0.0);
  E.SpeedupHigh = J.value("speedup_high", 0.0);
  E.MedianMs = J.value("median_ms", 0.0);
  E.BaselineMedianMs = J.value("baseline_median_ms", 0.0);
  E.GpuSeconds = J.value("gpu_seconds", 0.0);
  E.Device = J.value("device", "");
  E.Driver = J.value("driver", "");
  E.Clocks = J.value("clocks", "");
  E.Record = J.value("record", "");
  E.KoptVersion = J.value("kopt_version", "");
  E.Reason = J.value("reason", "");
  if (J.contains("achieved_gbps"))
    E.AchievedGbps = J["achieved_gbps"].get<double>();
  if (J.contains("fraction_of_copy_bandwidth"))
    E.FractionOfCopyBandwidth = J["fraction_of_copy_bandwidth"].get<double>();
  return E;
}

/// "NODE_FAIL" -> "slurm-node-fail".
std::string failureStatus(std::string State) {
  for (char &C : State)
    C = C == '_' ? '-' : (char)std::tolower((unsigned char)C);
  return "slurm-" + State;
}

struct JournalEntry {
  std::string Job;
  int Index = 0;
  std::string Sha;
  int Attempt = 1;
  std::string task() const { return Job + "_" + std::to_string(Index); }
};

class SlurmExecutor : public Executor {
public:
  SlurmExecutor(SlurmOptions SO, ExecutorOptions EO,
                std::unique_ptr<Executor> Local)
      : SO(std::move(SO)), EO(std::move(EO)), Local(std::move(Local)) {}

  std::string name() const override { return Local->name(); }
  std::size_t batchSize() const override {
    return static_cast<std::size_t>(SO.MaxJobs);
  }
  std::vector<Validation> validate(const spec::Problem &P,
                                   const std::vector<std::string> &Paths,
                                   std::vector<std::string> &Errors) override {
    return Local->validate(P, Paths, Errors);
  }
  std::vector<Evaluation> evaluate(const spec::Problem &P,
                                   const std::vector<std::string> &Paths,
                                   std::vector<std::string> &Errors) override;

private:
  SlurmOptions SO;
  ExecutorOptions EO;
  std::unique_ptr<Executor> Local;
  int Submissions = 0;

  fs::path dir() const { return SO.Dir; }
  fs::path resultPath(const std::string &Sha) const {
    return dir() / "results" / (Sha + ".json");
  }
  void log(const std::string &Message) const {
    if (SO.Log)
      SO.Log(Message);
  }
  std::vector<JournalEntry> readJournal() const;
  bool appendJournal(const std::vector<JournalEntry> &Entries) const;
  /// Submits one array evaluating the candidates \p Shas; journal entries
  /// for its tasks, or an error.
  std::vector<JournalEntry> submit(const spec::Problem &P,
                                   const std::vector<std::string> &Shas,
                                   const std::map<std::string, int> &Attempts,
                                   std::string &Error);
  bool sleepUnlessInterrupted() const;
};

std::vector<JournalEntry> SlurmExecutor::readJournal() const {
  std::vector<JournalEntry> Out;
  std::ifstream In(dir() / "jobs.jsonl");
  for (std::string Line; std::getline(In, Line);) {
    json J = json::parse(Line, nullptr, /*allow_exceptions=*/false);
    if (!J.is_object() || !J.contains("job") || !J.contains("sha"))
      continue; // a line cut short by a crash
    Out.push_back({J.value("job", ""), J.value("index", 0), J.value("sha", ""),
                   J.value("attempt", 1)});
  }
  return Out;
}

bool SlurmExecutor::appendJournal(
    const std::vector<JournalEntry> &Entries) const {
  std::ofstream Out(dir() / "jobs.jsonl", std::ios::app);
  for (const JournalEntry &E : Entries)
    Out << json{{"job", E.Job},
                {"index", E.Index},
                {"sha", E.Sha},
                {"attempt", E.Attempt}}
               .dump()
        << "\n";
  return static_cast<bool>(Out.flush());
}

std::vector<JournalEntry> SlurmExecutor::submit(
    const spec::Problem &P, const std::vector<std::string> &Shas,
    const std::map<std::string, int> &Attempts, std::string &Error) {
  json Tasks = json::array();
  for (const std::string &Sha : Shas)
    Tasks.push_back({{"source", (dir() / "sources" / (Sha + ".cu")).string()},
                     {"sha", Sha},
                     {"result", resultPath(Sha).string()}});
  std::string Name = "kopt-" + P.Name;
  fs::path Manifest = dir() / "manifests" /
                      (Name + "-" + std::to_string(getpid()) + "-" +
                       std::to_string(++Submissions) + ".json");
  json M = {{"problem", SO.ProblemPath},      {"model", SO.Model},
            {"kopt_bench", EO.KoptBench},     {"arch", EO.Arch},
            {"timeout_s", EO.TimeoutSeconds}, {"kopt_version", EO.KoptVersion},
            {"contain", EO.Contain},          {"tasks", Tasks}};
  if (!writeAtomically(Manifest, M.dump(2))) {
    Error = "cannot write " + Manifest.string();
    return {};
  }
  std::string Indices = "0-" + std::to_string(Shas.size() - 1);
  std::string Job =
      slurm::submitArray(SO, Indices, Manifest.string(), Name, Error);
  if (Job.empty())
    return {};
  std::vector<JournalEntry> Entries;
  for (size_t I = 0; I < Shas.size(); ++I)
    Entries.push_back(
        {Job, static_cast<int>(I), Shas[I], Attempts.at(Shas[I]) + 1});
  if (!appendJournal(Entries))
    Error = "cannot append to " + (dir() / "jobs.jsonl").string();
  log("submitted Slurm job " + Job + " (" + std::to_string(Shas.size()) +
      " tasks)");
  return Entries;
}

bool SlurmExecutor::sleepUnlessInterrupted() const {
  auto End = std::chrono::steady_clock::now() +
             std::chrono::duration<double>(SO.PollSeconds);
  while (std::chrono::steady_clock::now() < End) {
    if (SO.Interrupted && SO.Interrupted())
      return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return !(SO.Interrupted && SO.Interrupted());
}

std::vector<Evaluation>
SlurmExecutor::evaluate(const spec::Problem &P,
                        const std::vector<std::string> &Paths,
                        std::vector<std::string> &Errors) {
  for (const char *Sub : {"sources", "results", "manifests", "logs"})
    fs::create_directories(dir() / Sub);

  std::vector<std::string> Shas;
  std::map<std::string, std::optional<Evaluation>> Verdicts;
  for (const std::string &Path : Paths) {
    std::optional<std::string> Text = readFile(Path);
    if (!Text) {
      Errors.push_back("cannot read " + Path);
      return {};
    }
    std::string Sha = eval::sha256Hex(*Text);
    Shas.push_back(Sha);
    Verdicts[Sha];
    if (!fs::exists(dir() / "sources" / (Sha + ".cu")) &&
        !writeAtomically(dir() / "sources" / (Sha + ".cu"), *Text)) {
      Errors.push_back("cannot write the sources under " + dir().string());
      return {};
    }
  }

  // A verdict file: the evaluation, or the problem's own error.
  auto readVerdict = [&](const std::string &Sha) -> bool {
    std::optional<std::string> Text = readFile(resultPath(Sha));
    if (!Text)
      return false;
    json J = json::parse(*Text, nullptr, false);
    if (!J.is_object())
      return false;
    if (J.contains("error")) {
      Errors.push_back(J["error"].get<std::string>());
      return true;
    }
    Evaluation E = fromJSON(J.value("evaluation", json::object()));
    json Device =
        json::parse(E.Device.empty() ? "{}" : E.Device, nullptr, false);
    if (!Device.is_object())
      Device = json::object();
    Device["node"] = J.value("node", "");
    if (!Device.contains("name"))
      Device["name"] = J.value("gpu", "");
    E.Device = Device.dump();
    Verdicts[Sha] = std::move(E);
    return true;
  };

  // Adopt what an earlier run left: verdicts, and tasks still in Slurm.
  std::map<std::string, int> Attempts;
  std::map<std::string, std::string> Latest; // sha -> task
  for (const JournalEntry &E : readJournal())
    if (Verdicts.count(E.Sha)) {
      Attempts[E.Sha] = std::max(Attempts[E.Sha], E.Attempt);
      Latest[E.Sha] = E.task();
    }
  std::map<std::string, std::string> Watched; // task -> sha
  std::vector<std::string> ToSubmit;
  std::map<std::string, std::string> Live;
  std::string Error;
  std::vector<std::string> Jobs;
  for (const auto &[Sha, Task] : Latest)
    Jobs.push_back(Task.substr(0, Task.find('_')));
  if (!slurm::liveTasks(Jobs, Live, Error)) {
    Errors.push_back(Error);
    return {};
  }
  for (const auto &[Sha, V] : Verdicts) {
    if (readVerdict(Sha)) {
      if (Latest.count(Sha))
        log("took the verdict of Slurm task " + Latest[Sha] +
            " from an earlier run");
      continue;
    }
    auto It = Latest.find(Sha);
    if (It != Latest.end() && Live.count(It->second)) {
      Watched[It->second] = Sha;
      log("adopted Slurm task " + It->second + " (" + Live[It->second] +
          ") from an earlier run");
      continue;
    }
    ToSubmit.push_back(Sha);
    Attempts.try_emplace(Sha, 0);
  }
  if (!Errors.empty())
    return {};

  constexpr int MaxQueueFailures = 30;
  int QueueFailures = 0;
  auto activeJobs = [&] {
    std::set<std::string> J;
    for (const auto &[Task, Sha] : Watched)
      J.insert(Task.substr(0, Task.find('_')));
    return std::vector<std::string>(J.begin(), J.end());
  };
  while (!ToSubmit.empty() || !Watched.empty()) {
    if (!ToSubmit.empty()) {
      std::vector<JournalEntry> Entries = submit(P, ToSubmit, Attempts, Error);
      if (Entries.empty()) {
        Errors.push_back(Error);
        break;
      }
      for (const JournalEntry &E : Entries) {
        Watched[E.task()] = E.Sha;
        Attempts[E.Sha] = E.Attempt;
      }
      ToSubmit.clear();
      slurm::setActiveJobs(activeJobs());
    }
    if (!sleepUnlessInterrupted()) {
      std::vector<std::string> Tasks;
      for (const auto &[Task, Sha] : Watched)
        Tasks.push_back(Task);
      std::string CancelError;
      slurm::cancel(Tasks, CancelError);
      Errors.push_back("interrupted: cancelled Slurm tasks still running" +
                       (CancelError.empty() ? "" : " (" + CancelError + ")"));
      break;
    }
    if (!slurm::liveTasks(activeJobs(), Live, Error)) {
      // slurmctld may be restarting; a queue that stays unreadable is an
      // error (the tasks keep running, and a restart adopts them).
      if (++QueueFailures >= MaxQueueFailures) {
        Errors.push_back(Error + " (" + std::to_string(QueueFailures) +
                         " times in a row)");
        break;
      }
      log(Error + "; trying again");
      continue;
    }
    QueueFailures = 0;
    for (auto It = Watched.begin(); It != Watched.end();) {
      auto [Task, Sha] = *It;
      if (Live.count(Task)) {
        ++It;
        continue;
      }
      It = Watched.erase(It);
      if (readVerdict(Sha))
        continue;
      std::string State = slurm::finalState(Task);
      if (Attempts[Sha] <= SO.Retries) {
        log("Slurm task " + Task + " ended " + State +
            " without a verdict; submitting it again (attempt " +
            std::to_string(Attempts[Sha] + 1) + " of " +
            std::to_string(SO.Retries + 1) + ")");
        ToSubmit.push_back(Sha);
        continue;
      }
      log("Slurm task " + Task + " ended " + State + " after " +
          std::to_string(Attempts[Sha]) + " attempts; recorded as " +
          failureStatus(State));
      Evaluation E;
      E.Executor = name();
      E.Status = failureStatus(State);
      E.Reason = "Slurm task " + Task + " ended " + State + " after " +
                 std::to_string(Attempts[Sha]) + " attempts";
      E.Record =
          json{
              {"status", E.Status},
              {"slurm",
               {{"task", Task}, {"state", State}, {"attempts", Attempts[Sha]}}}}
              .dump();
      E.KoptVersion = EO.KoptVersion;
      Verdicts[Sha] = std::move(E);
    }
    if (!Errors.empty())
      break;
  }
  slurm::setActiveJobs({});
  if (!Errors.empty())
    return {};
  std::vector<Evaluation> Out;
  for (const std::string &Sha : Shas)
    Out.push_back(*Verdicts[Sha]);
  return Out;
}

} // namespace

std::unique_ptr<Executor> createSlurmExecutor(const SlurmOptions &SO,
                                              const ExecutorOptions &EO,
                                              std::unique_ptr<Executor> Local) {
  return std::make_unique<SlurmExecutor>(SO, EO, std::move(Local));
}

int runSlurmTask(const std::string &ManifestPath, int Index) {
  auto Fail = [](const std::string &M) {
    std::fprintf(stderr, "kopt-search __slurm-task: %s\n", M.c_str());
    return 1;
  };
  std::optional<std::string> Text = readFile(ManifestPath);
  if (!Text)
    return Fail("cannot read " + ManifestPath);
  json M = json::parse(*Text, nullptr, false);
  if (!M.is_object() || !M.contains("tasks") || Index < 0 ||
      Index >= (int)M["tasks"].size())
    return Fail(ManifestPath + ": no task " + std::to_string(Index));
  const json &T = M["tasks"][Index];
  fs::path Result = T.value("result", "");

  char Host[256] = {0};
  gethostname(Host, sizeof(Host) - 1);
  json Verdict = {{"node", std::string(Host)}, {"sha", T.value("sha", "")}};
  auto Loaded = spec::loadProblemFile(M.value("problem", ""));
  if (!Loaded.ok()) {
    Verdict["error"] =
        "the problem on node " + std::string(Host) + ": " +
        (Loaded.Errors.empty() ? "unreadable" : Loaded.Errors.front());
    return writeAtomically(Result, Verdict.dump()) ? 0 : 1;
  }
  ExecutorOptions EO;
  EO.Devices = {0}; // Slurm's CUDA_VISIBLE_DEVICES holds the task's GPU
  EO.KoptBench = M.value("kopt_bench", "");
  EO.Arch = M.value("arch", "sm_90a");
  EO.TimeoutSeconds = M.value("timeout_s", 0.0);
  EO.KoptVersion = M.value("kopt_version", "");
  EO.Contain = M.value("contain", false);
  std::string Model = M.value("model", "gpu");
  std::string Error;
  std::unique_ptr<Executor> E = Model == "gpu"
                                    ? createGpuExecutor(EO)
                                    : createSimulatedExecutor(Model, EO, Error);
  if (!E)
    return Fail("model '" + Model + "': " + Error);
  std::vector<std::string> Errors;
  std::vector<Evaluation> V =
      E->evaluate(*Loaded.Value, {T.value("source", "")}, Errors);
  if (!Errors.empty()) {
    Verdict["error"] = Errors.front();
  } else if (V.size() != 1) {
    return Fail("the evaluator returned no verdict");
  } else {
    Verdict["evaluation"] = toJSON(V.front());
    Verdict["gpu"] = Model == "gpu" ? "" : "simulated";
  }
  return writeAtomically(Result, Verdict.dump()) ? 0 : 1;
}

} // namespace kopt::search
