//===- SimulatedExecutor.cpp - A deterministic stand-in for the GPU -------===//
//
// `--simulate MODEL` runs the whole loop (proposals, validation, dedup,
// store, budgets, resume, outputs) with the GPU replaced by a model:
//   cost          speedup is a fixed function of the candidate's source
//                 (the problem's own source is 1.0), interval +-1%
//   replay=STORE  the timings an earlier search recorded for the same
//                 source (by hash; a GPU's where the store has several);
//                 a source never measured is `not-recorded`
// Options after commas: delay-ms=N (wall time per evaluation, to test
// interruption), compile=off (skip nvcc in validation: every candidate
// validates, no SASS hash). Each evaluation counts one GPU-second.
//
//===----------------------------------------------------------------------===//
#include "kopt/Eval/Sha256.h"
#include "kopt/Search/Executor.h"
#include "kopt/Search/Store.h"
#include "kopt/Spec/ProblemParser.h"
#include "kopt/Spec/ProblemValidator.h"

#include <chrono>
#include <map>
#include <thread>

namespace kopt::search {

namespace {

class SimulatedExecutor : public Executor {
public:
  SimulatedExecutor(std::string Model, const ExecutorOptions &O)
      : Model(std::move(Model)), Compiler(createGpuExecutor(O)) {}

  std::string name() const override {
    return "simulate:" + Model.substr(0, Model.find('='));
  }

  std::vector<Validation> validate(const spec::Problem &P,
                                   const std::vector<std::string> &Paths,
                                   std::vector<std::string> &Errors) override {
    if (Compile)
      return Compiler->validate(P, Paths, Errors);
    return std::vector<Validation>(Paths.size(), Validation{"ok", "", ""});
  }

  std::vector<Evaluation> evaluate(const spec::Problem &P,
                                   const std::vector<std::string> &Paths,
                                   std::vector<std::string> &) override {
    std::vector<Evaluation> Out;
    auto Original = spec::readTextFile(P.sourcePath());
    std::string OriginalSha = eval::sha256Hex(Original.value_or(""));
    for (const std::string &Path : Paths) {
      if (DelayMs > 0)
        std::this_thread::sleep_for(std::chrono::milliseconds(DelayMs));
      std::string Sha = eval::sha256Hex(spec::readTextFile(Path).value_or(""));
      Evaluation E;
      if (!Recorded.empty() || Model.rfind("replay=", 0) == 0) {
        auto It = Recorded.find(Sha);
        if (It == Recorded.end()) {
          E.Status = "not-recorded";
          E.Reason = "replay: no timing recorded for this source";
          E.Record =
              R"({"messages":["replay: no timing recorded for this source"]})";
        } else {
          E = It->second;
        }
      } else {
        E = costModel(Sha == OriginalSha ? 1.0 : modelSpeedup(Sha));
      }
      E.Executor = name();
      E.GpuSeconds = 1.0;
      Out.push_back(std::move(E));
    }
    return Out;
  }

  std::string configure() {
    std::string Kind = Model.substr(0, Model.find(','));
    std::string Rest = Model.find(',') == std::string::npos
                           ? ""
                           : Model.substr(Model.find(',') + 1) + ",";
    Model = Kind;
    for (std::size_t At; (At = Rest.find(',')) != std::string::npos;
         Rest.erase(0, At + 1)) {
      std::string Option = Rest.substr(0, At);
      if (Option.rfind("delay-ms=", 0) == 0)
        DelayMs = std::atoi(Option.c_str() + 9);
      else if (Option == "compile=off")
        Compile = false;
      else
        return "unknown simulation option '" + Option +
               "' (known: delay-ms=N, compile=off)";
    }
    if (Kind == "cost")
      return "";
    if (Kind.rfind("replay=", 0) != 0)
      return "unknown simulation model '" + Kind +
             "' (known: cost, replay=STORE)";
    std::string Error;
    auto From = Store::open(Kind.substr(7), /*Create=*/false, Error);
    if (!From)
      return "replay: " + Error;
    // Any recorded evaluation, a GPU's where there is one.
    for (const char *Executor : {"", "gpu"})
      for (const auto &Problem : From->problems())
        for (const Candidate &C : From->candidates(Problem.Id, Executor))
          if (C.Eval && !C.SourceSha256.empty())
            Recorded[C.SourceSha256] = *C.Eval;
    return "";
  }

private:
  std::string Model;
  std::unique_ptr<Executor> Compiler;
  std::map<std::string, Evaluation> Recorded;
  int DelayMs = 0;
  bool Compile = true;

  /// 0.5x to 2.0x from the first hex digits of the source's hash.
  static double modelSpeedup(const std::string &Sha) {
    unsigned long Bits = std::stoul(Sha.substr(0, 6), nullptr, 16);
    return 0.5 + 1.5 * static_cast<double>(Bits) / 0xFFFFFF;
  }

  static Evaluation costModel(double Speedup) {
    Evaluation E;
    E.Status = "ok";
    E.Speedup = Speedup;
    E.SpeedupLow = Speedup * 0.99;
    E.SpeedupHigh = Speedup * 1.01;
    E.BaselineMedianMs = 1.0;
    E.MedianMs = 1.0 / Speedup;
    E.Record = R"({"simulated":true})";
    return E;
  }
};

} // namespace

std::unique_ptr<Executor> createSimulatedExecutor(const std::string &Model,
                                                  const ExecutorOptions &O,
                                                  std::string &Error) {
  auto E = std::make_unique<SimulatedExecutor>(Model, O);
  Error = E->configure();
  if (!Error.empty())
    return nullptr;
  return E;
}

} // namespace kopt::search
