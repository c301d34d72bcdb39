//===- E2m1Values.cpp - Values, conversions and calls of the interpreter ===//
//
// The arithmetic half of the e2m1 interpreter: how values convert, compare
// and combine, and the library calls it knows (memcpy, fabsf, signbit, ...).
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

std::string Interpreter::text(const Stmt *S) const {
  std::string T = sourceText(S->getSourceRange(), AC);
  if (T.size() > 40)
    T = T.substr(0, 37) + "...";
  return T;
}

std::nullopt_t Interpreter::fail(const Stmt *S, const Twine &Msg) {
  if (Why.empty())
    Why = Msg.str();
  (void)S;
  return std::nullopt;
}

std::nullopt_t Interpreter::unsupported(const Stmt *S) {
  return fail(S, "'" + text(S) + "' is not an operation the proof covers");
}

std::nullopt_t Interpreter::usesArgument(const Stmt *S) {
  return fail(S, "it computes with its argument ('" + text(S) +
                     "'), not only compares it with constants");
}

int64_t Interpreter::truncate(QualType T, int64_t V) const {
  if (T->isBooleanType())
    return V != 0;
  unsigned Width = AC.getIntWidth(T);
  if (Width >= 64)
    return V;
  uint64_t Mask = (uint64_t(1) << Width) - 1;
  uint64_t U = uint64_t(V) & Mask;
  if (T->isSignedIntegerOrEnumerationType() && (U >> (Width - 1)))
    U |= ~Mask;
  return int64_t(U);
}

double Interpreter::roundTo(QualType T, double V) {
  if (T->isSpecificBuiltinType(BuiltinType::Float))
    return static_cast<double>(static_cast<float>(V));
  return V;
}

std::optional<Value> Interpreter::convert(const Value &V, QualType T,
                                          const Stmt *At) {
  T = T.getCanonicalType().getUnqualifiedType();
  if (V.K == Value::Unset)
    return fail(At, "it reads '" + text(At) + "' before it is set");
  if (T->isBooleanType()) {
    if (V.K == Value::Int)
      return Value::makeInt(V.I != 0);
    if (V.K == Value::Float)
      return Value::makeInt(V.F != 0);
    return usesArgument(At);
  }
  if (T->isIntegralOrEnumerationType()) {
    if (V.K == Value::Int)
      return Value::makeInt(truncate(T, V.I));
    if (V.K == Value::Float) {
      if (!std::isfinite(V.F) || std::fabs(V.F) >= 9.2e18)
        return fail(At, "it converts an out-of-range float to an integer");
      return Value::makeInt(truncate(T, static_cast<int64_t>(V.F)));
    }
    if (V.K == Value::Bits && AC.getIntWidth(T) == 32)
      return V;
    if (V.K == Value::Bits)
      return fail(At, "it uses bits of its argument other than the sign "
                      "bit ('" +
                          text(At) + "')");
    return usesArgument(At);
  }
  if (T->isRealFloatingType()) {
    if (V.K == Value::Int) {
      double D = static_cast<double>(V.I);
      return Value::makeFloat(Value::Float, roundTo(T, D));
    }
    if (V.K == Value::Float)
      return Value::makeFloat(Value::Float, roundTo(T, V.F));
    if ((V.K == Value::X || V.K == Value::AbsX) &&
        (T->isSpecificBuiltinType(BuiltinType::Float) ||
         T->isSpecificBuiltinType(BuiltinType::Double)))
      return V; // float -> double is exact; X is a float already
    return usesArgument(At);
  }
  return unsupported(At);
}

bool Interpreter::step(const Stmt *S) {
  if (++Steps > 100000) {
    fail(S, "it does not finish within 100000 steps");
    return false;
  }
  return true;
}

bool Interpreter::isLibraryFunction(const FunctionDecl *Callee,
                                    const SourceManager &SM) {
  return !SM.isInMainFile(SM.getExpansionLoc(Callee->getLocation()));
}

const VarDecl *Interpreter::namedVar(const Expr *E) {
  if (const auto *R = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts()))
    return dyn_cast<VarDecl>(R->getDecl());
  return nullptr;
}

