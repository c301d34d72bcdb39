//===- DeviationFold.h - Sums folded into earlier loops ---------*- C++ -*-===//
//
// What one-pass-variance and online-softmax share. Both replace a loop B
// that sums a function of `element - centre` (DeviationSums.h) by a closed
// form of running sums an earlier loop A accumulates over the same
// elements (ReReadLoops.h, SameIterations), so the elements are read once:
//
//   <Before: lines before A declaring the sums>
//   for (A's header) {
//     A's body
//     <Tail: lines adding the element to the sums>
//   }
//   ...
//   <Closed: in B's place, the sum B computed, from the running sums>
//
// The pass writes the three texts; this file finds A, lays the texts out
// at the loops' indentation (a `#pragma` goes with its loop) and edits.
//
//===----------------------------------------------------------------------===//
#ifndef KOPT_PASSES_DEVIATIONFOLD_H
#define KOPT_PASSES_DEVIATIONFOLD_H

#include "kopt/Analysis/DeviationSums.h"
#include "kopt/Analysis/ReReadLoops.h"
#include "kopt/Pass/Pass.h"

#include <string>
#include <vector>

namespace kopt {

/// The loops' indentation: A's, A's body's, one level, B's.
struct FoldLayout {
  std::string In, BodyIn, Step, BIn;
};

/// One B folded into its A.
struct DeviationFold {
  DeviationSumLoop B;
  const ReReadGroup *G = nullptr; ///< G->A is A
  std::string Type;               ///< the deviation's type, as written
  FoldLayout Layout;
  std::string Before, Tail, Closed; ///< as above, whole lines; Closed's
                                    ///< first line without indentation
};

/// The loops of the kernel that sum \p Term of deviations (DeviationSums.h),
/// the refusals among them said with \p Why first; where there is neither,
/// the missed remark \p Why + \p None.
std::vector<DeviationSumLoop> deviationSumLoops(KernelContext &KC,
                                                DeviationTerm Term,
                                                llvm::StringRef Why,
                                                llvm::StringRef None);

/// The group whose A reads B's element first, with the same iterations,
/// from a pointer that can be cached, and declares none of the names the
/// element is written with; null, with the missed remark (\p Why first)
/// said, where there is none.
const ReReadGroup *foldPartner(KernelContext &KC, const ReReadLoops &Found,
                               const DeviationSumLoop &B, llvm::StringRef Why);

/// Where the texts go for B after A.
FoldLayout foldLayout(const clang::ForStmt *A, const clang::ForStmt *B,
                      clang::ASTContext &AC);

/// The deviation's type as the kernel spells it (the accumulator's where
/// they agree).
std::string deviationType(const DeviationSumLoop &B, clang::ASTContext &AC);

/// Value as a literal of Type: `0.0f`, `1.0`, `static_cast<T>(0)`.
std::string literalOf(llvm::StringRef Type, llvm::StringRef Value);

/// B's element converted to F's type; B's centre, parenthesized unless a
/// name or a literal.
std::string foldElement(const DeviationFold &F, clang::ASTContext &AC);
std::string foldCenter(const DeviationFold &F, clang::ASTContext &AC);

/// Lines before A that declare \p Name of F's type, \p Init, then set it to
/// the element A reads first, where the thread runs A at all (A's counter
/// and condition copied).
std::string firstElementLines(const DeviationFold &F, llvm::StringRef Name,
                              llvm::StringRef Init, clang::ASTContext &AC);

/// Edits every fold: Before and Tail into A (in fold order), Closed in
/// B's place. False, with a missed remark, when a loop cannot be edited.
bool applyFolds(KernelContext &KC, const std::vector<DeviationFold> &Folds,
                llvm::StringRef Why);

} // namespace kopt

#endif // KOPT_PASSES_DEVIATIONFOLD_H
