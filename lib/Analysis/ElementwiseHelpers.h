//===- ElementwiseHelpers.h - Element-wise helpers (private) ---*- C++ -*-===//
//
// What ElementwiseLoop.cpp (matching element-wise regions) and
// VectorPlan.cpp (planning their vector accesses) both ask of a region's
// code and accesses.
//
//===----------------------------------------------------------------------===//
#ifndef KOPT_ANALYSIS_ELEMENTWISEHELPERS_H
#define KOPT_ANALYSIS_ELEMENTWISEHELPERS_H

#include "kopt/Analysis/ElementwiseLoop.h"

#include "clang/AST/ParentMap.h"

#include <optional>
#include <string>
#include <vector>

namespace kopt::elementwise {

using namespace clang;

/// What in the per-element code ties it to its thread or leaves the
/// element computation early, as the remark says it. Another thread
/// computes each element after the rewrite of a loop: one of the same
/// block in a block-stride loop (blockIdx stays), of the grid in a
/// grid-stride loop (blockDim and gridDim stay, the launch being the same).
/// A one-element-per-thread kernel may get another grid: every built-in
/// but its index's is refused.
std::optional<Refusal> scanElementCode(const Stmt *Body, ASTContext &Ctx,
                                       const ElementRegion &R);

/// Local variables declared outside Body that Body writes: state carried
/// from one element to the next (an accumulator, a "last seen" value).
std::vector<std::string> carriedState(const Stmt *Body, const VarDecl *Index,
                                      ASTContext &Ctx);

const AccessInfo *accessOf(const KernelInfo &K, const ArraySubscriptExpr *E);

/// The variable an access is made through: its local pointer or parameter.
const VarDecl *baseOf(const AccessInfo &A);

/// Whether an access through a local pointer names the same elements for
/// every thread that runs R: the local is set before R, and its offset is
/// the same for all of them (R.PerBlock: the threads of a block).
bool sharedByRegion(const AccessInfo &A, const KernelInfo &K,
                    const ElementRegion &R, ASTContext &AC);

/// "the store to 'p[i]' runs only when 'p != NULL'".
std::string guardedAccess(const AccessInfo &A, const Stmt *Body,
                          ParentMap &Parents, ASTContext &AC);

/// Which top-level statement of Body holds E (0 if Body is not compound).
size_t topLevelIndex(const Stmt *E, const Stmt *Body, ParentMap &Parents);

/// Whether the load L of an element runs before the store S of it, and
/// once per element: L lies in an earlier statement of Body than S, or in
/// the right-hand side of S's own plain assignment, which no loop inside
/// Body repeats.
bool loadedBeforeStored(const Expr *L, const Expr *S, const Stmt *Body,
                        ParentMap &Parents);

} // namespace kopt::elementwise

#endif // KOPT_ANALYSIS_ELEMENTWISEHELPERS_H
