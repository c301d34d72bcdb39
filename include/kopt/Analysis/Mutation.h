//===- Mutation.h - Is a variable changed behind a pass's back? -*- C++ -*-===//
//
// Every "is it modified" question of the analysis and the passes goes
// through Clang's ExprMutationAnalyzer, which follows what a hand-written
// walk misses: references and pointers bound to the variable and written
// through later, calls that take it by non-const reference (including
// template helpers, whose bodies it analyzes), lambda captures by
// reference, member and array-element writes, casts to non-const.
//
//===----------------------------------------------------------------------===//

#ifndef KOPT_ANALYSIS_MUTATION_H
#define KOPT_ANALYSIS_MUTATION_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Stmt.h"

namespace kopt {

/// The first statement in Scope that may change Var (its own declaration
/// aside), or null when none can.
const clang::Stmt *findMutation(const clang::VarDecl *Var,
                                const clang::Stmt *Scope);

/// True if Var may change anywhere in Scope.
inline bool isModifiedIn(const clang::VarDecl *Var, const clang::Stmt *Scope) {
  return findMutation(Var, Scope) != nullptr;
}

/// True if the object E refers to may change through this very use of it
/// (E is one reference to a variable, e.g. an argument `&v`).
bool isMutatedAt(const clang::Expr *E, const clang::Stmt *Scope,
                 clang::ASTContext &Ctx);

/// True if what the pointer Var points to may be written in Scope.
bool isPointeeModifiedIn(const clang::VarDecl *Var, const clang::Stmt *Scope);

/// Forgets the analyzers kept for earlier questions. Answers are cached per
/// scope statement for the life of an AST; analyzeProgram calls this before
/// it analyzes a (re)parsed source, whose nodes may reuse freed addresses.
void resetMutationCache();

} // namespace kopt

#endif // KOPT_ANALYSIS_MUTATION_H
