//===- BlockGuard.cpp - A kernel's guard on its block's extents -----------===//

#include "kopt/Analysis/BlockGuard.h"
#include "kopt/Analysis/CudaAST.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "clang/AST/Stmt.h"

using namespace clang;

namespace kopt {

namespace {

/// `__trap();`, alone or as the only statement of a compound.
bool onlyTraps(const Stmt *S) {
  if (const auto *C = dyn_cast_or_null<CompoundStmt>(S)) {
    if (C->size() != 1)
      return false;
    S = C->body_front();
  }
  const auto *Call = dyn_cast_or_null<CallExpr>(S);
  const FunctionDecl *F = Call ? Call->getDirectCallee() : nullptr;
  return F && F->getName() == "__trap" && Call->getNumArgs() == 0;
}

/// Adds the extents that `blockDim.D != C || ...` checks to G; false when
/// the condition has another form.
bool collectChecks(const Expr *E, const ASTContext &Ctx, BlockExtents &G,
                   unsigned &Seen) {
  const auto *B = dyn_cast<BinaryOperator>(E->IgnoreParens());
  if (!B)
    return false;
  if (B->getOpcode() == BO_LOr)
    return collectChecks(B->getLHS(), Ctx, G, Seen) &&
           collectChecks(B->getRHS(), Ctx, G, Seen);
  if (B->getOpcode() != BO_NE)
    return false;
  std::optional<BuiltinRef> Ref = matchBuiltin(B->getLHS());
  Expr::EvalResult Value;
  if (!Ref || Ref->Var != BuiltinVar::BlockDim ||
      !B->getRHS()->EvaluateAsInt(Value, Ctx))
    return false;
  int64_t V = Value.Val.getInt().getExtValue();
  (Ref->Dim == 0 ? G.X : Ref->Dim == 1 ? G.Y : G.Z) = V;
  Seen |= 1u << Ref->Dim;
  return true;
}

} // namespace

std::optional<BlockExtents> findBlockGuard(const FunctionDecl *Kernel) {
  const auto *Body =
      dyn_cast_or_null<CompoundStmt>(Kernel ? Kernel->getBody() : nullptr);
  if (!Body || Body->body_empty())
    return std::nullopt;
  const auto *If = dyn_cast<IfStmt>(Body->body_front());
  if (!If || If->getElse() || If->getInit() || If->getConditionVariable() ||
      !onlyTraps(If->getThen()))
    return std::nullopt;
  BlockExtents G;
  unsigned Seen = 0;
  if (!collectChecks(If->getCond(), Kernel->getASTContext(), G, Seen) ||
      Seen != 7)
    return std::nullopt;
  return G;
}

} // namespace kopt
