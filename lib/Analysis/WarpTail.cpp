//===- WarpTail.cpp - The warp-synchronous rounds after a tree loop -------===//
//
// NVIDIA's reduction #5 and the code that copies it stop the shared-memory
// tree's loop above a warp and finish in one warp without barriers:
//
//   for (unsigned s = blockDim.x / 2; s > 32; s >>= 1) { ... }
//   if (tid < 32) warpReduce(sdata, tid);
//
//   __device__ void warpReduce(volatile float *s, int t) {
//     s[t] += s[t + 32]; s[t] += s[t + 16]; ... s[t] += s[t + 1];
//   }
//
// The rounds are the tree's last ones (K, K/2, ..., 1), written so that the
// threads of the warp run them in lockstep. Since Volta they do not: without
// __syncwarp between rounds a thread may read a slot its neighbour already
// rewrote, a race whose result the memory model leaves open; the tree the
// rounds spell is one of those results, and the one the author meant. The
// tail may be a helper over a pointer (volatile or not) and an index, or
// written inline (on the array or on a volatile pointer to it), with or
// without __syncwarp() between rounds. Each round must combine like the
// loop's step.
//
//===----------------------------------------------------------------------===//

#include "kopt/Analysis/CudaAST.h"
#include "kopt/Analysis/ReductionTree.h"

#include "clang/AST/Expr.h"
#include "clang/AST/Stmt.h"

#include <functional>

