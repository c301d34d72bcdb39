//===- SearchLoopImpl.h - The search loop's state (private) ----*- C++ -*-===//
//
// The Loop of SearchLoop.h, shared by the files that define its steps:
// SearchLoop.cpp (making, validating, expanding, the run) and
// SearchEvaluate.cpp (the pipeline: evaluating while making; looking
// ahead, repairing).
//
//===----------------------------------------------------------------------===//
#ifndef KOPT_SEARCH_SEARCHLOOPIMPL_H
#define KOPT_SEARCH_SEARCHLOOPIMPL_H

#include "AheadWorker.h"
#include "kopt/Eval/Sha256.h"
#include "kopt/Search/Executor.h"
#include "kopt/Search/HostCode.h"
#include "kopt/Search/KoptOpt.h"
#include "kopt/Search/Maker.h"
#include "kopt/Search/Proposer.h"
#include "kopt/Search/Recipe.h"
#include "kopt/Search/SearchLoop.h"
#include "kopt/Search/Store.h"
#include "kopt/Spec/ProblemParser.h"
#include "kopt/Spec/ProblemValidator.h"
#include <algorithm>
#include <atomic>
#include <chrono>
#include <deque>
#include <filesystem>
#include <fstream>
#include <future>
#include <map>
#include <optional>
#include <set>
#include <thread>

namespace kopt::search::detail {

namespace fs = std::filesystem;

/// Same SASS is the same program only with the same host code (a launcher
/// can run half the grid, or replay a kept result, with the original's
/// kernels).
inline std::string programKey(const Candidate &C) {
  return C.SassSha256 + " " + eval::sha256Hex(hostFingerprint(C.Source));
}

inline bool isEvaluationStatus(const std::string &S) {
  return S == "ok" || S == "wrong-result" || S == "runtime-error" ||
         S == "timeout" || S == "not-recorded";
}

/// Adds the wall time of its scope to a phase's seconds.
class PhaseTimer {
public:
  explicit PhaseTimer(double &Seconds)
      : Seconds(Seconds), Begin(std::chrono::steady_clock::now()) {}
  ~PhaseTimer() {
    Seconds +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - Begin)
            .count();
  }

private:
  double &Seconds;
  std::chrono::steady_clock::time_point Begin;
};

class Loop {
public:
  Loop(const spec::Problem &P, Store &S, Executor &E, const KoptOpt &Opt,
       Searcher &Strategy, std::vector<Proposer *> Proposers,
       const SearchOptions &O)
      : P(P), S(S), E(E), Opt(Opt), Strategy(Strategy),
        Proposers(std::move(Proposers)), O(O),
        Start(std::chrono::steady_clock::now()),
        Make(Opt,
             O.MemoDir.empty() ? (fs::path(O.WorkDir) / "made").string()
                               : O.MemoDir,
             O.WorkDir, O.Jobs) {}

  SearchResult run(const std::string &DefaultPipeline);

private:
  const spec::Problem &P;
  Store &S;
  Executor &E;
  const KoptOpt &Opt;
  Searcher &Strategy;
  std::vector<Proposer *> Proposers;
  const SearchOptions &O;
  std::chrono::steady_clock::time_point Start;
  SearchResult R;
  std::vector<Candidate> All; // by id
  std::map<std::string, std::int64_t> BySource, BySass;
  std::string Pipeline; // -O's, for the remarks of sources no pass ran on
  /// Children the proposers left out this run, by reason (SearchStats).
  std::map<std::string, long> Skipped;
  Maker Make;
  AheadWorker Ahead{Make}; // after Make: it goes first
  /// Parents whose children were queued ahead; the longest proposal for
  /// it so far.
  std::set<std::int64_t> AheadProposed;
  double ProposeSeconds = 0;
  double LastBatchSeconds = 0; // the device's time for the last batch
  long MadeFromParent = 0;     // SearchStats
  /// What an evaluation thread brings back.
  struct BatchResult {
    std::vector<Evaluation> Verdicts;
    std::vector<std::string> Errors;
    double Busy = 0; // seconds the evaluation took
  };
  /// The batch on the device. Its candidates point into All, which is not
  /// reloaded while a batch is under way (processPending lands it first).
  struct Flight {
    std::vector<Candidate *> Batch;
    std::string Ids;
    std::future<BatchResult> Result;
  };
  std::optional<Flight> InFlight;
  std::deque<Candidate *> Queue; // validated, waiting for the device
  std::set<std::int64_t> Queued;

