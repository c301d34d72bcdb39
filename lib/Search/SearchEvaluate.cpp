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
      // ask for (lookAhead): the GPU waits less for the next batch.
      PhaseTimer Time(R.Stats.PhaseSeconds["evaluating"]);
      double Busy = 0;
      std::future<std::vector<Evaluation>> Running =
          std::async(std::launch::async, [&] {
            PhaseTimer Device(Busy);
            return E.evaluate(P, Paths, Errors);
          });
      // A step of the look ahead (a proposal, a chunk of makes) starts
      // only when the device should still be busy when it ends, judged by
      // the last batch's time and the longest step so far: the device
      // waits little for it.
      auto Begin = std::chrono::steady_clock::now(), Last = Begin;
      double Step = 0;
      auto Stop = [&] {
        auto Now = std::chrono::steady_clock::now();
        Step =
            std::max(Step, std::chrono::duration<double>(Now - Last).count());
        Last = Now;
        return Running.wait_for(std::chrono::seconds(0)) ==
                   std::future_status::ready ||
               std::chrono::duration<double>(Now - Begin).count() + Step >
                   LastBatchSeconds;
      };
      if (!O.DryRun && O.LookAhead)
        lookAhead({Waiting.begin() + At, Waiting.begin() + At + Take}, Stop);
      V = Running.get();
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

/// Makes into the memo the children the pass proposer would propose of
/// \p Parents, the candidates a device is evaluating, until \p Stop: a
/// round that expands one of them then copies what it makes (Maker). Only
/// the pass proposer is asked (an LLM's proposals cost an exchange) and
/// only in a copy of the skip counts, and nothing is stored: the search
/// takes the same steps with or without it.
void Loop::lookAhead(const std::vector<Candidate *> &Parents,
                     const std::function<bool()> &Stop) {
  PhaseTimer Time(R.Stats.PhaseSeconds["ahead"]);
  std::map<std::string, long> Scratch;
  // The likeliest next parents first: the fastest evaluated candidates not
  // yet expanded, then those being evaluated.
  std::vector<const Candidate *> Order;
  for (const Candidate &C : All)
    if (C.evaluatedOk())
      Order.push_back(&C);
  std::stable_sort(Order.begin(), Order.end(),
                   [](const Candidate *A, const Candidate *B) {
                     return A->Eval->Speedup > B->Eval->Speedup;
                   });
  Order.insert(Order.end(), Parents.begin(), Parents.end());
  for (const Candidate *Parent : Order) {
    if (Stop() || Parent->Depth >= O.Depth || Parent->Expanded ||
        splitRecipeStart(Parent->Recipe).LLMSeq != 0)
      continue;
    ProposalContext Context = context(*Parent);
    Context.Skipped = &Scratch;
    std::vector<MakeJob> Jobs;
    for (Proposer *Pr : Proposers) {
      if (Pr->name() != "passes")
        continue;
      for (const Proposal &Child : Pr->propose(Context)) {
        std::string Passes = splitRecipeStart(Child.Recipe).Passes;
        if (!Passes.empty())
          Jobs.push_back({P.sourcePath().string(), Passes, "", ""});
      }
    }
    MadeAhead += static_cast<long>(Make.prepare(Jobs, Stop, 1));
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
