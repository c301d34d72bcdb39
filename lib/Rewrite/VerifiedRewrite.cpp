//===- VerifiedRewrite.cpp - Apply edits, re-parse, verify ----------------===//

#include "kopt/Rewrite/VerifiedRewrite.h"

using namespace llvm;

namespace kopt {

namespace {

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

std::string verifyText(const CudaFrontend &Frontend, ParsedSource &Current,
                       StringRef NewCode, const SignatureMap &Signatures,
                       ProgramInfo *NewInfo) {
  if (Error E = Frontend.reparse(Current, NewCode))
    return "the result does not parse: " + firstDiagnostic(std::move(E));
  ProgramInfo Info = analyzeProgram(Current, Frontend.options().GpuArch);
  std::string Rejected =
      describeSignatureChange(Signatures, entrySignatures(Info));
  if (Rejected.empty() && NewInfo)
    *NewInfo = std::move(Info);
  return Rejected;
}

Expected<RewriteOutcome> applyVerified(const CudaFrontend &Frontend,
                                       ParsedSource &Current, ProgramInfo &Info,
                                       const EditSet &Edits,
                                       const SignatureMap &Signatures) {
  RewriteOutcome Out;
  Expected<std::string> NewCode = Edits.apply(Current.Code);
  if (!NewCode) {
    Out.Rejected =
        "edits could not be applied: " + toString(NewCode.takeError());
    return Out;
  }
  Out.Candidate = *NewCode;
  std::string OldCode = Current.Code;
  Out.Rejected = verifyText(Frontend, Current, *NewCode, Signatures, &Info);
  if (Out.Rejected.empty())
    return Out;
  // The text before the edits parsed; it parses again.
  if (Error E = Frontend.reparse(Current, OldCode))
    return std::move(E);
  Info = analyzeProgram(Current, Frontend.options().GpuArch);
  return Out;
}

} // namespace kopt
