//===- SearchLoop.cpp - Propose, validate, evaluate, store, repeat --------===//
#include "kopt/Search/SearchLoop.h"

#include "kopt/Eval/Sha256.h"
#include "kopt/Search/Executor.h"
#include "kopt/Search/HostCode.h"
#include "kopt/Search/KoptOpt.h"
#include "kopt/Search/Proposer.h"
#include "kopt/Search/Recipe.h"
#include "kopt/Search/Store.h"
#include "kopt/Spec/ProblemParser.h"
#include "kopt/Spec/ProblemValidator.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <thread>

namespace kopt::search {

namespace fs = std::filesystem;

namespace {

/// Same SASS is the same program only with the same host code (a launcher
/// can run half the grid, or replay a kept result, with the original's
/// kernels).
std::string programKey(const Candidate &C) {
  return C.SassSha256 + " " + eval::sha256Hex(hostFingerprint(C.Source));
}

bool isEvaluationStatus(const std::string &S) {
  return S == "ok" || S == "wrong-result" || S == "runtime-error" ||
         S == "timeout" || S == "not-recorded";
}

/// Adds the wall time of its scope to a phase's seconds.
class PhaseTimer {
public:
  explicit PhaseTimer(double &Seconds)
      : Seconds(Seconds), Begin(std::chrono::steady_clock::now()) {}
  ~PhaseTimer() {
    Seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                             Begin)
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
        Start(std::chrono::steady_clock::now()) {}

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

