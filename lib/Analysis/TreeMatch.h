//===- TreeMatch.h - Pieces of the tree matchers (lib/Analysis only)
//-------===//
//
// What ReductionTree.cpp's matcher and InterleavedTree.cpp's share: the rest
// of a tree once its loop's head and step are known, and the interleaved
// trees' matcher.
//
//===----------------------------------------------------------------------===//

#ifndef KOPT_LIB_ANALYSIS_TREEMATCH_H
#define KOPT_LIB_ANALYSIS_TREEMATCH_H

#include "kopt/Analysis/ReductionTree.h"

#include "clang/AST/ParentMap.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace kopt {

using SlotTest =
    llvm::function_ref<bool(const clang::Expr *, const clang::ValueDecl *)>;

/// The rest of a tree once its loop's head and step are known: the update
/// `A[x] = op(A[x], A[y])` (or `A[x] += A[y]`) with IsOwn(A[x]) and
/// IsPartner(A[y]), then the store and barrier before the loop and, for a
/// loop that stops above TailRounds, the warp tail after it.
Decision<ReductionTree> finishShape(ReductionTree T, const clang::Stmt *Update,
                                    SlotTest IsOwn, SlotTest IsPartner,
                                    const char *StepShape, int64_t TailRounds,
                                    const clang::ParentMap &Parents,
                                    const clang::Stmt *Body,
                                    clang::ASTContext &AC);

/// An interleaved tree (ReductionTree::Interleaved) around a loop whose
/// head matchDoublingHead took (S, SizeConst); a Refusal if its step
/// differs.
Decision<ReductionTree>
matchInterleaved(const clang::ForStmt *Loop, const clang::VarDecl *S,
                 const clang::Expr *SizeConst, const clang::ParentMap &Parents,
                 const clang::Stmt *Body, clang::ASTContext &AC);

} // namespace kopt

#endif // KOPT_LIB_ANALYSIS_TREEMATCH_H
