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

} // namespace kopt

#endif // KOPT_ANALYSIS_CONTROLFLOW_H