std::optional<Value> Interpreter::evalCall(const CallExpr *C) {
  const FunctionDecl *Callee = C->getDirectCallee();
  if (!Callee || !isLibraryFunction(Callee, AC.getSourceManager()))
    return fail(C, "it calls '" + text(C->getCallee()) +
                       "', which the proof does not look into");
  if (!Callee->getDeclName().isIdentifier())
    return unsupported(C);
  StringRef Name = Callee->getName();
  if (Name == "memcpy" || Name == "__builtin_memcpy") {
    // memcpy(&bits, &x, 4): bits holds the pattern of x.
    if (C->getNumArgs() != 3)
      return unsupported(C);
    const auto *Dst =
        dyn_cast<UnaryOperator>(C->getArg(0)->IgnoreParenImpCasts());
    const auto *Src =
        dyn_cast<UnaryOperator>(C->getArg(1)->IgnoreParenImpCasts());
    const VarDecl *DstVar = Dst && Dst->getOpcode() == UO_AddrOf
                                ? namedVar(Dst->getSubExpr())
                                : nullptr;
    const VarDecl *SrcVar = Src && Src->getOpcode() == UO_AddrOf
                                ? namedVar(Src->getSubExpr())
                                : nullptr;
    Expr::EvalResult Size;
    if (!DstVar || SrcVar != Param || isa<ParmVarDecl>(DstVar) ||
        !DstVar->getType()->isIntegerType() ||
        AC.getTypeSize(DstVar->getType()) != 32 ||
        !C->getArg(2)->EvaluateAsInt(Size, AC) || Size.Val.getInt() != 4)
      return fail(C, "'" + text(C) +
                         "' is not a copy of the argument's 4 bytes into "
                         "a 32-bit integer");
    Value V;
    V.K = Value::Bits;
    V.B = bitsOfX();
    Vars[DstVar] = V;
    return Value::makeInt(0);
  }
  if (C->getNumArgs() != 1)
    return fail(C, "it calls '" + Name + "', which the proof does not know");
  std::optional<Value> Arg = eval(C->getArg(0));
  if (!Arg)
    return std::nullopt;
  if (Name == "fabsf" || Name == "fabs" || Name == "__builtin_fabsf" ||
      Name == "__builtin_fabs" ||
      (Name == "abs" && C->getType()->isRealFloatingType())) {
    if (Arg->K == Value::X || Arg->K == Value::AbsX)
      return Value::makeFloat(Value::AbsX, std::fabs(Arg->F));
    if (Arg->K == Value::Float)
      return Value::makeFloat(Value::Float, std::fabs(Arg->F));
    return unsupported(C);
  }
  if (Name == "__float_as_uint" || Name == "__float_as_int") {
    if (Arg->K != Value::X)
      return unsupported(C);
    Value V;
    V.K = Value::Bits;
    V.B = bitsOfX();
    return V;
  }
  // Functions of the sign bit and of NaN-ness: constant on every cell.
  bool SignBit = Name == "signbit" || Name == "__signbitf" ||
                 Name == "__builtin_signbit" || Name == "__builtin_signbitf";
  bool IsNaN = Name == "isnan" || Name == "__isnanf" ||
               Name == "__builtin_isnan" || Name == "__builtin_isnanf";
  if (SignBit || IsNaN) {
    if (Arg->K == Value::Unset || Arg->K == Value::Int || Arg->K == Value::Bits)
      return unsupported(C);
    return Value::makeInt(SignBit ? std::signbit(Arg->F) != 0
                                  : std::isnan(Arg->F) != 0);
  }
  return fail(C, "it calls '" + Name + "', which the proof does not know");
}

uint32_t Interpreter::bitsOfX() const {
  uint32_t B;
  std::memcpy(&B, &XValue, sizeof B);
  return B;
}

std::optional<Value> Interpreter::compare(const BinaryOperator *E,
                                          const Value &L, const Value &R) {
  auto Cmp = [&](auto A, auto B) -> bool {
    switch (E->getOpcode()) {
    case BO_LT:
      return A < B;
    case BO_GT:
      return A > B;
    case BO_LE:
      return A <= B;
    case BO_GE:
      return A >= B;
    case BO_EQ:
      return A == B;
    default:
      return A != B;
    }
  };
  if (L.K == Value::Int && R.K == Value::Int) {
    if (E->getLHS()->getType()->isUnsignedIntegerOrEnumerationType())
      return Value::makeInt(Cmp(uint64_t(L.I), uint64_t(R.I)));
    return Value::makeInt(Cmp(L.I, R.I));
  }
  if (L.K == Value::Float && R.K == Value::Float)
    return Value::makeInt(Cmp(L.F, R.F));
  bool LArg = L.K == Value::X || L.K == Value::AbsX;
  bool RArg = R.K == Value::X || R.K == Value::AbsX;
  // x against a constant: the constant becomes a cell boundary.
  if ((LArg && R.K == Value::Float) || (RArg && L.K == Value::Float)) {
    const Value &A = LArg ? L : R;
    double C = LArg ? R.F : L.F;
    if (std::isnan(C))
      return unsupported(E);
    Thresholds->insert(C);
    if (A.K == Value::AbsX)
      Thresholds->insert(-C);
    return Value::makeInt(Cmp(L.F, R.F));
  }
  // x against itself (x != x): depends only on NaN-ness.
  if (LArg && L.K == R.K)
    return Value::makeInt(Cmp(L.F, R.F));
  if (L.tainted() || R.tainted())
    return usesArgument(E);
  return unsupported(E);
}

