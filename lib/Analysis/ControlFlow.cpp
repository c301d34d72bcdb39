//===- ControlFlow.cpp - Which statements run every time ------------------===//

#include "kopt/Analysis/ControlFlow.h"
#include "kopt/Analysis/CudaAST.h"
#include "kopt/Analysis/Mutation.h"

#include "clang/AST/Attr.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"

using namespace clang;

namespace kopt {

const Stmt *guardOf(const Stmt *S, const Stmt *Body, ParentMap &Parents) {
  const Stmt *Child = S;
  while (Child && Child != Body) {
    const Stmt *P = Parents.getParent(const_cast<Stmt *>(Child));
    if (!P)
      return Child; // not inside Body: nothing is known
    if (const auto *If = dyn_cast<IfStmt>(P)) {
      if (Child != If->getCond() && Child != If->getInit())
        return If->getCond();
    } else if (const auto *C = dyn_cast<AbstractConditionalOperator>(P)) {
      if (Child != C->getCond())
        return C->getCond();
    } else if (const auto *B = dyn_cast<BinaryOperator>(P)) {
      if (B->isLogicalOp() && Child == B->getRHS())
        return B->getLHS();
    } else if (const auto *F = dyn_cast<ForStmt>(P)) {
      if (Child != F->getInit())
        return F->getCond() ? static_cast<const Stmt *>(F->getCond()) : F;
    } else if (const auto *W = dyn_cast<WhileStmt>(P)) {
      if (Child != W->getCond())
        return W->getCond();
    } else if (isa<DoStmt, CXXForRangeStmt, SwitchStmt, SwitchCase, LambdaExpr>(
                   P)) {
      return P;
    }
    Child = P;
  }
  return nullptr;
}

bool runsWheneverBodyRuns(const Stmt *S, const Stmt *Body, ParentMap &Parents) {
  return guardOf(S, Body, Parents) == nullptr;
}

bool isDiscardedStatement(const Stmt *E, const ParentMap &Parents) {
  const Stmt *P = Parents.getParent(const_cast<Stmt *>(E));
  while (isa_and_nonnull<ExprWithCleanups>(P)) {
    E = P;
    P = Parents.getParent(const_cast<Stmt *>(E));
  }
  if (isa_and_nonnull<CompoundStmt, AttributedStmt, LabelStmt, SwitchCase>(P))
    return true;
  if (const auto *If = dyn_cast_or_null<IfStmt>(P))
    return If->getThen() == E || If->getElse() == E;
  if (const auto *For = dyn_cast_or_null<ForStmt>(P))
    return For->getBody() == E;
  if (const auto *While = dyn_cast_or_null<WhileStmt>(P))
    return While->getBody() == E;
  if (const auto *Do = dyn_cast_or_null<DoStmt>(P))
    return Do->getBody() == E;
  return false;
}

namespace {

bool uniformIn(const Expr *E, const FunctionDecl *F, int Depth) {
  if (Depth > 8)
    return false;
  if (std::optional<BuiltinRef> R = matchBuiltin(E))
    return R->Var != BuiltinVar::ThreadIdx;
  E = E->IgnoreParenImpCasts();
  if (isa<IntegerLiteral, FloatingLiteral, CXXBoolLiteralExpr,
          CharacterLiteral>(E))
    return true;
  if (const auto *R = dyn_cast<DeclRefExpr>(E)) {
    if (isa<EnumConstantDecl>(R->getDecl()))
      return true;
    const auto *V = dyn_cast<VarDecl>(R->getDecl());
    if (!V || !V->hasLocalStorage() || V->getType()->isReferenceType() ||
        isModifiedIn(V, F->getBody()))
      return false;
    if (isa<ParmVarDecl>(V))
      return F->hasAttr<CUDAGlobalAttr>();
    return V->getInit() && uniformIn(V->getInit(), F, Depth + 1);
  }
  if (const auto *C = dyn_cast<CastExpr>(E))
    return uniformIn(C->getSubExpr(), F, Depth);
  if (const auto *U = dyn_cast<UnaryOperator>(E))
    return !U->isIncrementDecrementOp() && U->getOpcode() != UO_Deref &&
           U->getOpcode() != UO_AddrOf && uniformIn(U->getSubExpr(), F, Depth);
  if (const auto *B = dyn_cast<BinaryOperator>(E))
    return !B->isAssignmentOp() && B->getOpcode() != BO_Comma &&
           uniformIn(B->getLHS(), F, Depth) && uniformIn(B->getRHS(), F, Depth);
  if (const auto *C = dyn_cast<ConditionalOperator>(E))
    return uniformIn(C->getCond(), F, Depth) &&
           uniformIn(C->getTrueExpr(), F, Depth) &&
           uniformIn(C->getFalseExpr(), F, Depth);
  return false;
}

} // namespace

bool isBlockUniform(const Expr *E, const FunctionDecl *F) {
  return E && F && F->getBody() && uniformIn(E, F, 0);
}

} // namespace kopt
