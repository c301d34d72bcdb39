//===- ControlFlow.h - Which statements run every time ---------*- C++ -*-===//
//
// A rewrite that moves an access out of a branch changes what the program
// touches: a store under `if (p != NULL)` made unconditional writes through
// a null pointer. Passes ask here whether an access runs on every iteration
// of the body that holds it.
//
//===----------------------------------------------------------------------===//

#ifndef KOPT_ANALYSIS_CONTROLFLOW_H
#define KOPT_ANALYSIS_CONTROLFLOW_H

#include "clang/AST/Decl.h"
#include "clang/AST/ParentMap.h"
#include "clang/AST/Stmt.h"

namespace kopt {

/// True if S is evaluated every time Body runs: no branch (if, ?:, the
/// right operand of && or ||, switch case), loop or lambda lies between
/// them. Body must contain S; Parents must map the function holding both.
/// Assumes Body has no goto, break, continue or return (passes refuse those
/// before asking).
bool runsWheneverBodyRuns(const clang::Stmt *S, const clang::Stmt *Body,
                          clang::ParentMap &Parents);

/// The innermost condition that guards S inside Body (an if's or ?:'s
/// condition, a loop's, or the left operand of && / ||), or null when S
/// runs whenever Body runs.
const clang::Stmt *guardOf(const clang::Stmt *S, const clang::Stmt *Body,
                           clang::ParentMap &Parents);

/// True if E stands as a statement of its own, its value discarded: a
/// statement of a compound statement, after a label or case, under an
/// attribute, a branch of an if or a loop's body (through the cleanups
/// around it).
bool isDiscardedStatement(const clang::Stmt *E,
                          const clang::ParentMap &Parents);

/// True if E, in function F, has one value in every thread of a block, so
/// that a branch on it sends the whole block one way: it reads only
/// blockIdx, blockDim, gridDim, constants, and variables F never changes:
/// F's parameters when F is a kernel (a device function's arguments may
/// differ between threads) and locals initialized from such values; no
/// memory, call or threadIdx.
bool isBlockUniform(const clang::Expr *E, const clang::FunctionDecl *F);

} // namespace kopt

#endif // KOPT_ANALYSIS_CONTROLFLOW_H
