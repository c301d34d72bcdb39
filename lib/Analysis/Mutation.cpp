//===- Mutation.cpp - Is a variable changed behind a pass's back? ---------===//

#include "kopt/Analysis/Mutation.h"

#include "clang/Analysis/Analyses/ExprMutationAnalyzer.h"

#include <map>
#include <memory>

using namespace clang;

namespace kopt {

namespace {

/// One analyzer per scope statement: it memoizes its answers, and the
/// analysis asks about the same kernel body many times.
struct AnalyzerCache {
  std::map<std::pair<const ASTContext *, const Stmt *>,
           std::unique_ptr<ExprMutationAnalyzer>>
      Analyzers;
  /// findMutation(Decl) searches the scope for the declaration's uses each
  /// time it is asked; its answers are kept here.
  std::map<std::pair<const Stmt *, const VarDecl *>, const Stmt *> Mutations;
};

thread_local AnalyzerCache Cache;

ExprMutationAnalyzer &analyzerFor(const Stmt *Scope, ASTContext &Ctx) {
  std::unique_ptr<ExprMutationAnalyzer> &A = Cache.Analyzers[{&Ctx, Scope}];
  if (!A)
    A = std::make_unique<ExprMutationAnalyzer>(*Scope, Ctx);
  return *A;
}

} // namespace

void resetMutationCache() {
  Cache.Analyzers.clear();
  Cache.Mutations.clear();
}

const Stmt *findMutation(const VarDecl *Var, const Stmt *Scope) {
  if (!Var || !Scope)
    return nullptr;
  auto [It, New] = Cache.Mutations.try_emplace({Scope, Var}, nullptr);
  if (New)
    It->second = analyzerFor(Scope, Var->getASTContext()).findMutation(Var);
  return It->second;
}

bool isMutatedAt(const Expr *E, const Stmt *Scope, ASTContext &Ctx) {
  if (!E || !Scope)
    return false;
  return analyzerFor(Scope, Ctx).isMutated(E);
}

bool isPointeeModifiedIn(const VarDecl *Var, const Stmt *Scope) {
  if (!Var || !Scope)
    return false;
  return analyzerFor(Scope, Var->getASTContext()).isPointeeMutated(Var);
}

} // namespace kopt
