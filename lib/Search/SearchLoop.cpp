//===- SearchLoop.cpp - Propose, validate, evaluate, store ---------------===//
//
// Making, validating and expanding candidates, and the run itself; the
// evaluation steps are in SearchEvaluate.cpp.
//
//===----------------------------------------------------------------------===//
#include "SearchLoopImpl.h"

namespace kopt::search {

namespace detail {

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
    if (!Start)
      resumeFromParent(C, Batch->back());
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

/// A child whose recipe is its parent's with steps appended (the pass
/// proposer's appends) is made from the parent's output: kopt-opt runs only
/// the new steps, with the same output and remarks as the whole recipe
/// (kopt-opt's Batch.h; a resumption that fails is made whole). Only
/// parents made from the problem's source by their own recipe qualify:
/// an LLM's start, or a source no pass ran on (whose remarks file holds
/// -O's remarks), does not.
void Loop::resumeFromParent(const Candidate &C, MakeJob &J) const {
  auto Parent = std::find_if(All.begin(), All.end(), [&](const Candidate &X) {
    return X.Id == C.ParentId;
  });
  if (Parent == All.end() || Parent->Source.empty())
    return;
  RecipeStart Mine = splitRecipeStart(C.Recipe),
              Theirs = splitRecipeStart(Parent->Recipe);
  Recipe Child, Head;
  if (Mine.LLMSeq || Theirs.LLMSeq || Theirs.Passes.empty() ||
      !parseRecipe(Mine.Passes, Child) || !parseRecipe(Theirs.Passes, Head) ||
      Head.size() >= Child.size() ||
      !std::equal(Head.begin(), Head.end(), Child.begin()))
    return;
  std::string From = baseOf(*Parent);
  if (!fs::exists(From + ".cu") || !fs::exists(From + ".remarks.json"))
    return;
  J.ResumeSteps = Head.size();
  J.ResumeCode = From + ".cu";
  J.ResumeRemarks = From + ".remarks.json";
}

/// Makes the first \p Max pending candidates with kopt-opt, side by side,
/// then settles duplicates of source in id order (so a run and its
/// resumption agree).
bool Loop::makePending(std::size_t Max, std::size_t &Count) {
  std::vector<Candidate *> Pending;
  for (Candidate &C : All)
    if (C.Status == status::Pending && Pending.size() < Max)
      Pending.push_back(&C);
  Count = Pending.size();
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
  // The candidates with passes go to kopt-opt (Maker: side by side, each
  // output made once).
  std::vector<MadeCandidate> Made(Pending.size());
  std::vector<MakeJob> Jobs;
  std::vector<std::size_t> JobOf;
  for (std::size_t I = 0; I < Pending.size(); ++I) {
    std::size_t Before = Jobs.size();
    Made[I] = make(*Pending[I], Starts[I], baseOf(*Pending[I]), &Jobs);
    if (Jobs.size() != Before)
      JobOf.push_back(I);
  }
  if (!Jobs.empty()) {
    std::vector<MadeCandidate> Out =
        Make.makeAll(Jobs, baseOf(*Pending[JobOf.front()]) + ".batch");
    for (std::size_t K = 0; K < Out.size(); ++K) {
      Made[JobOf[K]] = Out[K];
      MadeFromParent += Out[K].Resumed;
    }
  }
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
    std::vector<std::size_t> Chosen = Strategy.children(*Parent, Children, All);
    if (Chosen.size() < Children.size())
      Skipped["not chosen by the " + Strategy.name() + " searcher"] +=
          static_cast<long>(Children.size() - Chosen.size());
    for (std::size_t I : Chosen)
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
  R.Stats.MadeAhead = Ahead.made();
  R.Stats.MemoHits = Make.memoHits();
  R.Stats.MadeFromParent = MadeFromParent;
  if (!O.MemoDir.empty())
    Make.prune(Maker::defaultMaxBytes());
  R.Stats.ElapsedSeconds = elapsed();
  return R;
}

} // namespace detail

double SearchStats::gpuBusy() const {
  return ElapsedSeconds > 0 ? std::min(1.0, GpuBusySeconds / ElapsedSeconds)
                            : 0.0;
}

SearchResult runSearch(const spec::Problem &P, Store &S, Executor &E,
                       const KoptOpt &Opt, Searcher &Strategy,
                       std::vector<Proposer *> Proposers,
                       const std::string &DefaultPipeline,
                       const SearchOptions &O) {
  return detail::Loop(P, S, E, Opt, Strategy, std::move(Proposers), O)
      .run(DefaultPipeline);
}

} // namespace kopt::search
