//===- SearchEvaluate.cpp - The pipeline, looking ahead, repairing -------===//
#include "SearchLoopImpl.h"

namespace kopt::search::detail {

/// The round's pending candidates, a chunk at a time: made, validated,
/// queued for the device. With O.Overlap the device evaluates a batch while
/// the next chunk is made and compiled; without, each chunk's candidates
/// are evaluated before the next is made. Either way the candidates are
/// taken in id order and evaluated in batches of the executor's size, and
/// making stops once the queue holds what --budget-candidates lets this
/// run evaluate: the two orders store the same candidates (with the
/// deterministic simulated executor, the same verdicts).
bool Loop::processPending() {
  bool Ok = pipeline();
  // A batch under way when the pipeline stops was paid for: stored.
  if (InFlight && !land())
    Ok = false;
  Queue.clear();
  Queued.clear();
  // Repairs add candidates (and reload All): only once nothing is under way.
  return Ok && repairFailed();
}

bool Loop::pipeline() {
  std::size_t Batch = std::max<std::size_t>(1, E.batchSize());
  // The first chunk is a job a kopt-opt worker (a batch at least), made in
  // about the time of one job, so the device starts early; each next one
  // is twice the last (a validation has a cost of its own: the reference's
  // compile and preprocessing). A dry run with a budget makes the same
  // chunks and stops where a run with that budget would, so its plan is
  // what that run makes; without one it makes everything at once.
  std::size_t Chunk = O.DryRun && !O.Limits.Candidates
                          ? SIZE_MAX
                          : std::max<std::size_t>(Batch, Make.workers());
  for (std::size_t Count = 1; Count;) {
    if (budgetQueued() || (!O.DryRun && stopRequested()))
      break;
    if (!makePending(Chunk, Count) || !validateMade())
      return false;
    queueValidated();
    if (O.DryRun)
      continue;
    if (O.Overlap) {
      if (landed() && !land())
        return false;
      if (!launch())
        return false;
    } else {
      while (!Queue.empty())
        if (!launch() || !land())
          return false;
    }
    Chunk = Chunk > SIZE_MAX / 2 ? SIZE_MAX : 2 * Chunk;
  }
  if (O.DryRun)
    return true;
  queueValidated(); // a resumed run's, when nothing was pending
  while (InFlight || !Queue.empty()) {
    if (InFlight && !land())
      return false;
    if (!launch())
      return false;
  }
  return true;
}

void Loop::queueValidated() {
  for (Candidate &C : All)
    if (!C.Eval &&
        (C.Status == status::Validated || isEvaluationStatus(C.Status)) &&
        Queued.insert(C.Id).second)
      Queue.push_back(&C);
}

bool Loop::budgetQueued() const {
  if (!O.Limits.Candidates)
    return false;
  // A dry run evaluates nothing: what a run would evaluate is what it
  // validated, in this round and before.
  if (O.DryRun)
    return std::count_if(All.begin(), All.end(), [](const Candidate &C) {
             return C.Status == status::Validated;
           }) >= *O.Limits.Candidates;
  std::size_t Flying = InFlight ? InFlight->Batch.size() : 0;
  return R.Stats.Evaluated + (long)(Flying + Queue.size()) >=
         *O.Limits.Candidates;
}

/// Starts a batch (the executor's size) so that a budget or an
/// interruption stops the search between evaluations.
bool Loop::launch() {
  if (InFlight || Queue.empty())
    return true;
  if (stopRequested())
    return false;
  std::size_t Take = std::max<std::size_t>(1, E.batchSize());
  if (O.Limits.Candidates)
    Take =
        std::min<std::size_t>(Take, *O.Limits.Candidates - R.Stats.Evaluated);
  Take = std::min(Take, Queue.size());
  Flight &F = InFlight.emplace();
  std::vector<std::string> Paths;
  for (std::size_t I = 0; I < Take; ++I) {
    Candidate *C = Queue.front();
    Queue.pop_front();
    F.Batch.push_back(C);
    Paths.push_back(
        (fs::path(O.WorkDir) / ("cand-" + std::to_string(C->Id) + ".cu"))
            .string());
    std::ofstream(Paths.back()) << C->Source;
    F.Ids += (F.Ids.empty() ? "#" : ", #") + std::to_string(C->Id);
  }
  progress("evaluating " + F.Ids);
  // The executor runs on a thread of its own; this thread goes on making
  // (Overlap) or looks ahead while it waits (land).
  F.Result = std::async(std::launch::async, [this, Paths] {
    BatchResult B;
    PhaseTimer Device(B.Busy);
    B.Verdicts = E.evaluate(P, Paths, B.Errors);
    return B;
  });
  return true;
}

bool Loop::land() {
  if (!InFlight)
    return true;
  Flight &F = *InFlight;
  BatchResult B;
  {
    // While the device evaluates, the CPU makes what the next round may
    // ask for (lookAhead, AheadWorker): the GPU waits less for the next
    // round. The worker runs only while this thread waits here.
    PhaseTimer Time(R.Stats.PhaseSeconds["evaluating"]);
    if (O.LookAhead && !O.DryRun &&
        F.Result.wait_for(std::chrono::seconds(0)) !=
            std::future_status::ready) {
      Ahead.run(true);
      lookAhead(F.Batch, F.Result);
      B = F.Result.get();
      Ahead.run(false);
    } else {
      B = F.Result.get();
    }
  }
  std::vector<Candidate *> Batch = std::move(F.Batch);
  std::string Ids = std::move(F.Ids);
  InFlight.reset();
  R.Stats.GpuBusySeconds += B.Busy;
  LastBatchSeconds = B.Busy;
  if (!B.Errors.empty() && O.Interrupted && O.Interrupted()) {
    R.StoppedBy = "interrupted"; // an executor that gave up waiting
    return false;
  }
  if (!B.Errors.empty() || B.Verdicts.size() != Batch.size())
    return fail(B.Errors.empty() ? "the evaluator returned no verdicts"
                                 : B.Errors.front());
  for (std::size_t I = 0; I < Batch.size(); ++I) {
    Candidate &C = *Batch[I];
    Evaluation &V = B.Verdicts[I];
    if (!S.addEvaluation(C.Id, V))
      return fail("the store: " + S.lastError());
    C.Eval = V;
    C.Status = V.Status;
    if (!V.Reason.empty())
      C.Reason = V.Reason;
    ++R.Stats.Evaluated;
    R.Stats.GpuSeconds += V.GpuSeconds;
    if (V.Status != "ok")
      ++R.Stats.Failures[V.Status];
  }
  R.Stats.Best = bestCandidate(All);
  progress("evaluated " + Ids);
  return true;
}

/// Queues for the AheadWorker the children the pass proposer would
/// propose of the likeliest next parents (the fastest candidates evaluated
/// and not yet expanded, then \p Evaluating, the batch on the device), a
/// parent at a time while \p Running is under way: a proposal starts only
/// when the device should still be busy when it ends (the last batch's
/// time against the longest proposal so far), so the device waits little
/// for it. Only the pass proposer is asked (an LLM's proposals cost an
/// exchange), with its own skip counts, and nothing is stored: the search
/// takes the same steps with or without it.
void Loop::lookAhead(const std::vector<Candidate *> &Evaluating,
                     std::future<BatchResult> &Running) {
  PhaseTimer Time(R.Stats.PhaseSeconds["ahead"]);
  auto Begin = std::chrono::steady_clock::now();
  auto Stop = [&] {
    double Spent =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - Begin)
            .count();
    return Running.wait_for(std::chrono::seconds(0)) ==
               std::future_status::ready ||
           Spent + ProposeSeconds > LastBatchSeconds;
  };
  std::vector<const Candidate *> Order;
  for (const Candidate &C : All)
    if (C.evaluatedOk())
      Order.push_back(&C);
  std::stable_sort(Order.begin(), Order.end(),
                   [](const Candidate *A, const Candidate *B) {
                     return A->Eval->Speedup > B->Eval->Speedup;
                   });
  Order.insert(Order.end(), Evaluating.begin(), Evaluating.end());
  std::map<std::string, long> Scratch;
  for (const Candidate *Parent : Order) {
    if (Parent->Depth >= O.Depth || Parent->Expanded ||
        splitRecipeStart(Parent->Recipe).LLMSeq != 0 ||
        !AheadProposed.insert(Parent->Id).second)
      continue;
    if (Stop()) {
      AheadProposed.erase(Parent->Id);
      return;
    }
    double Took = 0;
    std::vector<MakeJob> Jobs;
    {
      PhaseTimer Proposing(Took);
      ProposalContext Context = context(*Parent);
      Context.Skipped = &Scratch;
      for (Proposer *Pr : Proposers)
        if (Pr->name() == "passes")
          for (const Proposal &Child : Pr->propose(Context))
            if (std::string Passes = splitRecipeStart(Child.Recipe).Passes;
                !Passes.empty())
              Jobs.push_back({P.sourcePath().string(), Passes, "", ""});
    }
    Ahead.add(std::move(Jobs));
    ProposeSeconds = std::max(ProposeSeconds, Took);
  }
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

} // namespace kopt::search::detail
