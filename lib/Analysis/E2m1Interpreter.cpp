//===- E2m1Interpreter.cpp - Expressions and statements of a helper -----===//
//
// The control half of the e2m1 interpreter: evaluation of expressions and
// execution of statements, with a step limit.
//
//===----------------------------------------------------------------------===//

#include "E2m1Interpreter.h"

#include "clang/AST/Attr.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/StringExtras.h"

#include <cmath>
#include <cstring>

using namespace clang;
using namespace llvm;

namespace kopt {
namespace e2m1 {

std::optional<int64_t> Interpreter::run(float XValue,
                                        std::set<double> &Thresholds) {
  this->XValue = XValue;
  this->Thresholds = &Thresholds;
  Vars.clear();
  Arrays.clear();
  Steps = 0;
  Returned.reset();
  Flow F = exec(FD->getBody());
  if (F == Flow::Error)
    return std::nullopt;
  if (!Returned) {
    fail(FD->getBody(), "it can end without returning a value");
    return std::nullopt;
  }
  return Returned->I;
}

std::optional<Value> Interpreter::evalSubscript(const ArraySubscriptExpr *E) {
  const VarDecl *VD = namedVar(E->getBase());
  if (!VD || !isa<ConstantArrayType>(VD->getType().getCanonicalType()))
    return unsupported(E);
  std::optional<Value> Index = eval(E->getIdx());
  if (!Index)
    return std::nullopt;
  if (Index->K != Value::Int)
    return Index->tainted() ? usesArgument(E) : unsupported(E);
  auto It = Arrays.find(VD);
  if (It != Arrays.end()) {
    if (Index->I < 0 || uint64_t(Index->I) >= It->second.size())
      return fail(E, "it reads '" + text(E) + "' out of bounds");
    return It->second[Index->I];
  }
  if (!isConstGlobal(VD))
    return fail(E, "it reads '" + VD->getName() +
                       "', which is neither a local nor a const table");
  const APValue *Init = VD->evaluateValue();
  const auto *AT = cast<ConstantArrayType>(VD->getType().getCanonicalType());
  if (!Init || !Init->isArray() || Index->I < 0 ||
      uint64_t(Index->I) >= AT->getSize().getZExtValue())
    return fail(E, "it reads '" + text(E) + "', which is not a constant");
  unsigned I = unsigned(Index->I);
  const APValue &Elt = I < Init->getArrayInitializedElts()
                           ? Init->getArrayInitializedElt(I)
                           : Init->getArrayFiller();
  return fromAPValue(Elt, AT->getElementType(), E);
}

std::optional<Value> Interpreter::eval(const Expr *E) {
  if (!step(E))
    return std::nullopt;
  if (const auto *P = dyn_cast<ParenExpr>(E))
    return eval(P->getSubExpr());
  if (const auto *C = dyn_cast<ConstantExpr>(E))
    return eval(C->getSubExpr());
  if (const auto *L = dyn_cast<IntegerLiteral>(E))
    return Value::makeInt(truncate(E->getType(), L->getValue().getSExtValue()));
  if (const auto *L = dyn_cast<CharacterLiteral>(E))
    return Value::makeInt(L->getValue());
  if (const auto *L = dyn_cast<CXXBoolLiteralExpr>(E))
    return Value::makeInt(L->getValue());
  if (const auto *L = dyn_cast<FloatingLiteral>(E))
    return Value::makeFloat(
        Value::Float, roundTo(E->getType(), L->getValueAsApproximateDouble()));
  if (isa<UnaryExprOrTypeTraitExpr>(E)) {
    Expr::EvalResult R;
    if (E->EvaluateAsInt(R, AC))
      return Value::makeInt(R.Val.getInt().getExtValue());
    return unsupported(E);
  }
  if (isa<ImplicitValueInitExpr>(E)) {
    if (E->getType()->isRealFloatingType())
      return Value::makeFloat(Value::Float, 0);
    return Value::makeInt(0);
  }
  if (const auto *R = dyn_cast<DeclRefExpr>(E)) {
    if (const auto *EC = dyn_cast<EnumConstantDecl>(R->getDecl()))
      return Value::makeInt(EC->getInitVal().getExtValue());
    const auto *VD = dyn_cast<VarDecl>(R->getDecl());
    if (!VD)
      return unsupported(E);
    if (VD == Param)
      return Value::makeFloat(Value::X, XValue);
    auto It = Vars.find(VD);
    if (It != Vars.end()) {
      if (It->second.K == Value::Unset)
        return fail(E, "it reads '" + VD->getName() + "' before it is set");
      return It->second;
    }
    if (isConstGlobal(VD) && !VD->getType()->isArrayType())
      if (const APValue *V = VD->evaluateValue())
        return fromAPValue(*V, VD->getType(), E);
    return fail(E, "it reads '" + VD->getName() +
                       "', which is neither a local nor a constant");
  }
  if (const auto *C = dyn_cast<CastExpr>(E)) {
    switch (C->getCastKind()) {
    case CK_LValueToRValue:
    case CK_NoOp:
      return eval(C->getSubExpr());
    case CK_IntegralCast:
    case CK_IntegralToBoolean:
    case CK_FloatingToBoolean:
    case CK_FloatingCast:
    case CK_FloatingToIntegral:
    case CK_IntegralToFloating: {
      std::optional<Value> V = eval(C->getSubExpr());
      if (!V)
        return std::nullopt;
      return convert(*V, C->getType(), C);
    }
    default:
      return unsupported(E);
    }
  }
  if (const auto *S = dyn_cast<ArraySubscriptExpr>(E))
    return evalSubscript(S);
  if (const auto *C = dyn_cast<CallExpr>(E))
    return evalCall(C);
  if (const auto *C = dyn_cast<ConditionalOperator>(E)) {
    std::optional<Value> Cond = eval(C->getCond());
    if (!Cond)
      return std::nullopt;
    if (Cond->K != Value::Int)
      return Cond->tainted() ? usesArgument(C->getCond())
                             : unsupported(C->getCond());
    return eval(Cond->I ? C->getTrueExpr() : C->getFalseExpr());
  }
  if (const auto *U = dyn_cast<UnaryOperator>(E))
    return evalUnary(U);
  if (const auto *B = dyn_cast<BinaryOperator>(E))
    return evalBinary(B);
  return unsupported(E);
}

std::optional<Value> Interpreter::evalUnary(const UnaryOperator *U) {
  if (U->isIncrementDecrementOp()) {
    const VarDecl *VD = namedVar(U->getSubExpr());
    auto It = VD ? Vars.find(VD) : Vars.end();
    if (It == Vars.end() || It->second.K != Value::Int)
      return unsupported(U);
    int64_t Old = It->second.I;
    It->second.I =
        truncate(VD->getType(), U->isIncrementOp() ? Old + 1 : Old - 1);
    return Value::makeInt(U->isPrefix() ? It->second.I : Old);
  }
  std::optional<Value> V = eval(U->getSubExpr());
  if (!V)
    return std::nullopt;
  if (V->tainted())
    return usesArgument(U);
  switch (U->getOpcode()) {
  case UO_Plus:
    return V;
  case UO_Minus:
    if (V->K == Value::Float)
      return Value::makeFloat(Value::Float, -V->F);
    if (V->K == Value::Int)
      return Value::makeInt(truncate(U->getType(), -V->I));
    return unsupported(U);
  case UO_Not:
    if (V->K == Value::Int)
      return Value::makeInt(truncate(U->getType(), ~V->I));
    return unsupported(U);
  case UO_LNot:
    if (V->K == Value::Int)
      return Value::makeInt(!V->I);
    return unsupported(U);
  default:
    return unsupported(U);
  }
}

std::optional<Value> Interpreter::assign(const Expr *LHS, const Value &V,
                                         const Stmt *At) {
  const VarDecl *VD = namedVar(LHS);
  if (VD == Param)
    return fail(At, "it modifies its argument");
  if (!VD || !Vars.count(VD))
    return fail(At,
                "it writes '" + text(LHS) + "', which is not a local scalar");
  std::optional<Value> C = convert(V, VD->getType(), At);
  if (!C)
    return std::nullopt;
  Vars[VD] = *C;
  return C;
}

std::optional<Value> Interpreter::evalBinary(const BinaryOperator *B) {
  BinaryOperatorKind Op = B->getOpcode();
  if (Op == BO_Comma) {
    if (!eval(B->getLHS()))
      return std::nullopt;
    return eval(B->getRHS());
  }
  if (Op == BO_LAnd || Op == BO_LOr) {
    std::optional<Value> L = eval(B->getLHS());
    if (!L)
      return std::nullopt;
    if (L->K != Value::Int)
      return unsupported(B);
    if ((Op == BO_LAnd) != (L->I != 0))
      return Value::makeInt(Op == BO_LOr);
    std::optional<Value> R = eval(B->getRHS());
    if (!R)
      return std::nullopt;
    if (R->K != Value::Int)
      return unsupported(B);
    return Value::makeInt(R->I != 0);
  }
  if (Op == BO_Assign) {
    std::optional<Value> R = eval(B->getRHS());
    if (!R)
      return std::nullopt;
    return assign(B->getLHS(), *R, B);
  }
  if (const auto *CA = dyn_cast<CompoundAssignOperator>(B)) {
    const VarDecl *VD = namedVar(B->getLHS());
    if (!VD || !Vars.count(VD))
      return fail(B, "it writes '" + text(B->getLHS()) +
                         "', which is not a local scalar");
    std::optional<Value> R = eval(B->getRHS());
    if (!R)
      return std::nullopt;
    std::optional<Value> L = convert(Vars[VD], CA->getComputationLHSType(), B);
    if (!L)
      return std::nullopt;
    std::optional<Value> V =
        arithmetic(B, BinaryOperator::getOpForCompoundAssignment(Op), *L, *R,
                   CA->getComputationResultType());
    if (!V)
      return std::nullopt;
    return assign(B->getLHS(), *V, B);
  }
  std::optional<Value> L = eval(B->getLHS());
  if (!L)
    return std::nullopt;
  std::optional<Value> R = eval(B->getRHS());
  if (!R)
    return std::nullopt;
  if (B->isComparisonOp())
    return compare(B, *L, *R);
  return arithmetic(B, Op, *L, *R, B->getType());
}

Interpreter::Flow Interpreter::declare(const VarDecl *VD) {
  QualType T = VD->getType().getCanonicalType();
  if (const auto *AT = dyn_cast<ConstantArrayType>(T)) {
    const auto *Init = dyn_cast_or_null<InitListExpr>(
        VD->getInit() ? VD->getInit()->IgnoreImplicit() : nullptr);
    if (!Init) {
      fail(VD->getInit() ? static_cast<const Stmt *>(VD->getInit())
                         : FD->getBody(),
           "its array '" + VD->getName() + "' has no initializer list");
      return Flow::Error;
    }
    std::vector<Value> Elts;
    uint64_t Size = AT->getSize().getZExtValue();
    if (Size > 4096) {
      fail(Init, "its array '" + VD->getName() + "' is too large");
      return Flow::Error;
    }
    for (uint64_t I = 0; I < Size; ++I) {
      const Expr *EI =
          I < Init->getNumInits() ? Init->getInit(I) : Init->getArrayFiller();
      Value Zero = AT->getElementType()->isRealFloatingType()
                       ? Value::makeFloat(Value::Float, 0)
                       : Value::makeInt(0);
      std::optional<Value> V = EI ? eval(EI) : Zero;
      if (!V)
        return Flow::Error;
      if (V->tainted()) {
        usesArgument(EI);
        return Flow::Error;
      }
      std::optional<Value> C = convert(*V, AT->getElementType(), Init);
      if (!C)
        return Flow::Error;
      Elts.push_back(*C);
    }
    Arrays[VD] = std::move(Elts);
    return Flow::Normal;
  }
  if (VD->isStaticLocal() && !VD->getType().isConstQualified()) {
    fail(FD->getBody(), "it keeps state in the static '" + VD->getName() + "'");
    return Flow::Error;
  }
  if (!T->isScalarType() || T->isPointerType() || T->isReferenceType()) {
    fail(FD->getBody(),
         "its local '" + VD->getName() + "' is not an arithmetic scalar");
    return Flow::Error;
  }
  Vars[VD] = Value();
  if (const Expr *Init = VD->getInit()) {
    std::optional<Value> V = eval(Init);
    if (!V)
      return Flow::Error;
    std::optional<Value> C = convert(*V, VD->getType(), Init);
    if (!C)
      return Flow::Error;
    Vars[VD] = *C;
  }
  return Flow::Normal;
}

std::optional<bool> Interpreter::condition(const Expr *E) {
  std::optional<Value> V = eval(E);
  if (!V)
    return std::nullopt;
  if (V->K != Value::Int) {
    if (V->tainted())
      usesArgument(E);
    else
      unsupported(E);
    return std::nullopt;
  }
  return V->I != 0;
}

Interpreter::Flow Interpreter::loop(const Expr *Cond, const Stmt *Body,
                                    const Expr *Inc, bool TestFirst) {
  for (bool First = true;; First = false) {
    if (Cond && (TestFirst || !First)) {
      std::optional<bool> C = condition(Cond);
      if (!C)
        return Flow::Error;
      if (!*C)
        return Flow::Normal;
    }
    Flow F = exec(Body);
    if (F == Flow::Error || F == Flow::Return)
      return F;
    if (F == Flow::Break)
      return Flow::Normal;
    if (Inc && !eval(Inc))
      return Flow::Error;
  }
}

Interpreter::Flow Interpreter::exec(const Stmt *S) {
  if (!S)
    return Flow::Normal;
  if (!step(S))
    return Flow::Error;
  if (const auto *C = dyn_cast<CompoundStmt>(S)) {
    for (const Stmt *Child : C->body()) {
      Flow F = exec(Child);
      if (F != Flow::Normal)
        return F;
    }
    return Flow::Normal;
  }
  if (const auto *D = dyn_cast<DeclStmt>(S)) {
    for (const Decl *Dl : D->decls()) {
      const auto *VD = dyn_cast<VarDecl>(Dl);
      if (!VD) {
        fail(S, "it declares something other than a variable");
        return Flow::Error;
      }
      if (declare(VD) == Flow::Error)
        return Flow::Error;
    }
    return Flow::Normal;
  }
  if (const auto *If = dyn_cast<IfStmt>(S)) {
    if (If->getConditionVariable() || If->isConsteval()) {
      unsupported(S);
      return Flow::Error;
    }
    if (If->getInit()) {
      Flow F = exec(If->getInit());
      if (F != Flow::Normal)
        return F;
    }
    std::optional<bool> C = condition(If->getCond());
    if (!C)
      return Flow::Error;
    return exec(*C ? If->getThen() : If->getElse());
  }
  if (const auto *R = dyn_cast<ReturnStmt>(S)) {
    if (!R->getRetValue()) {
      unsupported(S);
      return Flow::Error;
    }
    std::optional<Value> V = eval(R->getRetValue());
    if (!V)
      return Flow::Error;
    std::optional<Value> C = convert(*V, FD->getReturnType(), R);
    if (!C)
      return Flow::Error;
    if (C->K != Value::Int) {
      fail(R, "its result depends on its argument other than through "
              "comparisons");
      return Flow::Error;
    }
    Returned = *C;
    return Flow::Return;
  }
  if (const auto *For = dyn_cast<ForStmt>(S)) {
    if (For->getConditionVariable()) {
      unsupported(S);
      return Flow::Error;
    }
    if (Flow F = exec(For->getInit()); F != Flow::Normal)
      return F;
    return loop(For->getCond(), For->getBody(), For->getInc(), true);
  }
  if (const auto *W = dyn_cast<WhileStmt>(S)) {
    if (W->getConditionVariable()) {
      unsupported(S);
      return Flow::Error;
    }
    return loop(W->getCond(), W->getBody(), nullptr, true);
  }
  if (const auto *Do = dyn_cast<DoStmt>(S))
    return loop(Do->getCond(), Do->getBody(), nullptr, false);
  if (isa<BreakStmt>(S))
    return Flow::Break;
  if (isa<ContinueStmt>(S))
    return Flow::Continue;
  if (isa<NullStmt>(S))
    return Flow::Normal;
  if (const auto *E = dyn_cast<Expr>(S))
    return eval(E) ? Flow::Normal : Flow::Error;
  unsupported(S);
  return Flow::Error;
}

} // namespace e2m1
} // namespace kopt
