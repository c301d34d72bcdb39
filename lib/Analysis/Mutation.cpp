//===- Mutation.cpp - Is a variable changed behind a pass's back? ---------===//

#include "kopt/Analysis/Mutation.h"

#include "clang/Analysis/Analyses/ExprMutationAnalyzer.h"

using namespace clang;

namespace kopt {

const Stmt *findMutation(const VarDecl *Var, const Stmt *Scope) {
  if (!Var || !Scope)
    return nullptr;
  ASTContext &Ctx = Var->getASTContext();
  ExprMutationAnalyzer Analyzer(*Scope, Ctx);
  return Analyzer.findMutation(Var);
}

bool isMutatedAt(const Expr *E, const Stmt *Scope, ASTContext &Ctx) {
  if (!E || !Scope)
    return false;
  ExprMutationAnalyzer Analyzer(*Scope, Ctx);
  return Analyzer.isMutated(E);
}

bool isPointeeModifiedIn(const VarDecl *Var, const Stmt *Scope) {
  if (!Var || !Scope)
    return false;
  ExprMutationAnalyzer Analyzer(*Scope, Var->getASTContext());
  return Analyzer.isPointeeMutated(Var);
}

} // namespace kopt
