//===- PassManager.cpp - Run a pipeline with verification -----------------===//

#include "kopt/Pipeline/PassManager.h"
#include "kopt/Analysis/KernelInfo.h"
#include "kopt/Pass/Pass.h"
#include "kopt/Pass/PassRegistry.h"
#include "kopt/Rewrite/VerifiedRewrite.h"

#include "llvm/ADT/STLExtras.h"

#include <chrono>

using namespace llvm;

namespace kopt {

namespace {

double secondsSince(std::chrono::steady_clock::time_point Start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
      .count();
}

/// Replaces a rolled-back pass's applied remarks (no longer true) with one
/// missed remark that says why.
void rollBack(std::vector<Remark> &PassRemarks, const PassInstance &P,
              StringRef File, const Twine &Why) {
  erase_if(PassRemarks, [](const Remark &R) { return R.K == Remark::Applied; });
  Remark R;
  R.K = Remark::Missed;
  R.Pass = P.name().str();
  R.File = File.str();
  R.Message = ("rolled back all edits of this pass: " + Why).str();
  PassRemarks.push_back(std::move(R));
}

} // namespace

Expected<OptimizeResult> runPipeline(const CudaFrontend &Frontend,
                                     StringRef Path, StringRef Code,
                                     const Pipeline &P,
                                     const PassManagerOptions &Options) {
  OptimizeResult Result;
  auto Start = std::chrono::steady_clock::now();
  ParsedSource Fresh;
  ParsedSource *Use = Options.Reuse ? Options.Reuse : &Fresh;
  if (Use->Device && Use->Host && Use->Path == Path) {
    if (Error E = Frontend.reparse(*Use, Code)) {
      *Use = ParsedSource(); // its state is unknown: parse afresh next time
      return std::move(E);
    }
  } else {
    Expected<ParsedSource> Parsed = Frontend.parse(Path, Code);
    if (!Parsed)
      return Parsed.takeError();
    *Use = std::move(*Parsed);
  }
  ParsedSource &Current = *Use;
  ProgramInfo Info = analyzeProgram(Current, Frontend.options().GpuArch);
  const SignatureMap Signatures = entrySignatures(Info);
  Result.InputKernels = Info.Kernels.size();
  Result.InitialParseSeconds = secondsSince(Start);

  for (const auto &[StepIndex, Instance] : enumerate(P.Passes)) {
    Start = std::chrono::steady_clock::now();
    PassRun Run;
    Run.Pass = Instance.str();
    std::unique_ptr<Pass> Impl = Instance.spec().Create();
    // The pass sees the current ASTs; they are reparsed in place below, so
    // its context must not outlive this block.
    EditSet Edits(Current.Path);
    std::vector<Remark> PassRemarks;
    {
      PassContext Ctx(Current, Info, Instance, Options.Estimator);
      Impl->run(Ctx);
      PassRemarks = Ctx.takeRemarks();
      Edits = Ctx.takeEdits();
    }

    if (Options.Probe) {
      Run.Edits = Edits.size();
    } else if (!Edits.empty()) {
      Expected<RewriteOutcome> Outcome =
          applyVerified(Frontend, Current, Info, Edits, Signatures);
      if (!Outcome) {
        Error E = Outcome.takeError();
        *Use = ParsedSource(); // left mid-rewrite: parse afresh next time
        return std::move(E);
      }
      if (Outcome->Rejected.empty()) {
        Run.Edits = Edits.size();
      } else {
        if (Options.OnRollback && !Outcome->Candidate.empty())
          Options.OnRollback(Instance.name(), Outcome->Candidate);
        rollBack(PassRemarks, Instance, Path, Outcome->Rejected);
        Run.RolledBack = true;
      }
    }
    for (Remark &R : PassRemarks)
      R.Step = StepIndex;
    append_range(Result.Remarks, PassRemarks);
    Run.Seconds = secondsSince(Start);
    Result.Runs.push_back(std::move(Run));
  }
  Result.Code = Current.Code;
  return std::move(Result);
}

} // namespace kopt
