//===- LoopAccumulators.cpp - Variables a loop only accumulates into ------===//
//
// See LoopAccumulators.h. Each write to an outer variable in the loop is
// matched against the update forms; then every reference to an accumulator
// in the loop must lie in one of its own updates, on the updated side or as
// the old value the update reads.
//
//===----------------------------------------------------------------------===//

#include "kopt/Analysis/LoopAccumulators.h"
#include "kopt/Analysis/CudaAST.h"
#include "kopt/Analysis/ReductionTree.h"

#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringSwitch.h"

using namespace clang;
using namespace llvm;

namespace kopt {

std::optional<Accumulator::KindT> minMaxKind(StringRef Callee) {
  return StringSwitch<std::optional<Accumulator::KindT>>(Callee)
      .Case("fmaxf", Accumulator::Max)
      .Case("fmax", Accumulator::Max)
      .Case("max", Accumulator::Max)
      .Case("fminf", Accumulator::Min)
      .Case("fmin", Accumulator::Min)
      .Case("min", Accumulator::Min)
      .Default(std::nullopt);
}

namespace {

/// One matched update `v op= e`: the variable, its kind, the combining
/// function's name for maxima and minima, and the references to v that the
/// update itself makes (the target and the old value it reads).
struct Update {
  const VarDecl *Var = nullptr;
  Accumulator::KindT Kind = Accumulator::Sum;
  std::string Combine;
  SmallVector<const Expr *, 2> OwnRefs;
};

/// `v = f(v, e)` / `v = f(e, v)` for a maximum or minimum f.
std::optional<Update> matchMinMax(const VarDecl *V, const Expr *Target,
                                  const Expr *RHS) {
  const auto *C = dyn_cast<CallExpr>(RHS->IgnoreParenImpCasts());
  const FunctionDecl *F = C ? C->getDirectCallee() : nullptr;
  if (!F || !F->getIdentifier() || C->getNumArgs() != 2)
    return std::nullopt;
  std::optional<Accumulator::KindT> Kind = minMaxKind(F->getName());
  if (!Kind)
    return std::nullopt;
  for (unsigned I = 0; I < 2; ++I)
    if (referencedVar(C->getArg(I)->IgnoreParenImpCasts()) == V)
      return Update{V, *Kind, F->getName().str(), {Target, C->getArg(I)}};
  return std::nullopt;
}

/// `v = fma(a, b, v)` (fmaf, fma, __fmaf_rn, __fma_rn): a sum of products.
std::optional<Update> matchFma(const VarDecl *V, const Expr *Target,
                               const Expr *RHS) {
  const auto *C = dyn_cast<CallExpr>(RHS->IgnoreParenImpCasts());
  const FunctionDecl *F = C ? C->getDirectCallee() : nullptr;
  if (!F || !F->getIdentifier() || C->getNumArgs() != 3 ||
      !is_contained({"fmaf", "fma", "__fmaf_rn", "__fma_rn"}, F->getName()) ||
      referencedVar(C->getArg(2)->IgnoreParenImpCasts()) != V)
    return std::nullopt;
  return Update{V, Accumulator::Sum, "", {Target, C->getArg(2)}};
}

/// A and B, read one right after the other, give the same value: the same
/// code, with no side effects (blockIdx.x is a property read, which
/// Clang's own structural comparison tells apart at each use).
bool sameValue(const Expr *A, const Expr *B, const ASTContext &Ctx) {
  if (hasSideEffects(A, Ctx) || hasSideEffects(B, Ctx))
    return false;
  std::string TA = withoutSpaces(sourceText(A->getSourceRange(), Ctx));
  return !TA.empty() &&
         TA == withoutSpaces(sourceText(B->getSourceRange(), Ctx));
}

/// A selection `v = e` taken when Cond holds: Cond must say that e is
/// greater (a maximum) or smaller (a minimum) than v, as `e > v`, `e >= v`,
/// `v < e`, `v <= e` or their mirror images for a minimum, with e the
/// value assigned. Any other test (`v > e` keeping v, which lets a NaN e
/// in) depends on the order.
std::optional<Update> matchSelect(const VarDecl *V, const Expr *Target,
                                  const Expr *Taken, const Expr *Cond,
                                  const Expr *Kept, const ASTContext &Ctx) {
  const auto *B = dyn_cast<BinaryOperator>(Cond->IgnoreParenImpCasts());
  // e of v's own type: a selection that converts (`int v = e` of a long
  // long e) compares one value and keeps another, and then the order
  // matters.
  if (!B || !B->isRelationalOp() || referencedVar(Taken) == V ||
      Taken->getType().getCanonicalType().getUnqualifiedType() !=
          V->getType().getCanonicalType().getUnqualifiedType())
    return std::nullopt;
  const Expr *L = B->getLHS()->IgnoreParenImpCasts();
  const Expr *R = B->getRHS()->IgnoreParenImpCasts();
  bool Greater = B->getOpcode() == BO_GT || B->getOpcode() == BO_GE;
  const Expr *Old = nullptr;
  if (referencedVar(R) == V && sameValue(L, Taken, Ctx))
    Old = R; // e > v
  else if (referencedVar(L) == V && sameValue(R, Taken, Ctx)) {
    Old = L; // v < e
    Greater = !Greater;
  }
  if (!Old || (Kept && referencedVar(Kept->IgnoreParenImpCasts()) != V))
    return std::nullopt;
  Update U{V, Greater ? Accumulator::Max : Accumulator::Min, "", {Target, Old}};
  if (Kept)
    U.OwnRefs.push_back(Kept);
  return U;
}

/// The update S makes to V, when it is one of the forms of the header.
std::optional<Update> matchUpdate(const Stmt *S, const VarDecl *V,
                                  const IfStmt *Guard, const ASTContext &Ctx) {
  if (const auto *U = dyn_cast<UnaryOperator>(S))
    if (U->isIncrementDecrementOp())
      return Update{V, Accumulator::Sum, "", {U->getSubExpr()}};
  const auto *B = dyn_cast<BinaryOperator>(S);
  if (!B || referencedVar(B->getLHS()->IgnoreParens()) != V)
    return std::nullopt;
  if (B->getOpcode() == BO_AddAssign || B->getOpcode() == BO_SubAssign)
    return Update{V, Accumulator::Sum, "", {B->getLHS()}};
  if (B->getOpcode() != BO_Assign)
    return std::nullopt;
  const Expr *RHS = B->getRHS()->IgnoreParenImpCasts();
  if (Guard) // if (e > v) v = e;
    if (std::optional<Update> U =
            matchSelect(V, B->getLHS(), RHS, Guard->getCond(), nullptr, Ctx))
      return U;
  if (const auto *T = dyn_cast<ConditionalOperator>(RHS)) // v = e > v ? e : v
    return matchSelect(V, B->getLHS(), T->getTrueExpr()->IgnoreParenImpCasts(),
                       T->getCond(), T->getFalseExpr(), Ctx);
  if (std::optional<Update> U = matchFma(V, B->getLHS(), RHS))
    return U;
  if (const auto *Sum = dyn_cast<BinaryOperator>(RHS)) {
    bool Add = Sum->getOpcode() == BO_Add;
    if (!Add && Sum->getOpcode() != BO_Sub)
      return std::nullopt;
    const Expr *L = Sum->getLHS()->IgnoreParenImpCasts();
    const Expr *R = Sum->getRHS()->IgnoreParenImpCasts();
    if (referencedVar(L) == V)
      return Update{V, Accumulator::Sum, "", {B->getLHS(), L}};
    if (Add && referencedVar(R) == V)
      return Update{V, Accumulator::Sum, "", {B->getLHS(), R}};
    return std::nullopt;
  }
  return matchMinMax(V, B->getLHS(), RHS);
}

} // namespace

std::optional<Accumulator::KindT> updateKind(const Stmt *S, const VarDecl *V,
                                             const ASTContext &Ctx) {
  if (std::optional<Update> U = matchUpdate(S, V, nullptr, Ctx))
    return U->Kind;
  return std::nullopt;
}

Decision<std::vector<Accumulator>>
loopAccumulators(const ForStmt *Loop, ASTContext &Ctx,
                 ArrayRef<const VarDecl *> Vouched) {
  auto Refuse = [&](const Stmt *At, const Twine &Why) {
    return Refusal{Why.str(), lineCol(At->getBeginLoc(), Ctx)};
  };
  std::optional<CountedLoop> CL = matchCountedLoop(Loop);
  SmallPtrSet<const VarDecl *, 8> Inside = varsDeclaredIn(Loop);
  std::vector<Accumulator> Result;
  DenseMap<const VarDecl *, unsigned> Index;
  SmallPtrSet<const Expr *, 8> Allowed; // references updates make
  std::optional<Refusal> Why;
  // `if (c) v = e;` with nothing else in the if: the guard of a selection.
  DenseMap<const Stmt *, const IfStmt *> Guards;
  forEachSubStmt(Loop, [&](const Stmt *S) {
    const auto *If = dyn_cast<IfStmt>(S);
    if (!If || If->getElse() || If->hasInitStorage() || If->hasVarStorage())
      return;
    const Stmt *Then = If->getThen();
    if (const auto *CS = dyn_cast<CompoundStmt>(Then); CS && CS->size() == 1)
      Then = CS->body_front();
    Guards[Then] = If;
  });
  forEachSubStmt(Loop, [&](const Stmt *S) {
    if (Why || S == Loop->getInc())
      return;
    std::optional<WriteOf> W = writeOf(S);
    const VarDecl *V = W ? localWriteTarget(W->Target) : nullptr;
    if (!V || Inside.count(V) || (CL && V == CL->Var) ||
        llvm::is_contained(Vouched, V))
      return;
    std::optional<Update> U = referencedVar(W->Target->IgnoreParens()) == V
                                  ? matchUpdate(S, V, Guards.lookup(S), Ctx)
                                  : std::nullopt;
    if (!U) {
      Why = Refuse(S, "'" + oneLine(sourceText(S->getSourceRange(), Ctx)) +
                          "' writes '" + V->getName() +
                          "', which the loop carries, other than as a sum "
                          "(+=, -=, ++, fmaf) or a maximum or minimum "
                          "(fmaxf, max, fminf, min, 'if (e > v) v = e')");
      return;
    }
    if (!isShuffleType(V->getType().getCanonicalType())) {
      Why = Refuse(S, "the accumulator '" + V->getName() + "' is a '" +
                          V->getType().getAsString() +
                          "', not a 32- or 64-bit integer, float or double");
      return;
    }
    auto [It, New] = Index.try_emplace(V, Result.size());
    if (New) {
      Accumulator A;
      A.Var = V;
      A.Kind = U->Kind;
      A.Combine = U->Combine;
      // A selection keeps the first (or last) of equal values: -0.0 or
      // +0.0 depends on the order.
      A.Exact = (U->Kind != Accumulator::Sum && !U->Combine.empty()) ||
                !V->getType()->isRealFloatingType();
      Result.push_back(A);
    } else if (Result[It->second].Kind != U->Kind ||
               Result[It->second].Combine != U->Combine) {
      Why = Refuse(S,
                   "'" + V->getName() + "' is updated in two ways in the loop");
      return;
    }
    Allowed.insert(U->OwnRefs.begin(), U->OwnRefs.end());
  });
  if (Why)
    return *Why;
  // Nothing but an accumulator's own updates reads it: no partial value
  // flows into another value, a condition, an index or a store.
  for (const Accumulator &A : Result)
    for (const DeclRefExpr *R : referencesTo(Loop, A.Var, Ctx)) {
      bool Own = false;
      for (const Expr *E : Allowed)
        Own |= E->IgnoreParenImpCasts() == R;
      if (!Own)
        return Refuse(R, "the loop reads the partial value of '" +
                             A.Var->getName() + "' (at '" +
                             oneLine(sourceText(R->getSourceRange(), Ctx)) +
                             "'), which another thread's share would change");
    }
  return Result;
}

std::string combineExpr(const Accumulator &A, StringRef X, StringRef Y) {
  if (A.Kind == Accumulator::Sum)
    return (X + " + " + Y).str();
  if (!A.Combine.empty())
    return (A.Combine + "(" + X + ", " + Y + ")").str();
  return (Y + (A.Kind == Accumulator::Max ? " > " : " < ") + X + " ? " + Y +
          " : " + X)
      .str();
}

std::string foldStatement(const Accumulator &A, StringRef Type,
                          StringRef Other) {
  std::string V = A.Var->getNameAsString();
  if (A.Kind == Accumulator::Sum)
    return V + " += " + Other.str() + ";";
  if (!A.Combine.empty())
    return V + " = " + combineExpr(A, V, Other) + ";";
  return "{ const " + Type.str() + " kopt_y = " + Other.str() + "; " + V +
         " = " + combineExpr(A, V, "kopt_y") + "; }";
}

std::string restartStatement(const Accumulator &A, StringRef Others,
                             StringRef Indent) {
  if (A.Kind != Accumulator::Sum)
    return "";
  return ("if (" + Others + ")\n" + Indent + "  " + A.Var->getNameAsString() +
          " = 0;\n")
      .str();
}

} // namespace kopt
