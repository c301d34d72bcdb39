//===- LocalPointers.cpp - Row pointers fixed to a parameter --------------===//

#include "kopt/Analysis/LocalPointers.h"
#include "kopt/Analysis/AffineForm.h"
#include "kopt/Analysis/CudaAST.h"
#include "kopt/Analysis/Mutation.h"

#include "clang/AST/Attr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Basic/SourceManager.h"

using namespace clang;

namespace kopt {

namespace {

/// E without parentheses, implicit casts and explicit casts that only add
/// qualifiers (`(const float *)x`).
const Expr *stripNoOpCasts(const Expr *E) {
  while (true) {
    E = E->IgnoreParenImpCasts();
    const auto *Cast = dyn_cast<ExplicitCastExpr>(E);
    if (!Cast || Cast->getCastKind() != CK_NoOp)
      return E;
    E = Cast->getSubExpr();
  }
}

const ParmVarDecl *pointerParam(const Expr *E) {
  const auto *P =
      dyn_cast_or_null<ParmVarDecl>(referencedVar(stripNoOpCasts(E)));
  return P && P->getType()->isPointerType() ? P : nullptr;
}

bool sameElement(QualType Pointer, QualType Other) {
  if (!Pointer->isPointerType() || !Other->isPointerType())
    return false;
  return Pointer->getPointeeType().getCanonicalType().getUnqualifiedType() ==
         Other->getPointeeType().getCanonicalType().getUnqualifiedType();
}

bool mayDiffer(const Expr *E, const Stmt *Scope, unsigned Depth) {
  if (!E || Depth > 16)
    return true;
  E = E->IgnoreParenImpCasts();
  if (std::optional<BuiltinRef> B = matchBuiltin(E))
    return B->Var == BuiltinVar::BlockIdx || B->Var == BuiltinVar::ThreadIdx;
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    const auto *V = dyn_cast<VarDecl>(Ref->getDecl());
    if (!V)
      return !isa<EnumConstantDecl>(Ref->getDecl());
    if (isa<ParmVarDecl>(V))
      return isModifiedIn(V, Scope);
    if (!V->hasLocalStorage())
      return !(V->getType().isConstQualified() ||
               V->hasAttr<CUDAConstantAttr>());
    if (!V->getInit() || V->getType()->isReferenceType() ||
        isModifiedIn(V, Scope))
      return true;
    return mayDiffer(V->getInit(), Scope, Depth + 1);
  }
  if (const auto *Call = dyn_cast<CallExpr>(E)) {
    const FunctionDecl *Callee = Call->getDirectCallee();
    if (!Callee || !isPureFunction(Callee))
      return true;
    for (const Expr *A : Call->arguments())
      if (mayDiffer(A, Scope, Depth + 1))
        return true;
    return false;
  }
  if (isa<IntegerLiteral, CharacterLiteral, CXXBoolLiteralExpr,
          UnaryExprOrTypeTraitExpr>(E))
    return false;
  if (isa<UnaryOperator, BinaryOperator, ConditionalOperator, ExplicitCastExpr>(
          E)) {
    if (const auto *U = dyn_cast<UnaryOperator>(E);
        U && (U->isIncrementDecrementOp() || U->getOpcode() == UO_Deref ||
              U->getOpcode() == UO_AddrOf))
      return true;
    for (const Stmt *Child : E->children())
      if (mayDiffer(dyn_cast<Expr>(Child), Scope, Depth + 1))
        return true;
    return false;
  }
  return true;
}

/// A local pointer variable of Kernel's body (not a parameter, not a
/// reference) to non-volatile memory.
bool localPointerOf(const VarDecl *V, const FunctionDecl *Kernel) {
  return V && Kernel && Kernel->getBody() && !isa<ParmVarDecl>(V) &&
         V->hasLocalStorage() && V->getType()->isPointerType() &&
         !V->getType()->getPointeeType().isVolatileQualified() &&
         V->getParentFunctionOrMethod() == Kernel;
}

/// A local pointer of Kernel that keeps the value of its initializer.
bool fixedLocal(const VarDecl *V, const FunctionDecl *Kernel) {
  return localPointerOf(V, Kernel) && V->getInit() &&
         !isModifiedIn(V, Kernel->getBody());
}

/// The pointer P + offsets that E computes, P a parameter or a local
/// pointer fixed to one; null when E is not such a sum.
const ParmVarDecl *pointerSum(const Expr *E, const FunctionDecl *Kernel,
                              std::vector<const Expr *> &Offsets,
                              unsigned Depth) {
  E = stripNoOpCasts(E);
  if (Depth > 8)
    return nullptr;
  if (const ParmVarDecl *P = pointerParam(E))
    return P;
  if (const auto *V = dyn_cast_or_null<VarDecl>(referencedVar(E)))
    return fixedLocal(V, Kernel)
               ? pointerSum(V->getInit(), Kernel, Offsets, Depth + 1)
               : nullptr;
  const Expr *Base = nullptr, *Offset = nullptr;
  if (const auto *Add = dyn_cast<BinaryOperator>(E);
      Add && Add->getOpcode() == BO_Add) {
    bool LeftPointer = Add->getLHS()->getType()->isPointerType();
    Base = LeftPointer ? Add->getLHS() : Add->getRHS();
    Offset = LeftPointer ? Add->getRHS() : Add->getLHS();
  } else if (const auto *Addr = dyn_cast<UnaryOperator>(E);
             Addr && Addr->getOpcode() == UO_AddrOf) {
    if (const auto *Sub =
            dyn_cast<ArraySubscriptExpr>(Addr->getSubExpr()->IgnoreParens())) {
      Base = Sub->getBase();
      Offset = Sub->getIdx();
    }
  }
  if (!Base || !Offset->getType()->isIntegerType() ||
      !sameElement(Base->getType(), E->getType()) ||
      hasSideEffects(Offset, Kernel->getASTContext()))
    return nullptr;
  Offsets.push_back(Offset);
  return pointerSum(Base, Kernel, Offsets, Depth + 1);
}

/// V holding Value, a parameter of V's element type plus offsets.
std::optional<LocalPointer> pointerValue(const VarDecl *V, const Expr *Value,
                                         const FunctionDecl *Kernel) {
  LocalPointer L;
  L.Var = V;
  L.Param = pointerSum(Value, Kernel, L.Offsets, 0);
  if (!L.Param || !sameElement(L.Param->getType(), V->getType()))
    return std::nullopt;
  return L;
}

} // namespace

