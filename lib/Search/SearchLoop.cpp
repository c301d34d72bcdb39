//===- SearchLoop.cpp - Propose, validate, evaluate, store, repeat --------===//
#include "kopt/Search/SearchLoop.h"

#include "kopt/Eval/Sha256.h"
#include "kopt/Search/Executor.h"
#include "kopt/Search/KoptOpt.h"
#include "kopt/Search/Proposer.h"
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

bool isEvaluationStatus(const std::string &S) {
  return S == "ok" || S == "wrong-result" || S == "runtime-error" ||
         S == "timeout" || S == "not-recorded";
}

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

  double elapsed() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         Start)
        .count();
  }
  void reload() {
    All = S.candidates(R.ProblemId, E.name());
    BySource.clear();
    BySass.clear();
    R.Stats = SearchStats();
    for (const Candidate &C : All) {
      if (!C.SourceSha256.empty() && C.Status != status::Duplicate)
        BySource.emplace(C.SourceSha256, C.Id);
      if (!C.SassSha256.empty() && C.Status != status::Duplicate)
        BySass.emplace(C.SassSha256, C.Id);
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
  bool makePending();
  bool validateMade();
  bool evaluateValidated();
  bool processPending() {
    return makePending() && validateMade() && (O.DryRun || evaluateValidated());
  }
  bool expand();
};

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
  std::vector<MadeCandidate> Made(Pending.size());
  std::atomic<std::size_t> Next{0};
  unsigned Jobs =
      O.Jobs ? O.Jobs : std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::thread> Pool;
  for (unsigned J = 0; J < std::min<std::size_t>(Jobs, Pending.size()); ++J)
    Pool.emplace_back([&] {
      for (std::size_t I; (I = Next++) < Pending.size();) {
        const Candidate &C = *Pending[I];
        std::string Base =
            (fs::path(O.WorkDir) / ("cand-" + std::to_string(C.Id))).string();
        if (C.Recipe.empty()) {
          std::error_code EC;
          fs::copy_file(P.sourcePath(), Base + ".cu",
                        fs::copy_options::overwrite_existing, EC);
          Made[I] = {!EC, EC ? "cannot copy the source: " + EC.message() : ""};
        } else {
          Made[I] = Opt.make(P.sourcePath().string(), C.Recipe, Base + ".cu",
                             Base + ".remarks.json");
        }
      }
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
      C.Reason = Made[I].Ok ? "kopt-opt wrote no output" : Made[I].Error;
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
      auto [It, New] = BySass.emplace(C.SassSha256, C.Id);
      if (!New) {
        C.Status = status::Duplicate;
        C.DuplicateOf = It->second;
        C.Reason = "same SASS as #" + std::to_string(It->second);
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
    std::vector<Evaluation> V = E.evaluate(P, Paths, Errors);
    if (!Errors.empty() || V.size() != Paths.size())
      return fail(Errors.empty() ? "the evaluator returned no verdicts"
                                 : Errors.front());
    for (std::size_t I = 0; I < Take; ++I) {
      Candidate &C = *Waiting[At + I];
      if (!S.addEvaluation(C.Id, V[I]))
        return fail("the store: " + S.lastError());
      C.Eval = V[I];
      C.Status = V[I].Status;
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
    std::string Base =
        (fs::path(O.WorkDir) / ("cand-" + std::to_string(Parent->Id))).string();
    ProposalContext Context{
        *Parent,
        [Base] {
          return spec::readTextFile(Base + ".remarks.json").value_or("");
        },
        [this, Base] { return Opt.analyze(Base + ".cu"); }};
    std::vector<Candidate> Children;
    for (Proposer *Pr : Proposers)
      for (Proposal &Child : Pr->propose(Context)) {
        Candidate C;
        C.ParentId = Parent->Id;
        C.Depth = Parent->Depth + 1;
        C.Proposer = Pr->name() + ": " + Child.Why;
        C.Recipe = Child.Recipe;
        Children.push_back(std::move(C));
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

SearchResult runSearch(const spec::Problem &P, Store &S, Executor &E,
                       const KoptOpt &Opt, Searcher &Strategy,
                       std::vector<Proposer *> Proposers,
                       const std::string &DefaultPipeline,
                       const SearchOptions &O) {
  return Loop(P, S, E, Opt, Strategy, std::move(Proposers), O)
      .run(DefaultPipeline);
}

} // namespace kopt::search
