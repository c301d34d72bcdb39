//===- TreeShape.cpp - Pieces of a shared-memory tree's shape -------------===//
//
// The loop head, slots and barriers of a tree (declared in ReductionTree.h),
// shared by the tree matcher (ReductionTree.cpp) and SelectionReduction.
//
//===----------------------------------------------------------------------===//

#include "kopt/Analysis/BodyHazards.h"
#include "kopt/Analysis/ReductionTree.h"

#include <algorithm>
#include <cstdint>

using namespace clang;
using namespace llvm;

namespace kopt {

// Pieces of the tree's shape (declared in ReductionTree.h).

/// Types __shfl_xor_sync moves as one value.
bool isShuffleType(QualType T) {
  const auto *B = T->getAs<BuiltinType>();
  if (!B)
    return false;
  switch (B->getKind()) {
  case BuiltinType::Float:
  case BuiltinType::Double:
  case BuiltinType::Int:
  case BuiltinType::UInt:
  case BuiltinType::Long:
  case BuiltinType::ULong:
  case BuiltinType::LongLong:
  case BuiltinType::ULongLong:
    return true;
  default:
    return false;
  }
}

bool isThreadIdxX(const Expr *E, const Stmt *Scope) {
  return isBuiltin(followLocalInit(stripCasts(E), Scope), BuiltinVar::ThreadIdx,
                   0);
}

bool isSyncthreads(const Stmt *S) {
  const auto *C = dyn_cast_or_null<CallExpr>(S);
  if (!C || !isBarrierCall(C))
    return false;
  const FunctionDecl *FD = C->getDirectCallee();
  return FD->getName() == "__syncthreads";
}

bool isIntLiteral(const Expr *E, int64_t V, const ASTContext &Ctx) {
  Expr::EvalResult R;
  E = stripCasts(E);
  return E->EvaluateAsInt(R, Ctx) && R.Val.getInt() == V;
}

/// `A[...]` with A a plain reference to a variable or parameter: the
/// subscripted declaration, or null.
const ValueDecl *subscriptBase(const Expr *E) {
  const auto *S = dyn_cast<ArraySubscriptExpr>(E->IgnoreParenImpCasts());
  if (!S)
    return nullptr;
  const auto *Ref = dyn_cast<DeclRefExpr>(S->getBase()->IgnoreParenImpCasts());
  return Ref ? Ref->getDecl() : nullptr;
}

/// `A[t]` with t threadIdx.x.
bool isOwnSlot(const Expr *E, const ValueDecl *A, const Stmt *Scope) {
  const auto *S = dyn_cast<ArraySubscriptExpr>(E->IgnoreParenImpCasts());
  return S && subscriptBase(S) == A && isThreadIdxX(S->getIdx(), Scope);
}

/// `A[t + s]` or `A[s + t]`.
bool isPartnerSlot(const Expr *E, const ValueDecl *A, const VarDecl *Step,
                   const Stmt *Scope) {
  const auto *S = dyn_cast<ArraySubscriptExpr>(E->IgnoreParenImpCasts());
  if (!S || subscriptBase(S) != A)
    return false;
  const auto *Add = dyn_cast<BinaryOperator>(stripCasts(S->getIdx()));
  if (!Add || Add->getOpcode() != BO_Add)
    return false;
  return (isThreadIdxX(Add->getLHS(), Scope) &&
          referencedVar(Add->getRHS()) == Step) ||
         (isThreadIdxX(Add->getRHS(), Scope) &&
          referencedVar(Add->getLHS()) == Step);
}

/// The loop head `for (T s = blockDim.x / 2; s > 0; s >>= 1)`: its variable.
const VarDecl *matchTreeHead(const ForStmt *For, const ASTContext &Ctx,
                             const VarDecl **SizeVar, const Stmt *Scope,
                             const Expr **SizeConst, bool *StartIsConst,
                             int64_t *StopAbove) {
  const auto *DS = dyn_cast_or_null<DeclStmt>(For->getInit());
  if (!DS || !DS->isSingleDecl())
    return nullptr;
  const auto *S = dyn_cast<VarDecl>(DS->getSingleDecl());
  if (!S || !S->getInit() || !S->getType()->isIntegerType())
    return nullptr;
  if (SizeConst)
    *SizeConst = nullptr;
  if (StartIsConst)
    *StartIsConst = false;
  const Expr *Start = stripCasts(S->getInit());
  const auto *Half = dyn_cast<BinaryOperator>(Start);
  bool IsHalf =
      Half &&
      ((Half->getOpcode() == BO_Div && isIntLiteral(Half->getRHS(), 2, Ctx)) ||
       (Half->getOpcode() == BO_Shr && isIntLiteral(Half->getRHS(), 1, Ctx)));
  const Expr *Size = IsHalf ? Half->getLHS() : nullptr;
  if (!IsHalf) {
    // `for (int s = 128; ...)`, `s = HALF_BLOCK`: a constant start that
    // names no variable a thread could change.
    const auto *V = dyn_cast_or_null<VarDecl>(referencedVar(Start));
    if (!SizeConst || !StartIsConst || Start->isValueDependent() ||
        !Start->isIntegerConstantExpr(Ctx) ||
        (V && (V->hasLocalStorage() || isa<ParmVarDecl>(V))))
      return nullptr;
    *SizeConst = Start;
    *StartIsConst = true;
    if (SizeVar)
      *SizeVar = nullptr;
  }
  const auto *B =
      Size ? dyn_cast_or_null<VarDecl>(referencedVar(Size)) : nullptr;
  bool Local = B && (B->hasLocalStorage() || isa<ParmVarDecl>(B));
  bool IsBlockDimX = Size && isBuiltin(Size, BuiltinVar::BlockDim, 0);
  if (!Size) {
    // The constant start, taken above.
  } else if (!IsBlockDimX && !Local && SizeConst && !Size->isValueDependent() &&
             Size->isIntegerConstantExpr(Ctx)) {
    // `BLOCK / 2` with BLOCK a macro or a constexpr.
    *SizeConst = Size;
    if (SizeVar)
      *SizeVar = nullptr;
  } else if (!IsBlockDimX) {
    if (!SizeVar || !Scope || !B || !B->getType()->isIntegerType() ||
        !B->hasLocalStorage() || B->getType().isVolatileQualified() ||
        B->getType()->isReferenceType() || isModifiedIn(B, Scope))
      return nullptr;
    bool IsBlockDim = !isa<ParmVarDecl>(B) && B->getInit() &&
                      isBuiltin(B->getInit(), BuiltinVar::BlockDim, 0);
    *SizeVar = IsBlockDim ? nullptr : B;
  } else if (SizeVar) {
    *SizeVar = nullptr;
  }
  // s > 0, s >= 1, 0 < s, s != 0.
  const auto *Cond =
      For->getCond()
          ? dyn_cast<BinaryOperator>(For->getCond()->IgnoreParenImpCasts())
          : nullptr;
  if (!Cond)
    return nullptr;
  bool CondOK = false;
  if (referencedVar(Cond->getLHS()) == S)
    CondOK =
        ((Cond->getOpcode() == BO_GT || Cond->getOpcode() == BO_NE) &&
         isIntLiteral(Cond->getRHS(), 0, Ctx)) ||
        (Cond->getOpcode() == BO_GE && isIntLiteral(Cond->getRHS(), 1, Ctx));
  else if (referencedVar(Cond->getRHS()) == S)
    CondOK = Cond->getOpcode() == BO_LT && isIntLiteral(Cond->getLHS(), 0, Ctx);
  if (StopAbove)
    *StopAbove = 0;
  // s > 32: the rounds below are a warp-synchronous tail after the loop.
  if (!CondOK && StopAbove && referencedVar(Cond->getLHS()) == S &&
      Cond->getOpcode() == BO_GT) {
    Expr::EvalResult R;
    if (!Cond->getRHS()->isValueDependent() &&
        Cond->getRHS()->EvaluateAsInt(R, Ctx) && R.Val.getInt() >= 1 &&
        R.Val.getInt() <= 32 && R.Val.getInt().isPowerOf2()) {
      *StopAbove = R.Val.getInt().getExtValue();
      CondOK = true;
    }
  }
  if (!CondOK)
    return nullptr;
  // s >>= 1, s /= 2, s = s >> 1, s = s / 2.
  const auto *Inc = dyn_cast_or_null<BinaryOperator>(For->getInc());
  if (!Inc || referencedVar(Inc->getLHS()) != S)
    return nullptr;
  if (Inc->getOpcode() == BO_ShrAssign && isIntLiteral(Inc->getRHS(), 1, Ctx))
    return S;
  if (Inc->getOpcode() == BO_DivAssign && isIntLiteral(Inc->getRHS(), 2, Ctx))
    return S;
  if (Inc->getOpcode() == BO_Assign) {
    const auto *H = dyn_cast<BinaryOperator>(stripCasts(Inc->getRHS()));
    if (H && referencedVar(H->getLHS()) == S &&
        ((H->getOpcode() == BO_Shr && isIntLiteral(H->getRHS(), 1, Ctx)) ||
         (H->getOpcode() == BO_Div && isIntLiteral(H->getRHS(), 2, Ctx))))
      return S;
  }
  return nullptr;
}

bool isTwice(const Expr *E, const VarDecl *S, const ASTContext &Ctx) {
  const auto *B = dyn_cast<BinaryOperator>(stripCasts(E));
  if (!B)
    return false;
  auto IsS = [&](const Expr *X) { return referencedVar(stripCasts(X)) == S; };
  switch (B->getOpcode()) {
  case BO_Mul:
    return (IsS(B->getLHS()) && isIntLiteral(B->getRHS(), 2, Ctx)) ||
           (IsS(B->getRHS()) && isIntLiteral(B->getLHS(), 2, Ctx));
  case BO_Shl:
    return IsS(B->getLHS()) && isIntLiteral(B->getRHS(), 1, Ctx);
  case BO_Add:
    return IsS(B->getLHS()) && IsS(B->getRHS());
  default:
    return false;
  }
}

const VarDecl *matchDoublingHead(const ForStmt *For, const ASTContext &Ctx,
                                 const Stmt *Scope, const Expr **SizeConst) {
  *SizeConst = nullptr;
  const auto *DS = dyn_cast_or_null<DeclStmt>(For->getInit());
  const auto *S = DS && DS->isSingleDecl()
                      ? dyn_cast<VarDecl>(DS->getSingleDecl())
                      : nullptr;
  if (!S || !S->getInit() || !S->getType()->isIntegerType() ||
      !isIntLiteral(S->getInit(), 1, Ctx))
    return nullptr;
  const auto *Cond =
      For->getCond()
          ? dyn_cast<BinaryOperator>(For->getCond()->IgnoreParenImpCasts())
          : nullptr;
  if (!Cond || Cond->getOpcode() != BO_LT ||
      referencedVar(stripCasts(Cond->getLHS())) != S)
    return nullptr;
  const Expr *N = Cond->getRHS();
  if (!isBuiltin(followLocalInit(stripCasts(N), Scope), BuiltinVar::BlockDim,
                 0)) {
    const auto *V = dyn_cast_or_null<VarDecl>(referencedVar(stripCasts(N)));
    if (N->isValueDependent() || !N->isIntegerConstantExpr(Ctx) ||
        (V && (V->hasLocalStorage() || isa<ParmVarDecl>(V))))
      return nullptr;
    *SizeConst = stripCasts(N);
  }
  const auto *Inc = dyn_cast_or_null<BinaryOperator>(For->getInc());
  if (!Inc || referencedVar(Inc->getLHS()) != S)
    return nullptr;
  bool Doubles =
      (Inc->getOpcode() == BO_MulAssign &&
       isIntLiteral(Inc->getRHS(), 2, Ctx)) ||
      (Inc->getOpcode() == BO_ShlAssign &&
       isIntLiteral(Inc->getRHS(), 1, Ctx)) ||
      (Inc->getOpcode() == BO_AddAssign &&
       referencedVar(stripCasts(Inc->getRHS())) == S) ||
      (Inc->getOpcode() == BO_Assign && isTwice(Inc->getRHS(), S, Ctx));
  return Doubles ? S : nullptr;
}

/// A loop that halves its variable each iteration (`s >>= 1`, `s /= 2`, ...)
/// and contains a barrier: what a shared-memory tree looks like, whether or
/// not it has the shape this pass handles.
bool looksLikeTree(const ForStmt *For, ASTContext &AC) {
  const auto *Inc = dyn_cast_or_null<BinaryOperator>(For->getInc());
  if (!Inc || !referencedVar(Inc->getLHS()))
    return false;
  bool Halves =
      Inc->getOpcode() == BO_ShrAssign || Inc->getOpcode() == BO_DivAssign;
  if (Inc->getOpcode() == BO_Assign)
    if (const auto *H = dyn_cast<BinaryOperator>(stripCasts(Inc->getRHS())))
      Halves = H->getOpcode() == BO_Shr || H->getOpcode() == BO_Div;
  if (!Halves)
    return false;
  return For->getBody() &&
         firstHazard(For->getBody(), AC, {BodyHazard::Barrier}).has_value();
}

/// Statements directly in a compound statement (`{ X; }` is X).
const Stmt *single(const Stmt *S) {
  while (const auto *C = dyn_cast_or_null<CompoundStmt>(S)) {
    if (C->size() != 1)
      return S;
    S = C->body_front();
  }
  return S;
}

} // namespace kopt
