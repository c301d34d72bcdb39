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
  erase_if(PassRemarks, [](const Remark &R) { return R.K == Remark::Applied; });
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
    // The pass sees the current ASTs; they are reparsed in place below, so
    // its context must not outlive this block.
    EditSet Edits(Current.Path);
    std::vector<Remark> PassRemarks;
    {
      PassContext Ctx(Current, Info, Instance);
      Impl->run(Ctx);
      PassRemarks = Ctx.takeRemarks();
      Edits = Ctx.takeEdits();
    }

    if (!Edits.empty()) {
      std::string Rejected;
      Expected<std::string> NewCode = Edits.apply(Current.Code);
      if (!NewCode) {
        Rejected =
            "edits could not be applied: " + toString(NewCode.takeError());
      } else {
        std::string OldCode = Current.Code;
        if (Error E = Frontend.reparse(Current, *NewCode)) {
          Rejected =
              "the result does not parse: " + firstDiagnostic(std::move(E));
        } else {
          ProgramInfo NewInfo =
              analyzeProgram(Current, Frontend.options().GpuArch);
          Rejected =
              describeSignatureChange(Signatures, entrySignatures(NewInfo));
          if (Rejected.empty())
            Info = std::move(NewInfo);
        }
        if (!Rejected.empty()) {
          if (Hooks.OnRollback)
            Hooks.OnRollback(Instance.name(), *NewCode);
          // The text before the pass parsed; it parses again.
          if (Error E = Frontend.reparse(Current, OldCode))
            return std::move(E);
          Info = analyzeProgram(Current, Frontend.options().GpuArch);
        }
      }
      if (Rejected.empty()) {
        Run.Edits = Edits.size();
      } else {
        rollBack(PassRemarks, Instance, Path, Rejected);
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