std::optional<LocalPointer> matchLocalPointer(const VarDecl *V,
                                              const FunctionDecl *Kernel) {
  if (!fixedLocal(V, Kernel))
    return std::nullopt;
  return pointerValue(V, V->getInit(), Kernel);
}

namespace {

/// The value V holds at Use when V is a local pointer of Kernel declared
/// in a statement of the kernel body's outermost block and assigned again
/// only by whole statements `V = E;` of that block: the initializer or the
/// last such assignment before the statement holding Use, which must not
/// change V. Null otherwise.
const Expr *reachingValue(const VarDecl *V, const Stmt *Use,
                          const FunctionDecl *Kernel) {
  const auto *Body = dyn_cast_or_null<CompoundStmt>(Kernel->getBody());
  if (!Body || !Use || !localPointerOf(V, Kernel))
    return nullptr;
  const SourceManager &SM = Kernel->getASTContext().getSourceManager();
  auto Holds = [&](const Stmt *S) {
    return !SM.isBeforeInTranslationUnit(Use->getBeginLoc(),
                                         S->getBeginLoc()) &&
           !SM.isBeforeInTranslationUnit(S->getEndLoc(), Use->getEndLoc());
  };
  bool Declared = false;
  const Expr *Value = nullptr;
  for (const Stmt *S : Body->body()) {
    if (Holds(S))
      return Declared && !isModifiedIn(V, S) ? Value : nullptr;
    if (const auto *DS = dyn_cast<DeclStmt>(S);
        DS && llvm::is_contained(DS->decls(), V)) {
      Declared = true;
      Value = V->getInit();
      continue;
    }
    const auto *Assign = dyn_cast<BinaryOperator>(S);
    if (Declared && Assign && Assign->getOpcode() == BO_Assign &&
        referencedVar(Assign->getLHS()) == V &&
        !isModifiedIn(V, Assign->getRHS())) {
      Value = Assign->getRHS();
      continue;
    }
    if (Declared && isModifiedIn(V, S))
      return nullptr;
  }
  return nullptr;
}

} // namespace

std::optional<LocalPointer> matchLocalPointerAt(const VarDecl *V,
                                                const Stmt *Use,
                                                const FunctionDecl *Kernel) {
  if (std::optional<LocalPointer> L = matchLocalPointer(V, Kernel))
    return L;
  if (!V || !Kernel)
    return std::nullopt;
  const Expr *Value = reachingValue(V, Use, Kernel);
  if (!Value)
    return std::nullopt;
  return pointerValue(V, Value, Kernel);
}

bool mayDifferBetweenBlocks(const Expr *E, const Stmt *Scope) {
  return mayDiffer(E, Scope, 0);
}

const ValueDecl *pointerRoot(const Expr *E, const Stmt *Body) {
  for (unsigned Depth = 0; E && Depth < 16; ++Depth) {
    E = E->IgnoreParenCasts();
    if (const auto *B = dyn_cast<BinaryOperator>(E)) {
      if (!B->isAdditiveOp())
        return nullptr;
      E = B->getLHS()->getType()->isPointerType() ? B->getLHS() : B->getRHS();
      continue;
    }
    if (const auto *U = dyn_cast<UnaryOperator>(E)) {
      const auto *A =
          U->getOpcode() == UO_AddrOf
              ? dyn_cast<ArraySubscriptExpr>(U->getSubExpr()->IgnoreParens())
              : nullptr;
      E = A ? A->getBase() : nullptr;
      continue;
    }
    const auto *Ref = dyn_cast<DeclRefExpr>(E);
    if (!Ref)
      return nullptr;
    const auto *V = dyn_cast<VarDecl>(Ref->getDecl());
    if (V && !isa<ParmVarDecl>(V) && V->hasLocalStorage() && V->getInit() &&
        V->getType()->isPointerType() && !isModifiedIn(V, Body)) {
      E = V->getInit();
      continue;
    }
    return Ref->getDecl();
  }
  return nullptr;
}

} // namespace kopt