  double elapsed() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         Start)
        .count();
  }
  void reload() {
    All = S.candidates(R.ProblemId, E.name());
    BySource.clear();
    BySass.clear();
    SearchStats Kept = std::move(R.Stats);
    R.Stats = SearchStats();
    R.Stats.Skipped = Skipped;
    R.Stats.PhaseSeconds = std::move(Kept.PhaseSeconds);
    R.Stats.GpuBusySeconds = Kept.GpuBusySeconds;
    R.Stats.ProbesRun = Kept.ProbesRun;
    R.Stats.ProbesStored = Kept.ProbesStored;
    for (const Candidate &C : All) {
      if (!C.SourceSha256.empty() && C.Status != status::Duplicate)
        BySource.emplace(C.SourceSha256, C.Id);
      if (!C.SassSha256.empty() && C.Status != status::Duplicate)
        BySass.emplace(programKey(C), C.Id);
      if (C.Status == status::Duplicate)
        ++R.Stats.Duplicates;
      if (!C.Source.empty())
        ++R.Stats.Made;
      if (C.Eval) {
        ++R.Stats.Evaluated;
        R.Stats.GpuSeconds += C.Eval->GpuSeconds;
        if (C.Eval->Status != "ok")
          ++R.Stats.Failures[C.Eval->Status];
      } else if (C.Status == "compile-error" || C.Status == "rejected" ||
                 C.Status == status::Invalid) {
        ++R.Stats.Failures[C.Status];
      }
    }
    R.Stats.Best = bestCandidate(All);
    R.Stats.ElapsedSeconds = elapsed();
  }
  void progress(const std::string &Phase) {
    R.Stats.Phase = Phase;
    if (InFlight && Phase.rfind("evaluat", 0) != 0)
      R.Stats.Phase += " (evaluating " + InFlight->Ids + ")";
    R.Stats.ElapsedSeconds = elapsed();
    if (O.OnProgress)
      O.OnProgress(R.Stats);
  }
  /// The first budget reached, or "".
  std::string budgetReached() const {
    if (O.Limits.Candidates && R.Stats.Evaluated >= *O.Limits.Candidates)
      return "budget-candidates";
    if (O.Limits.GpuSeconds && R.Stats.GpuSeconds >= *O.Limits.GpuSeconds)
      return "budget-gpu-s";
    if (O.Limits.WallSeconds && elapsed() >= *O.Limits.WallSeconds)
      return "budget-wall-s";
    return "";
  }
  bool stopRequested() {
    if (O.Interrupted && O.Interrupted()) {
      R.StoppedBy = "interrupted";
      return true;
    }
    if (std::string B = budgetReached(); !B.empty()) {
      R.StoppedBy = B;
      return true;
    }
    return false;
  }
  bool fail(const std::string &Message) {
    R.Errors.push_back(Message);
    R.StoppedBy = "problem-error";
    return false;
  }

  bool addCandidate(Candidate C) {
    auto Id = S.addCandidate(R.ProblemId, C);
    if (!Id)
      return fail("the store: " + S.lastError());
    return true;
  }
  MadeCandidate make(const Candidate &C,
                     const std::optional<std::string> &Start,
                     const std::string &Base,
                     std::vector<MakeJob> *Batch = nullptr) const;
  void resumeFromParent(const Candidate &C, MakeJob &J) const;
  std::string baseOf(const Candidate &C) const {
    return (fs::path(O.WorkDir) / ("cand-" + std::to_string(C.Id))).string();
  }
  /// Makes the first \p Max pending candidates; \p Count: how many.
  bool makePending(std::size_t Max, std::size_t &Count);
  bool repairFailed();
  std::string withoutWorkDir(std::string Message) const;
  bool validateMade();
  /// The round's pending candidates made, validated and evaluated a chunk
  /// at a time (SearchEvaluate.cpp); with Overlap, the device evaluates a
  /// batch while the next chunk is made and compiled. False: stop.
  bool processPending();
  bool pipeline();
  /// Queues the candidates validated and not evaluated, in id order.
  void queueValidated();
  /// Whether the queue and the device hold what --budget-candidates lets
  /// this run evaluate (a dry run: whether it validated that many).
  bool budgetQueued() const;
  /// Starts the queue's next batch on the device if none is under way;
  /// false when a budget or an interruption says stop.
  bool launch();
  /// Waits for the batch under way (looking ahead meanwhile) and stores
  /// its verdicts; false on a problem error or an interruption.
  bool land();
  bool landed() const {
    return InFlight && InFlight->Result.wait_for(std::chrono::seconds(0)) ==
                           std::future_status::ready;
  }
  ProposalContext context(const Candidate &C) {
    std::string Base =
        (fs::path(O.WorkDir) / ("cand-" + std::to_string(C.Id))).string();
    return ProposalContext{
        C,
        P,
        R.ProblemId,
        All,
        [this, Base] {
          // A source no pass ran on (the original, an LLM's) gets -O's
          // remarks on it: what the passes could not prove there.
          if (!fs::exists(Base + ".remarks.json"))
            Opt.make(Base + ".cu", Pipeline, Base + ".probe.cu",
                     Base + ".remarks.json");
          return spec::readTextFile(Base + ".remarks.json").value_or("");
        },
        [this, Base] { return Opt.analyze(Base + ".cu"); },
        [this, Base] { return E.profile(P, Base + ".cu"); },
        [this, Base, Sha = C.SourceSha256](const std::string &Steps) {
          // Asked of this source before (a resumed expansion): the store
          // answers, as long as kopt-opt is the same.
          std::string Tool = Opt.identity();
          if (!Sha.empty())
            if (std::optional<std::string> Kept = S.probe(Sha, Steps, Tool)) {
              ++R.Stats.ProbesStored;
              return *Kept;
            }
          std::string Json =
              Opt.probe(Base + ".cu", Steps, Base + ".probe.json");
          ++R.Stats.ProbesRun;
          if (!Sha.empty() && !Json.empty())
            S.addProbe(Sha, Steps, Tool, Json);
          return Json;
        },
        &Skipped};
  }
  static Candidate child(const Candidate &Parent, const Proposer &Pr,
                         const Proposal &Child, int Depth) {
    Candidate C;
    C.ParentId = Parent.Id;
    C.Depth = Depth;
    C.Proposer = Pr.name() + ": " + Child.Why;
    C.Recipe = Child.Recipe;
    return C;
  }
  bool expand();
  void lookAhead(const std::vector<Candidate *> &Evaluating,
                 std::future<BatchResult> &Running);
};

} // namespace kopt::search::detail

#endif // KOPT_SEARCH_SEARCHLOOPIMPL_H