  double elapsed() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         Start)
        .count();
  }
  void reload() {
    All = S.candidates(R.ProblemId, E.name());
    BySource.clear();
    BySass.clear();
    std::map<std::string, double> Phases = std::move(R.Stats.PhaseSeconds);
    R.Stats = SearchStats();
    R.Stats.Skipped = Skipped;
    R.Stats.PhaseSeconds = std::move(Phases);
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
  std::string baseOf(const Candidate &C) const {
    return (fs::path(O.WorkDir) / ("cand-" + std::to_string(C.Id))).string();
  }
  bool makePending();
  bool repairFailed();
  std::string withoutWorkDir(std::string Message) const;
  bool validateMade();
  bool evaluateValidated();
  bool processPending() {
    return makePending() && validateMade() && repairFailed() &&
           (O.DryRun || evaluateValidated());
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
        [this, Base](const std::string &Steps) {
          return Opt.probe(Base + ".cu", Steps, Base + ".probe.json");
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
};

/// \p Message with the work directory's path left out, so that a reason
/// (which may go into an LLM's prompt) is the same in every run.
std::string Loop::withoutWorkDir(std::string Message) const {
  std::string Dir = (fs::path(O.WorkDir) / "").string();
  for (std::size_t At; (At = Message.find(Dir)) != std::string::npos;)
    Message.erase(At, Dir.size());
  return Message;
}

/// Makes \p C as Base.cu: the problem's source, or the one an LLM gave
/// (\p Start), with the recipe's passes run on it by kopt-opt; a candidate
/// with passes is added to \p Batch instead (makePending runs the batches).
MadeCandidate Loop::make(const Candidate &C,
                         const std::optional<std::string> &Start,
                         const std::string &Base,
                         std::vector<MakeJob> *Batch) const {
  std::string From = P.sourcePath().string();
  std::string Passes = splitRecipeStart(C.Recipe).Passes;
  if (Start) {
    From = Base + ".start.cu";
    std::ofstream Out(From, std::ios::binary);
    Out << *Start;
    if (!Out.flush())
      return {false, "cannot write " + From};
  }
  if (!Passes.empty() && Batch) {
    Batch->push_back({From, Passes, Base + ".cu", Base + ".remarks.json"});
    return {true, ""};
  }
  if (!Passes.empty())
    return Opt.make(From, Passes, Base + ".cu", Base + ".remarks.json");
  if (Start) // Clang parses what an LLM wrote, as it parses a pass's output
    if (MadeCandidate M = Opt.parse(From); !M.Ok)
      return M;
  std::error_code EC;
  fs::copy_file(From, Base + ".cu", fs::copy_options::overwrite_existing, EC);
  return {!EC, EC ? "cannot copy the source: " + EC.message() : ""};
}

/// Makes every pending candidate with kopt-opt, side by side, then settles
/// duplicates of source in id order (so a run and its resumption agree).
bool Loop::makePending() {
  std::vector<Candidate *> Pending;
  for (Candidate &C : All)
    if (C.Status == status::Pending)
      Pending.push_back(&C);
  if (Pending.empty())
    return true;
  progress("making " + std::to_string(Pending.size()) + " candidates");
  PhaseTimer Time(R.Stats.PhaseSeconds["making"]);
  // An LLM's candidate starts from the source its exchange gave; a failed
  // exchange gave none, and its candidate ends here with the reason.
  std::vector<std::optional<std::string>> Starts;
  std::vector<Candidate *> ToMake;
  for (Candidate *C : Pending) {
    RecipeStart Start = splitRecipeStart(C->Recipe);
    if (Start.LLMSeq == 0) {
      ToMake.push_back(C);
      Starts.emplace_back();
      continue;
    }
    auto X = S.exchange(R.ProblemId, Start.LLMSeq);
    if (X && X->Error.empty()) {
      ToMake.push_back(C);
      Starts.emplace_back(X->Source);
      continue;
    }
    C->Status = status::LLMError;
    C->Reason =
        X ? X->Error
          : "the store has no exchange llm#" + std::to_string(Start.LLMSeq);
    ++R.Stats.Failures[C->Status];
    if (!S.updateCandidate(*C))
      return fail("the store: " + S.lastError());
  }
  Pending = std::move(ToMake);
  // The candidates with passes go to kopt-opt in batches, one process a
  // worker, each on a contiguous run of candidates (siblings share their
  // source, so the CUDA headers are parsed once a batch).
  std::vector<MadeCandidate> Made(Pending.size());
  std::vector<MakeJob> Jobs;
  std::vector<std::size_t> JobOf;
  for (std::size_t I = 0; I < Pending.size(); ++I) {
    std::size_t Before = Jobs.size();
    Made[I] = make(*Pending[I], Starts[I], baseOf(*Pending[I]), &Jobs);
    if (Jobs.size() != Before)
      JobOf.push_back(I);
  }
  unsigned Workers =
      O.Jobs ? O.Jobs : std::max(1u, std::thread::hardware_concurrency());
  Workers = static_cast<unsigned>(
      std::min<std::size_t>(Workers, (Jobs.size() + 1) / 2));
  std::vector<std::thread> Pool;
  for (unsigned W = 0; W < Workers; ++W)
    Pool.emplace_back([&, W] {
      std::size_t Begin = Jobs.size() * W / Workers,
                  End = Jobs.size() * (W + 1) / Workers;
      std::vector<MakeJob> Mine(Jobs.begin() + Begin, Jobs.begin() + End);
      std::vector<MadeCandidate> Out =
          Opt.makeAll(Mine, baseOf(*Pending[JobOf[Begin]]) + ".batch.jsonl");
      for (std::size_t K = 0; K < Out.size(); ++K)
        Made[JobOf[Begin + K]] = Out[K];
    });
  for (std::thread &T : Pool)
    T.join();
  for (std::size_t I = 0; I < Pending.size(); ++I) {
    Candidate &C = *Pending[I];
    std::string Path =
        (fs::path(O.WorkDir) / ("cand-" + std::to_string(C.Id) + ".cu"))
            .string();
    auto Text = Made[I].Ok ? spec::readTextFile(Path) : std::nullopt;
    if (!Text) {
      ++R.Stats.Failures[status::Invalid];
      C.Status = status::Invalid;
      C.Reason = Made[I].Ok ? "kopt-opt wrote no output"
                            : withoutWorkDir(Made[I].Error);
    } else {
      C.Source = *Text;
      C.SourceSha256 = eval::sha256Hex(*Text);
      auto [It, New] = BySource.emplace(C.SourceSha256, C.Id);
      C.Status = New ? status::Made : status::Duplicate;
      if (!New) {
        C.DuplicateOf = It->second;
        C.Reason = "same source as #" + std::to_string(It->second);
        ++R.Stats.Duplicates;
      }
      ++R.Stats.Made;
    }
    if (!S.updateCandidate(C))
      return fail("the store: " + S.lastError());
  }
  return true;
}

bool Loop::validateMade() {
  std::vector<Candidate *> Made;
  std::vector<std::string> Paths;
  for (Candidate &C : All)
    if (C.Status == status::Made) {
      Made.push_back(&C);
      Paths.push_back(
          (fs::path(O.WorkDir) / ("cand-" + std::to_string(C.Id) + ".cu"))
              .string());
      std::ofstream(Paths.back()) << C.Source; // after a resume
    }
  if (Made.empty())
    return true;
  progress("compiling " + std::to_string(Made.size()) + " candidates");
  PhaseTimer Time(R.Stats.PhaseSeconds["compiling"]);
  std::vector<std::string> Errors;
  std::vector<Validation> V = E.validate(P, Paths, Errors);
  if (!Errors.empty() || V.size() != Made.size())
    return fail(Errors.empty() ? "the evaluator returned no verdicts"
                               : Errors.front());
  for (std::size_t I = 0; I < Made.size(); ++I) {
    Candidate &C = *Made[I];
    C.SassSha256 = V[I].SassSha256;
    C.Reason = V[I].Reason;
    C.Status = V[I].Status == "ok" ? status::Validated : V[I].Status;
    if (C.Status == status::Validated && !C.SassSha256.empty()) {
      auto [It, New] = BySass.emplace(programKey(C), C.Id);
      if (!New) {
        C.Status = status::Duplicate;
        C.DuplicateOf = It->second;
        C.Reason = "same SASS and host code as #" + std::to_string(It->second);
        ++R.Stats.Duplicates;
      }
    } else if (C.Status != status::Validated) {
      ++R.Stats.Failures[C.Status];
    }
    if (!S.updateCandidate(C))
      return fail("the store: " + S.lastError());
  }
  return true;
}

/// Evaluates validated candidates a batch at a time (the executor's), so a
/// budget or an interruption stops the search between evaluations and each
/// verdict is stored as soon as it exists.
bool Loop::evaluateValidated() {
  std::vector<Candidate *> Waiting;
  for (Candidate &C : All)
    if (!C.Eval &&
        (C.Status == status::Validated || isEvaluationStatus(C.Status)))
      Waiting.push_back(&C);
  for (std::size_t At = 0; At < Waiting.size();) {
    if (stopRequested())
      return false;
    std::size_t Take = std::max<std::size_t>(1, E.batchSize());
    if (O.Limits.Candidates)
      Take =
          std::min<std::size_t>(Take, *O.Limits.Candidates - R.Stats.Evaluated);
    Take = std::min(Take, Waiting.size() - At);
    std::vector<std::string> Paths;
    std::string Ids;
    for (std::size_t I = At; I < At + Take; ++I) {
      Paths.push_back((fs::path(O.WorkDir) /
                       ("cand-" + std::to_string(Waiting[I]->Id) + ".cu"))
                          .string());
      std::ofstream(Paths.back()) << Waiting[I]->Source;
      Ids += (Ids.empty() ? "#" : ", #") + std::to_string(Waiting[I]->Id);
    }
    progress("evaluating " + Ids);
    std::vector<std::string> Errors;
    std::vector<Evaluation> V;
    {
      PhaseTimer Time(R.Stats.PhaseSeconds["evaluating"]);
      V = E.evaluate(P, Paths, Errors);
    }
    if (!Errors.empty() && O.Interrupted && O.Interrupted()) {
      R.StoppedBy = "interrupted"; // an executor that gave up waiting
      return false;
    }
    if (!Errors.empty() || V.size() != Paths.size())
      return fail(Errors.empty() ? "the evaluator returned no verdicts"
                                 : Errors.front());
    for (std::size_t I = 0; I < Take; ++I) {
      Candidate &C = *Waiting[At + I];
      if (!S.addEvaluation(C.Id, V[I]))
        return fail("the store: " + S.lastError());
      C.Eval = V[I];
      C.Status = V[I].Status;
      if (!V[I].Reason.empty())
        C.Reason = V[I].Reason;
      ++R.Stats.Evaluated;
      R.Stats.GpuSeconds += V[I].GpuSeconds;
      if (V[I].Status != "ok")
        ++R.Stats.Failures[V[I].Status];
    }
    R.Stats.Best = bestCandidate(All);
    At += Take;
    progress("evaluated " + Ids);
  }
  return true;
}

/// Candidates that did not compile (or parse) go back to the proposer that
/// made them, if it repairs: the fix is a child at the same depth, and the
/// proposer bounds the rounds.
bool Loop::repairFailed() {
  std::map<std::int64_t, const Candidate *> ById;
  for (const Candidate &C : All)
    ById[C.Id] = &C;
  std::vector<Candidate> Fixes;
  std::vector<std::int64_t> Asked;
  for (const Candidate &C : All) {
    if (C.Expanded ||
        (C.Status != "compile-error" && C.Status != status::Invalid))
      continue;
    for (Proposer *Pr : Proposers) {
      if (C.Proposer.rfind(Pr->name() + ":", 0) != 0)
        continue;
      // One more than the failed tries above C: a repair's parent is the
      // try it repairs; a first try's parent was evaluated ok.
      int Round = 1;
      for (auto It = ById.find(C.ParentId);
           It != ById.end() && (It->second->Status == "compile-error" ||
                                It->second->Status == status::Invalid);
           It = ById.find(It->second->ParentId))
        ++Round;
      progress("asking " + Pr->name() + " to repair #" + std::to_string(C.Id));
      PhaseTimer Time(R.Stats.PhaseSeconds["repairing"]);
      for (Proposal &Fix : Pr->repair(context(C), Round))
        Fixes.push_back(child(C, *Pr, Fix, C.Depth));
      Asked.push_back(C.Id);
    }
  }
  for (const Candidate &Fix : Fixes)
    if (!addCandidate(Fix))
      return false;
  for (std::int64_t Id : Asked)
    if (!S.markExpanded(Id))
      return fail("the store: " + S.lastError());
  if (!Asked.empty())
    reload();
  return true;
}

/// One round: the searcher's parents, the proposers' children.
bool Loop::expand() {
  if (stopRequested())
    return false;
  std::vector<const Candidate *> Fresh, Ok;
  for (const Candidate &C : All) {
    bool Usable =
        C.evaluatedOk() || (O.DryRun && C.Status == status::Validated);
    if (!Usable)
      continue;
    Ok.push_back(&C);
    if (C.Depth < O.Depth && !C.Expanded)
      Fresh.push_back(&C);
  }
  if (O.DryRun) // the plan: the roots' children
    Fresh.erase(std::remove_if(Fresh.begin(), Fresh.end(),
                               [](const Candidate *C) { return C->Depth > 0; }),
                Fresh.end());
  std::vector<const Candidate *> Parents = Strategy.parents(Fresh, Ok);
  if (Parents.empty()) {
    R.StoppedBy = O.DryRun ? "dry-run" : "depth";
    return false;
  }
  for (const Candidate *Parent : Parents) {
    progress("proposing children of #" + std::to_string(Parent->Id));
    ProposalContext Context = context(*Parent);
    std::vector<Candidate> Children;
    {
      PhaseTimer Time(R.Stats.PhaseSeconds["proposing"]);
      for (Proposer *Pr : Proposers)
        for (Proposal &Child : Pr->propose(Context))
          Children.push_back(child(*Parent, *Pr, Child, Parent->Depth + 1));
    }
    for (std::size_t I : Strategy.children(Children.size()))
      if (!addCandidate(Children[I]))
        return false;
    if (!S.markExpanded(Parent->Id))
      return fail("the store: " + S.lastError());
  }
  reload();
  return true;
}

SearchResult Loop::run(const std::string &DefaultPipeline) {
  Pipeline = DefaultPipeline;
  auto Source = spec::readTextFile(P.sourcePath());
  if (!Source) {
    fail("cannot read the problem's source " + P.sourcePath().string());
    return R;
  }
  auto Id = S.problem(P.Name, fs::absolute(P.SpecPath).string(),
                      eval::sha256Hex(*Source));
  if (!Id) {
    fail("the store: " + S.lastError());
    return R;
  }
  R.ProblemId = *Id;
  std::error_code EC;
  fs::create_directories(O.WorkDir, EC);
  Candidate Original, Default;
  Original.Proposer = "original";
  Default.Proposer = "O";
  Default.Recipe = DefaultPipeline;
  if (!addCandidate(Original) || !addCandidate(Default))
    return R;
  reload();
  while (processPending() && expand())
    ;
  if (R.StoppedBy.empty())
    R.StoppedBy = "depth";
  R.Candidates = S.candidates(R.ProblemId, E.name());
  R.Stats.Best = nullptr; // points into All, which goes away
  R.Stats.ElapsedSeconds = elapsed();
  return R;
}

} // namespace

double SearchStats::gpuBusy() const {
  auto It = PhaseSeconds.find("evaluating");
  return ElapsedSeconds > 0 && It != PhaseSeconds.end()
             ? std::min(1.0, It->second / ElapsedSeconds)
             : 0.0;
}

SearchResult runSearch(const spec::Problem &P, Store &S, Executor &E,
                       const KoptOpt &Opt, Searcher &Strategy,
                       std::vector<Proposer *> Proposers,
                       const std::string &DefaultPipeline,
                       const SearchOptions &O) {
  return Loop(P, S, E, Opt, Strategy, std::move(Proposers), O)
      .run(DefaultPipeline);
}

} // namespace kopt::search
