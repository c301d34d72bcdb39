//===- GpuExecutor.cpp - Candidates through kopt-bench's evaluator --------===//
//
// validate() is kopt-bench's `check` (compile with the timing flags, static
// rules over source, preprocessed source and SASS); evaluate() is its `run`:
// isolation, shapes x seeds, poisoning, interleaved timing with L2 flush,
// confidence intervals, one worker per device. The children are kopt-bench's
// own `__evaluate` mode, so the verdicts are exactly kopt-bench's.
//
//===----------------------------------------------------------------------===//
#include "kopt/Search/Executor.h"

#include <filesystem>
#include <random>

namespace kopt::search {

Executor::~Executor() = default;

std::string Executor::profile(const spec::Problem &, const std::string &) {
  return "";
}

namespace {

/// The reason a record gives: its rule and the first message that is not a
/// warning or a note (those say what was not checked, not what failed),
/// with the candidate's path shortened to its file name, so that the reason
/// (which the LLM's prompt quotes) does not depend on where the search
/// keeps its work.
std::string firstMessage(const nlohmann::json &Record) {
  std::string Rule = Record.value("rule", "");
  std::string Message;
  if (Record.contains("messages") && Record["messages"].is_array())
    for (const nlohmann::json &M : Record["messages"]) {
      if (!M.is_string())
        continue;
      const std::string &Text = M.get_ref<const std::string &>();
      bool Aside =
          Text.rfind("warning: ", 0) == 0 || Text.rfind("note: ", 0) == 0;
      if (Message.empty() || !Aside) {
        Message = Text;
        if (!Aside)
          break;
      }
    }
  std::string Path = Record.value("candidate", "");
  std::string Name = std::filesystem::path(Path).filename().string();
  if (!Path.empty() && Name != Path)
    for (std::size_t At; (At = Message.find(Path)) != std::string::npos;)
      Message.replace(At, Path.size(), Name);
  if (Message.size() > 500)
    Message = Message.substr(0, 500) + "...";
  return Rule.empty() ? Message : Rule + ": " + Message;
}

class GpuExecutor : public Executor {
public:
  /// One input seed for the whole search: every batch's candidates are
  /// checked on the same inputs, so the reference's outputs computed for
  /// the first batch (kopt-bench's reference cache) serve all of them.
  explicit GpuExecutor(const ExecutorOptions &O)
      : O(O),
        InputSeed((static_cast<std::uint64_t>(std::random_device{}()) << 20) ^
                  std::random_device{}()) {}
  std::string name() const override { return "gpu"; }
  /// Each evaluate() compiles the reference and probes the devices once:
  /// four candidates per device amortize that and keep every GPU busy.
  std::size_t batchSize() const override { return 4 * O.Devices.size(); }

  std::vector<Validation> validate(const spec::Problem &P,
                                   const std::vector<std::string> &Paths,
                                   std::vector<std::string> &Errors) override {
    eval::EvaluatorOptions E = base(Paths);
    E.OnDevice = false;
    E.Arch = O.Arch;
    E.Timing.Skip = true;
    eval::EvaluationOutcome Out = eval::evaluateCandidates(P, E);
    Errors = Out.ProblemErrors;
    std::vector<Validation> V;
    for (const nlohmann::json &R : Out.Records)
      V.push_back({R.value("status", "compile-error"),
                   R.value("status", "") == "ok" ? "" : firstMessage(R),
                   R.value("sass_sha256", "")});
    return V;
  }

  std::vector<Evaluation> evaluate(const spec::Problem &P,
                                   const std::vector<std::string> &Paths,
                                   std::vector<std::string> &Errors) override {
    eval::EvaluationOutcome Out = eval::evaluateCandidates(P, base(Paths));
    Errors = Out.ProblemErrors;
    std::vector<Evaluation> V;
    for (const nlohmann::json &R : Out.Records) {
      Evaluation E = evaluationFromRecord(R, name());
      E.KoptVersion = O.KoptVersion;
      V.push_back(std::move(E));
    }
    return V;
  }

  std::string profile(const spec::Problem &P,
                      const std::string &Path) override {
    eval::EvaluatorOptions E = base({Path});
    E.Devices = {O.Devices.front()};
    E.Timing.Skip = true;
    E.Profile = true;
    eval::EvaluationOutcome Out = eval::evaluateCandidates(P, E);
    if (Out.Records.empty())
      return "";
    const nlohmann::json &R = Out.Records.front();
    if (R.contains("profile"))
      return R["profile"].dump();
    return nlohmann::json{
        {"error", "not profiled: the run ended " + R.value("status", "?")}}
        .dump();
  }

private:
  ExecutorOptions O;
  std::uint64_t InputSeed;

  eval::EvaluatorOptions base(const std::vector<std::string> &Paths) const {
    eval::EvaluatorOptions E;
    E.Candidates = Paths;
    E.Devices = O.Devices;
    E.TimeoutSeconds = O.TimeoutSeconds;
    E.Timing = O.Timing;
    E.WorkerExecutable = O.KoptBench;
    E.Seed = InputSeed;
    E.Contain = O.Contain;
    return E;
  }
};

} // namespace

Evaluation evaluationFromRecord(const nlohmann::json &Record,
                                const std::string &Executor) {
  Evaluation E;
  E.Executor = Executor;
  E.Status = Record.value("status", "runtime-error");
  E.Record = Record.dump();
  if (E.Status != "ok")
    E.Reason = firstMessage(Record);
  if (Record.contains("worker"))
    E.GpuSeconds = Record["worker"].value("seconds", 0.0);
  if (Record.contains("device")) {
    E.Device = Record["device"].dump();
    E.Driver = std::to_string(Record["device"].value("driver_version", 0));
  }
  if (Record.contains("clocks"))
    E.Clocks = Record["clocks"].dump();
  if (E.Status != "ok" || !Record.contains("timing"))
    return E;
  const nlohmann::json &T = Record["timing"];
  E.Speedup = T.value("speedup", 0.0);
  if (T.contains("speedup_ci95") && T["speedup_ci95"].size() == 2) {
    E.SpeedupLow = T["speedup_ci95"][0].get<double>();
    E.SpeedupHigh = T["speedup_ci95"][1].get<double>();
  } else {
    E.SpeedupLow = E.SpeedupHigh = E.Speedup;
  }
  if (T.contains("candidate"))
    E.MedianMs = T["candidate"].value("median_ms", 0.0);
  if (T.contains("baseline"))
    E.BaselineMedianMs = T["baseline"].value("median_ms", 0.0);
  if (T.contains("achieved_gbps"))
    E.AchievedGbps = T["achieved_gbps"].get<double>();
  if (T.contains("fraction_of_copy_bandwidth"))
    E.FractionOfCopyBandwidth = T["fraction_of_copy_bandwidth"].get<double>();
  return E;
}

std::unique_ptr<Executor> createGpuExecutor(const ExecutorOptions &O) {
  return std::make_unique<GpuExecutor>(O);
}

} // namespace kopt::search
