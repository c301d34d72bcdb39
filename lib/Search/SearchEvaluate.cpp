//===- SearchEvaluate.cpp - Evaluating, looking ahead, repairing ---------===//
#include "SearchLoopImpl.h"

namespace kopt::search::detail {

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
      // The device evaluates while the CPU makes what the next round may
      // ask for (lookAhead, AheadWorker): the GPU waits less for the next
      // round. The worker runs only while this thread waits here.
      // Without it the evaluation runs on this thread, as it always did.
      PhaseTimer Time(R.Stats.PhaseSeconds["evaluating"]);
      double Busy = 0;
      auto Evaluate = [&] {
        PhaseTimer Device(Busy);
        return E.evaluate(P, Paths, Errors);
      };
      if (O.LookAhead && !O.DryRun) {
        std::future<std::vector<Evaluation>> Running =
            std::async(std::launch::async, Evaluate);
        Ahead.run(true);
        lookAhead({Waiting.begin() + At, Waiting.begin() + At + Take}, Running);
        V = Running.get();
        Ahead.run(false);
      } else {
        V = Evaluate();
      }
      R.Stats.GpuBusySeconds += Busy;
      LastBatchSeconds = Busy;
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
                     std::future<std::vector<Evaluation>> &Running) {
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
