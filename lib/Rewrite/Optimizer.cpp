//===- Optimizer.cpp - Run a pipeline with verification -------------------===//

#include "kopt/Rewrite/Optimizer.h"
#include "kopt/Analysis/KernelInfo.h"
#include "kopt/Pipeline/Pass.h"
#include "kopt/Rewrite/Signatures.h"

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
  erase_if(PassRemarks,
           [](const Remark &R) { return R.K == Remark::Applied; });
  Remark R;
  R.K = Remark::Missed;
  R.Pass = P.name().str();
  R.File = File.str();
  R.Message = ("rolled back all edits of this pass: " + Why).str();
  PassRemarks.push_back(std::move(R));
}

std::string firstDiagnostic(Error E) {
  std::string First;
  handleAllErrors(
      std::move(E),
      [&](const ParseError &PE) {
        First = PE.Diagnostics.empty() ? "parse failed" : PE.Diagnostics[0];
      },
      [&](const ErrorInfoBase &EI) { First = EI.message(); });
  return First;
}

} // namespace

Expected<OptimizeResult> optimize(const CudaFrontend &Frontend, StringRef Path,
                                  StringRef Code, const Pipeline &P,
                                  const OptimizerHooks &Hooks) {
  OptimizeResult Result;
  auto Start = std::chrono::steady_clock::now();
  Expected<ParsedSource> Parsed = Frontend.parse(Path, Code);
  if (!Parsed)
    return Parsed.takeError();
  ParsedSource Current = std::move(*Parsed);
  ProgramInfo Info = analyzeProgram(Current, Frontend.options().GpuArch);
  const SignatureMap Signatures = entrySignatures(Info);
  Result.InputKernels = Info.Kernels.size();
  Result.InitialParseSeconds = secondsSince(Start);

  for (const PassInstance &Instance : P.Passes) {
    Start = std::chrono::steady_clock::now();
    PassRun Run;
    Run.Pass = Instance.str();
    std::unique_ptr<Pass> Impl = Hooks.CreatePass
                                     ? Hooks.CreatePass(Instance.name())
                                     : createPass(Instance.name());
    PassContext Ctx(Current, Info, Instance);
    Impl->run(Ctx);
    std::vector<Remark> PassRemarks = Ctx.takeRemarks();

    if (!Ctx.edits().empty()) {
      Expected<std::string> NewCode = Ctx.edits().apply(Current.Code);
      if (!NewCode) {
        rollBack(PassRemarks, Instance, Path,
                 "edits could not be applied: " + toString(NewCode.takeError()));
        Run.RolledBack = true;
      } else if (Expected<ParsedSource> Reparsed =
                     Frontend.parse(Path, *NewCode)) {
        ProgramInfo NewInfo =
            analyzeProgram(*Reparsed, Frontend.options().GpuArch);
        std::string Change =
            describeSignatureChange(Signatures, entrySignatures(NewInfo));
        if (!Change.empty()) {
          if (Hooks.OnRollback)
            Hooks.OnRollback(Instance.name(), *NewCode);
          rollBack(PassRemarks, Instance, Path, Change);
          Run.RolledBack = true;
        } else {
          Run.Edits = Ctx.edits().size();
          Current = std::move(*Reparsed);
          Info = std::move(NewInfo);
        }
      } else {
        if (Hooks.OnRollback)
          Hooks.OnRollback(Instance.name(), *NewCode);
        rollBack(PassRemarks, Instance, Path,
                 "the result does not parse: " +
                     firstDiagnostic(Reparsed.takeError()));
        Run.RolledBack = true;
      }
    }
    append_range(Result.Remarks, PassRemarks);
    Run.Seconds = secondsSince(Start);
    Result.Runs.push_back(std::move(Run));
  }
  Result.Code = Current.Code;
  return std::move(Result);
}

} // namespace kopt