std::optional<Value> Interpreter::arithmetic(const BinaryOperator *E,
                                             BinaryOperatorKind Op,
                                             const Value &L, const Value &R,
                                             QualType T) {
  // The sign bit of the pattern: bits >> 31, bits & 0x80000000.
  if (L.K == Value::Bits || R.K == Value::Bits) {
    const Value &Bits = L.K == Value::Bits ? L : R;
    const Value &Other = L.K == Value::Bits ? R : L;
    if (Op == BO_Shr && L.K == Value::Bits && R.K == Value::Int && R.I == 31) {
      if (T->isSignedIntegerType())
        return Value::makeInt(int32_t(Bits.B) >> 31);
      return Value::makeInt(Bits.B >> 31);
    }
    if (Op == BO_And && Other.K == Value::Int &&
        (uint64_t(Other.I) & 0xFFFFFFFFu & ~0x80000000u) == 0 &&
        uint32_t(uint64_t(Other.I) >> 32) == 0)
      return Value::makeInt(truncate(T, Bits.B & uint32_t(Other.I)));
    return fail(E, "it uses bits of its argument other than the sign bit "
                   "('" +
                       text(E) + "')");
  }
  if (L.tainted() || R.tainted())
    return usesArgument(E);
  if (L.K == Value::Float && R.K == Value::Float) {
    double V;
    switch (Op) {
    case BO_Add:
      V = L.F + R.F;
      break;
    case BO_Sub:
      V = L.F - R.F;
      break;
    case BO_Mul:
      V = L.F * R.F;
      break;
    case BO_Div:
      V = L.F / R.F;
      break;
    default:
      return unsupported(E);
    }
    return Value::makeFloat(Value::Float, roundTo(T, V));
  }
  if (L.K != Value::Int || R.K != Value::Int)
    return unsupported(E);
  bool Unsigned = T->isUnsignedIntegerOrEnumerationType();
  uint64_t UL = uint64_t(L.I), UR = uint64_t(R.I);
  int64_t V;
  switch (Op) {
  case BO_Add:
    V = int64_t(UL + UR);
    break;
  case BO_Sub:
    V = int64_t(UL - UR);
    break;
  case BO_Mul:
    V = int64_t(UL * UR);
    break;
  case BO_Div:
  case BO_Rem:
    if (R.I == 0)
      return fail(E, "it divides by zero");
    if (Unsigned)
      V = int64_t(Op == BO_Div ? UL / UR : UL % UR);
    else
      V = Op == BO_Div ? L.I / R.I : L.I % R.I;
    break;
  case BO_And:
    V = L.I & R.I;
    break;
  case BO_Or:
    V = L.I | R.I;
    break;
  case BO_Xor:
    V = L.I ^ R.I;
    break;
  case BO_Shl:
  case BO_Shr:
    if (R.I < 0 || R.I >= int64_t(AC.getIntWidth(T)))
      return fail(E, "it shifts by an out-of-range amount");
    if (Op == BO_Shl)
      V = int64_t(UL << R.I);
    else
      V = Unsigned ? int64_t(UL >> R.I) : L.I >> R.I;
    break;
  default:
    return unsupported(E);
  }
  return Value::makeInt(truncate(T, V));
}

std::optional<Value> Interpreter::fromAPValue(const APValue &V, QualType T,
                                              const Stmt *At) {
  if (V.isInt())
    return Value::makeInt(V.getInt().getExtValue());
  if (V.isFloat())
    return Value::makeFloat(Value::Float,
                            roundTo(T, V.getFloat().convertToDouble()));
  return unsupported(At);
}

bool Interpreter::isConstGlobal(const VarDecl *VD) {
  QualType T = VD->getType();
  if (const auto *AT = dyn_cast<ArrayType>(T.getCanonicalType()))
    T = AT->getElementType();
  return VD->hasGlobalStorage() && !VD->isLocalVarDeclOrParm() &&
         T.isConstQualified() && VD->getAnyInitializer();
}

} // namespace e2m1
} // namespace kopt
