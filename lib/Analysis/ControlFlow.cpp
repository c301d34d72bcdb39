//===- ControlFlow.cpp - Which statements run every time ------------------===//

#include "kopt/Analysis/ControlFlow.h"

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

} // namespace kopt
