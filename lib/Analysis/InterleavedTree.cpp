//===- InterleavedTree.cpp - Trees that pair neighbours first -------------===//
//
// NVIDIA's reductions #1 and #2, the block sum beginners write:
//
//   for (unsigned s = 1; s < blockDim.x; s *= 2) {
//     if (t % (2 * s) == 0) A[t] += A[t + s];      // or i = 2 * s * t;
//     __syncthreads();                            //    if (i < blockDim.x)
//   }                                             //      A[i] += A[i + s];
//
// (ReductionTree::Interleaved says why warp-reduce may rewrite them exactly.)
//
//===----------------------------------------------------------------------===//

#include "TreeMatch.h"
#include "kopt/Analysis/CudaAST.h"
#include "kopt/Analysis/Mutation.h"

#include "clang/AST/Expr.h"
#include "clang/AST/Stmt.h"

namespace kopt {

using namespace clang;

Decision<ReductionTree> matchInterleaved(const ForStmt *Loop, const VarDecl *S,
                                         const Expr *SizeConst,
                                         const ParentMap &Parents,
                                         const Stmt *Body, ASTContext &AC) {
  const char *StepShape =
      "the interleaved tree's step is not 'if (t % (2 * s) == 0) A[t] = "
      "op(A[t], A[t + s]); __syncthreads();' or 'int i = 2 * s * t; if (i < "
      "blockDim.x) A[i] = op(A[i], A[i + s]); __syncthreads();' with t "
      "threadIdx.x";
  ReductionTree T;
  T.Loop = Loop;
  T.Loc = lineCol(Loop->getBeginLoc(), AC);
  T.Interleaved = true;
  auto Refuse = [&] { return Refusal{StepShape, T.Loc}; };
  const auto *LB = dyn_cast<CompoundStmt>(Loop->getBody());
  if (isModifiedIn(S, Loop->getBody()) || !LB ||
      (LB->size() != 2 && LB->size() != 3) || !isSyncthreads(LB->body_back()))
    return Refuse();
  const auto *If = dyn_cast<IfStmt>(LB->body_begin()[LB->size() - 2]);
  if (!If || If->getElse() || If->getInit() || If->getConditionVariable())
    return Refuse();
  const Stmt *Update = single(If->getThen());
  const auto *Cond = dyn_cast<BinaryOperator>(If->getCond()->IgnoreParens());
  if (!Update || isa<CompoundStmt>(Update) || !Cond)
    return Refuse();
  if (SizeConst) {
    T.ConstSize = SizeConst->getIntegerConstantExpr(AC)->getExtValue();
    T.ConstSizeText = oneLine(sourceText(SizeConst->getSourceRange(), AC));
    T.ConstStartText = "s < " + T.ConstSizeText;
  }
  auto IsThread = [&](const Expr *E) { return isThreadIdxX(E, Body); };
  if (LB->size() == 2) {
    // if (t % (2 * s) == 0), if ((t & (2 * s - 1)) == 0)
    const Expr *X = isIntLiteral(Cond->getRHS(), 0, AC)   ? Cond->getLHS()
                    : isIntLiteral(Cond->getLHS(), 0, AC) ? Cond->getRHS()
                                                          : nullptr;
    const auto *M =
        X ? dyn_cast<BinaryOperator>(X->IgnoreParenImpCasts()) : nullptr;
    const auto *Mask =
        M && M->getOpcode() == BO_And
            ? dyn_cast<BinaryOperator>(M->getRHS()->IgnoreParenImpCasts())
            : nullptr;
    bool Pairs = M && IsThread(M->getLHS()) &&
                 ((M->getOpcode() == BO_Rem && isTwice(M->getRHS(), S, AC)) ||
                  (Mask && Mask->getOpcode() == BO_Sub &&
                   isTwice(Mask->getLHS(), S, AC) &&
                   isIntLiteral(Mask->getRHS(), 1, AC)));
    if (Cond->getOpcode() != BO_EQ || !Pairs)
      return Refuse();
    return finishShape(
        T, Update,
        [&](const Expr *E, const ValueDecl *A) {
          return isOwnSlot(E, A, Body);
        },
        [&](const Expr *E, const ValueDecl *A) {
          return isPartnerSlot(E, A, S, Body);
        },
        StepShape, 0, Parents, Body, AC);
  }
  // int i = 2 * s * t; if (i < blockDim.x)
  const auto *DS = dyn_cast<DeclStmt>(LB->body_front());
  const auto *I = DS && DS->isSingleDecl()
                      ? dyn_cast<VarDecl>(DS->getSingleDecl())
                      : nullptr;
  const auto *Init = I && I->getType()->isIntegerType() && I->getInit()
                         ? dyn_cast<BinaryOperator>(stripCasts(I->getInit()))
                         : nullptr;
  if (!Init || Init->getOpcode() != BO_Mul || isModifiedIn(I, If) ||
      !((isTwice(Init->getLHS(), S, AC) && IsThread(Init->getRHS())) ||
        (isTwice(Init->getRHS(), S, AC) && IsThread(Init->getLHS()))))
    return Refuse();
  const Expr *Bound = Cond->getRHS();
  bool BoundOK = SizeConst ? isIntLiteral(Bound, *T.ConstSize, AC)
                           : isBuiltin(followLocalInit(stripCasts(Bound), Body),
                                       BuiltinVar::BlockDim, 0);
  if (Cond->getOpcode() != BO_LT ||
      referencedVar(stripCasts(Cond->getLHS())) != I || !BoundOK)
    return Refuse();
  auto IsI = [&](const Expr *E) { return referencedVar(stripCasts(E)) == I; };
  return finishShape(
      T, Update,
      [&](const Expr *E, const ValueDecl *A) {
        const auto *Sub =
            dyn_cast<ArraySubscriptExpr>(E->IgnoreParenImpCasts());
        return Sub && subscriptBase(Sub) == A && IsI(Sub->getIdx());
      },
      [&](const Expr *E, const ValueDecl *A) {
        const auto *Sub =
            dyn_cast<ArraySubscriptExpr>(E->IgnoreParenImpCasts());
        const auto *Add =
            Sub ? dyn_cast<BinaryOperator>(stripCasts(Sub->getIdx())) : nullptr;
        auto IsS = [&](const Expr *X) {
          return referencedVar(stripCasts(X)) == S;
        };
        return Add && subscriptBase(Sub) == A && Add->getOpcode() == BO_Add &&
               ((IsI(Add->getLHS()) && IsS(Add->getRHS())) ||
                (IsS(Add->getLHS()) && IsI(Add->getRHS())));
      },
      StepShape, 0, Parents, Body, AC);
}

} // namespace kopt