namespace kopt {

using namespace clang;

namespace {

/// How the tail names the array and the thread's index.
struct TailNames {
  std::function<bool(const Expr *)> IsArray;
  std::function<bool(const Expr *)> IsIndex;
};

const Decl *referenced(const Expr *E) {
  const auto *Ref = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
  return Ref ? Ref->getDecl() : nullptr;
}

/// `X[t + Offset]` (or `X[Offset + t]`; `X[t]` for Offset 0).
bool isSlot(const Expr *E, const TailNames &N, int64_t Offset,
            const ASTContext &AC) {
  const auto *S = dyn_cast<ArraySubscriptExpr>(E->IgnoreParenImpCasts());
  if (!S || !N.IsArray(S->getBase()))
    return false;
  const Expr *I = S->getIdx()->IgnoreParenImpCasts();
  if (Offset == 0)
    return N.IsIndex(I);
  const auto *B = dyn_cast<BinaryOperator>(I);
  if (!B || B->getOpcode() != BO_Add)
    return false;
  return (N.IsIndex(B->getLHS()) && isIntLiteral(B->getRHS(), Offset, AC)) ||
         (N.IsIndex(B->getRHS()) && isIntLiteral(B->getLHS(), Offset, AC));
}

/// One round: X[t] = X[t] op X[t + Offset], as the loop's step combines.
bool isRound(const Stmt *S, const ReductionTree &T, const TailNames &N,
             int64_t Offset, const ASTContext &AC) {
  const auto *UB = dyn_cast_or_null<BinaryOperator>(S);
  if (!UB || !isSlot(UB->getLHS(), N, 0, AC))
    return false;
  auto Operands = [&](const Expr *X, const Expr *Y) {
    return (isSlot(X, N, 0, AC) && isSlot(Y, N, Offset, AC)) ||
           (isSlot(Y, N, 0, AC) && isSlot(X, N, Offset, AC));
  };
  if (UB->getOpcode() == BO_AddAssign)
    return T.Add && isSlot(UB->getRHS(), N, Offset, AC);
  if (UB->getOpcode() != BO_Assign)
    return false;
  const Expr *R = UB->getRHS()->IgnoreParenImpCasts();
  if (const auto *B = dyn_cast<BinaryOperator>(R))
    return T.Add && B->getOpcode() == BO_Add &&
           Operands(B->getLHS(), B->getRHS());
  if (const auto *C = dyn_cast<CallExpr>(R))
    return T.Callee && C->getNumArgs() == 2 && C->getDirectCallee() &&
           C->getDirectCallee()->getCanonicalDecl() ==
               T.Callee->getCanonicalDecl() &&
           Operands(C->getArg(0), C->getArg(1));
  return false;
}

bool isSyncwarp(const Stmt *S) {
  const auto *C = dyn_cast_or_null<CallExpr>(S);
  const FunctionDecl *FD = C ? C->getDirectCallee() : nullptr;
  return FD && FD->getIdentifier() && FD->getName() == "__syncwarp";
}

/// The rounds K, K/2, ..., 1 in order, __syncwarp() allowed between them;
/// Alias, when given, may be declared first (`volatile float *v = A;`).
bool areRounds(const CompoundStmt *C, const ReductionTree &T, TailNames N,
               int64_t K, const ValueDecl *Array, const ASTContext &AC) {
  auto It = C->body_begin(), End = C->body_end();
  const VarDecl *Alias = nullptr;
  if (Array && It != End)
    if (const auto *DS = dyn_cast<DeclStmt>(*It); DS && DS->isSingleDecl())
      if (const auto *V = dyn_cast<VarDecl>(DS->getSingleDecl());
          V && V->getType()->isPointerType() && V->getInit() &&
          referenced(V->getInit()) == Array) {
        Alias = V;
        ++It;
        N.IsArray = [Array, Alias](const Expr *E) {
          const Decl *D = referenced(E);
          return D == Array || D == Alias;
        };
      }
  int64_t Offset = K;
  for (; It != End; ++It) {
    if (isSyncwarp(*It))
      continue;
    if (Offset == 0 || !isRound(*It, T, N, Offset, AC))
      return false;
    Offset /= 2;
  }
  return Offset == 0 && (!Alias || !isModifiedIn(Alias, C));
}

} // namespace

Decision<const IfStmt *> matchWarpTail(const Stmt *After,
                                       const ReductionTree &T, int64_t K,
                                       const Stmt *Body, ASTContext &AC) {
  std::string Shape =
      "the tree loop stops above " + std::to_string(K) +
      ", and the statement after it is not the last rounds in one warp ('if "
      "(t < " +
      std::to_string(K) + ") f(A, t);' with f doing 'A[t] += A[t + " +
      std::to_string(K) +
      "]' down to 'A[t] += A[t + 1]', or those rounds "
      "inline)";
  auto Refuse = [&] { return Refusal{Shape, T.Loc}; };
  const auto *If = dyn_cast_or_null<IfStmt>(After);
  if (!If || If->getElse() || If->getInit() || If->getConditionVariable())
    return Refuse();
  const auto *Cond = dyn_cast<BinaryOperator>(If->getCond()->IgnoreParens());
  if (!Cond || Cond->getOpcode() != BO_LT ||
      !isThreadIdxX(Cond->getLHS(), Body) ||
      !isIntLiteral(Cond->getRHS(), K, AC))
    return Refuse();
  TailNames Here{[&](const Expr *E) { return referenced(E) == T.Array; },
                 [&](const Expr *E) { return isThreadIdxX(E, Body); }};
  const Stmt *Then = If->getThen();
  if (const auto *C = dyn_cast<CompoundStmt>(Then)) {
    if (C->size() != 1) {
      if (!areRounds(C, T, Here, K, T.Array, AC))
        return Refuse();
      return If;
    }
    Then = C->body_front();
  }
  // A helper f(A, t) whose body is the rounds over its parameters.
  const auto *Call = dyn_cast<CallExpr>(Then);
  const FunctionDecl *G = Call ? Call->getDirectCallee() : nullptr;
  if (!G || !G->hasBody() || G->isTemplated() || G->getNumParams() != 2 ||
      Call->getNumArgs() != 2 || !Here.IsArray(Call->getArg(0)) ||
      !Here.IsIndex(Call->getArg(1)))
    return Refuse();
  const ParmVarDecl *P = G->getParamDecl(0), *I = G->getParamDecl(1);
  const auto *GBody = dyn_cast<CompoundStmt>(G->getDefinition()->getBody());
  if (!P->getType()->isPointerType() || !I->getType()->isIntegerType() ||
      !GBody)
    return Refuse();
  TailNames There{[P](const Expr *E) { return referenced(E) == P; },
                  [I](const Expr *E) { return referenced(E) == I; }};
  if (!areRounds(GBody, T, There, K, nullptr, AC))
    return Refuse();
  return If;
}

} // namespace kopt
