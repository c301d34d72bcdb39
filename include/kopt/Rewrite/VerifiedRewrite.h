//===- VerifiedRewrite.h - Apply edits, re-parse, verify --------*- C++ -*-===//
//
// A candidate text is kept only if it still parses for the device and the
// host and keeps every kernel's and launcher's signature.
//
//===----------------------------------------------------------------------===//

#ifndef KOPT_REWRITE_VERIFIEDREWRITE_H
#define KOPT_REWRITE_VERIFIEDREWRITE_H

#include "kopt/Analysis/KernelInfo.h"
#include "kopt/Frontend/CudaFrontend.h"
#include "kopt/Pass/Edits.h"
#include "kopt/Rewrite/Signatures.h"

#include <string>

namespace kopt {

struct RewriteOutcome {
  /// Empty when the rewrite was kept; otherwise why it was refused.
  std::string Rejected;
  /// The text the edits produced (also when it was refused).
  std::string Candidate;
};

/// Re-parses Current in place with NewCode and compares the entry signatures
/// with Signatures. Returns why NewCode is refused ("" when it is kept); on
/// success Current (and *NewInfo, if given) describe NewCode. On a refusal
/// Current holds a failed or refused parse: reparse it with a good text
/// before using its ASTs again.
std::string verifyText(const CudaFrontend &Frontend, ParsedSource &Current,
                       llvm::StringRef NewCode, const SignatureMap &Signatures,
                       ProgramInfo *NewInfo = nullptr);

/// Applies Edits to Current's text, re-parses it in place and compares the
/// entry signatures with Signatures. Kept: Current and Info describe the new
/// text. Refused: Current and Info are restored to the text before. An error
/// only if the text before no longer parses (which it did before).
llvm::Expected<RewriteOutcome> applyVerified(const CudaFrontend &Frontend,
                                             ParsedSource &Current,
                                             ProgramInfo &Info,
                                             const EditSet &Edits,
                                             const SignatureMap &Signatures);

} // namespace kopt

#endif // KOPT_REWRITE_VERIFIEDREWRITE_H
