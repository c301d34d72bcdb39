//===- Fp4Intrinsics.cpp - e2m1 branch chains to cvt.e2m1x2 ---------------===//
//
// NVFP4 kernels written for GPUs without an FP4 conversion instruction round
// each float to e2m1 with a hand-written helper (a chain of comparisons
// against the midpoints of the e2m1 grid) and pack two codes per byte:
//
//   q[e / 2] = float_to_e2m1(v[e] * mul) | (float_to_e2m1(v[e + 1] * mul) <<
//   4);
//
// Blackwell's family-specific targets (sm_100a, sm_120a, ...) convert two
// floats in one instruction, cvt.rn.satfinite.e2m1x2.f32, which
// __nv_cvt_float2_to_fp4x2 (cuda_fp4.h) emits there; on other targets that
// intrinsic is a software emulation with the same results.
//
// Legality is a proof that the helper computes exactly what the intrinsic
// computes, for every float:
//   * The helper is interpreted on its AST, with its argument x as a symbol
//     that may only be compared with constants (directly or as fabsf(x)) or
//     reduced to its sign bit (memcpy/__float_as_uint and `>> 31`,
//     signbit, isnan). Anything else (arithmetic on x, other bits of x,
//     calls) refuses the helper.
//   * Under that restriction the helper is constant on every cell of the
//     partition of the floats by the constants it compares with (each
//     constant c, and -c for |x|, is a cell of its own; the open intervals
//     between them; +0 and -0; +-inf; NaN by sign). Adding the breakpoints of
//     e2m1 round-to-nearest-even makes the reference constant on the cells
//     too, so comparing helper and reference on one float of each cell
//     compares them on all floats. Comparisons met on the way add constants;
//     the partition is refined until no new constant appears.
//   * The reference: sign bit of x (also for -0.0), magnitude rounded to the
//     nearest of {0, 0.5, 1, 1.5, 2, 3, 4, 6} with ties to the even code,
//     6 for everything from 6 up (satfinite); a NaN gives +6 (0x7), as
//     cuda_fp4.h documents for the intrinsic and its host emulation does.
//
// Two differences are repaired rather than refused, in the emitted wrapper:
// a helper that takes the sign from `x < 0` encodes -0.0 as +0 (the
// intrinsic gets x + 0.0f, which is x except that -0.0 becomes +0.0), and a
// helper that takes the sign bit of a NaN encodes a negative NaN as 0xF (the
// wrapper sets the sign bit for it, unless exact-nan=false).
//
//===----------------------------------------------------------------------===//

#include "Options.h"
#include "kopt/Pass/Pass.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <set>

using namespace clang;
using namespace llvm;

namespace kopt {

namespace {

//===----------------------------------------------------------------------===//
// The e2m1 reference
//===----------------------------------------------------------------------===//

/// Midpoints of the e2m1 grid {0, 0.5, 1, 1.5, 2, 3, 4, 6}: where round to
/// nearest changes its code.
constexpr double Midpoints[] = {0.25, 0.75, 1.25, 1.75, 2.5, 3.5, 5.0};

/// What __nv_cvt_float_to_fp4(X, __NV_E2M1, cudaRoundNearest) returns.
int e2m1Reference(float X) {
  if (std::isnan(X))
    return 0x7;
  static const double Grid[8] = {0, 0.5, 1, 1.5, 2, 3, 4, 6};
  int Sign = std::signbit(X) ? 0x8 : 0x0;
  double A = std::fabs(static_cast<double>(X));
  if (A >= 6)
    return Sign | 7;
  int Best = 0;
  double BestDist = std::numeric_limits<double>::infinity();
  for (int C = 0; C < 8; ++C) {
    double D = std::fabs(A - Grid[C]);
    if (D < BestDist || (D == BestDist && C % 2 == 0)) {
      BestDist = D;
      Best = C;
    }
  }
  return Sign | Best;
}

/// Shortest decimal that reads back as V (as a float when V is one).
std::string formatNumber(double V) {
  bool IsFloat = static_cast<double>(static_cast<float>(V)) == V;
  for (int Digits = 1; Digits <= 17; ++Digits) {
    std::string S = formatv("{0}", format("%.*g", Digits, V)).str();
    double Back = std::strtod(S.c_str(), nullptr);
    if (IsFloat ? static_cast<float>(Back) == static_cast<float>(V) : Back == V)
      return S;
  }
  return formatv("{0}", format("%.17g", V)).str();
}

std::string formatCode(int64_t C) { return utohexstr(uint64_t(C), false); }

//===----------------------------------------------------------------------===//
// The interpreter
//===----------------------------------------------------------------------===//

/// A value of the helper's computation. Int and Float are ordinary values.
/// X is the argument, AbsX its magnitude and Bits its bit pattern: each
/// carries the concrete value of the float being run, but may only be used
/// in ways that are constant on a cell of the partition (comparisons with
/// constants, which are recorded, and the sign bit).
struct Value {
  enum Kind { Unset, Int, Float, X, AbsX, Bits } K = Unset;
  int64_t I = 0;  ///< Int
  double F = 0;   ///< Float, X, AbsX
  uint32_t B = 0; ///< Bits

  static Value makeInt(int64_t I) {
    Value V;
    V.K = Int;
    V.I = I;
    return V;
  }
  static Value makeFloat(Kind K, double F) {
    Value V;
    V.K = K;
    V.F = F;
    return V;
  }
  bool tainted() const { return K == X || K == AbsX || K == Bits; }
};

class Interpreter {
public:
  Interpreter(const FunctionDecl *FD, ASTContext &AC)
      : FD(FD), Param(FD->getParamDecl(0)), AC(AC) {}

  /// Runs the helper on XValue, adding the constants its argument is
  /// compared with to Thresholds. std::nullopt (with why()) when the helper
  /// does something the proof does not cover.
  std::optional<int64_t> run(float XValue, std::set<double> &Thresholds) {
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

  const std::string &why() const { return Why; }

private:
  enum class Flow { Normal, Return, Break, Continue, Error };

  std::string text(const Stmt *S) const {
    std::string T = sourceText(S->getSourceRange(), AC);
    if (T.size() > 40)
      T = T.substr(0, 37) + "...";
    return T;
  }

  std::nullopt_t fail(const Stmt *S, const Twine &Msg) {
    if (Why.empty())
      Why = Msg.str();
    (void)S;
    return std::nullopt;
  }

  std::nullopt_t unsupported(const Stmt *S) {
    return fail(S, "'" + text(S) + "' is not an operation the proof covers");
  }

  std::nullopt_t usesArgument(const Stmt *S) {
    return fail(S, "it computes with its argument ('" + text(S) +
                       "'), not only compares it with constants");
  }

  /// V truncated to the width and signedness of the integer type T.
  int64_t truncate(QualType T, int64_t V) const {
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

  static double roundTo(QualType T, double V) {
    if (T->isSpecificBuiltinType(BuiltinType::Float))
      return static_cast<double>(static_cast<float>(V));
    return V;
  }

  std::optional<Value> convert(const Value &V, QualType T, const Stmt *At) {
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

  bool step(const Stmt *S) {
    if (++Steps > 100000) {
      fail(S, "it does not finish within 100000 steps");
      return false;
    }
    return true;
  }

  static bool isLibraryFunction(const FunctionDecl *Callee,
                                const SourceManager &SM) {
    return !SM.isInMainFile(SM.getExpansionLoc(Callee->getLocation()));
  }

  /// The local variable (or parameter) E names, if any.
  static const VarDecl *namedVar(const Expr *E) {
    if (const auto *R = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts()))
      return dyn_cast<VarDecl>(R->getDecl());
    return nullptr;
  }

  std::optional<Value> evalCall(const CallExpr *C) {
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
      if (Arg->K == Value::Unset || Arg->K == Value::Int ||
          Arg->K == Value::Bits)
        return unsupported(C);
      return Value::makeInt(SignBit ? std::signbit(Arg->F) != 0
                                    : std::isnan(Arg->F) != 0);
    }
    return fail(C, "it calls '" + Name + "', which the proof does not know");
  }

  uint32_t bitsOfX() const {
    uint32_t B;
    std::memcpy(&B, &XValue, sizeof B);
    return B;
  }

  std::optional<Value> compare(const BinaryOperator *E, const Value &L,
                               const Value &R) {
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

  std::optional<Value> arithmetic(const BinaryOperator *E,
                                  BinaryOperatorKind Op, const Value &L,
                                  const Value &R, QualType T) {
    // The sign bit of the pattern: bits >> 31, bits & 0x80000000.
    if (L.K == Value::Bits || R.K == Value::Bits) {
      const Value &Bits = L.K == Value::Bits ? L : R;
      const Value &Other = L.K == Value::Bits ? R : L;
      if (Op == BO_Shr && L.K == Value::Bits && R.K == Value::Int &&
          R.I == 31) {
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

  /// The value of a global constant (a `const` or `constexpr` variable).
  std::optional<Value> fromAPValue(const APValue &V, QualType T,
                                   const Stmt *At) {
    if (V.isInt())
      return Value::makeInt(V.getInt().getExtValue());
    if (V.isFloat())
      return Value::makeFloat(Value::Float,
                              roundTo(T, V.getFloat().convertToDouble()));
    return unsupported(At);
  }

  static bool isConstGlobal(const VarDecl *VD) {
    QualType T = VD->getType();
    if (const auto *AT = dyn_cast<ArrayType>(T.getCanonicalType()))
      T = AT->getElementType();
    return VD->hasGlobalStorage() && !VD->isLocalVarDeclOrParm() &&
           T.isConstQualified() && VD->getAnyInitializer();
  }

  std::optional<Value> evalSubscript(const ArraySubscriptExpr *E) {
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

  std::optional<Value> eval(const Expr *E) {
    if (!step(E))
      return std::nullopt;
    if (const auto *P = dyn_cast<ParenExpr>(E))
      return eval(P->getSubExpr());
    if (const auto *C = dyn_cast<ConstantExpr>(E))
      return eval(C->getSubExpr());
    if (const auto *L = dyn_cast<IntegerLiteral>(E))
      return Value::makeInt(
          truncate(E->getType(), L->getValue().getSExtValue()));
    if (const auto *L = dyn_cast<CharacterLiteral>(E))
      return Value::makeInt(L->getValue());
    if (const auto *L = dyn_cast<CXXBoolLiteralExpr>(E))
      return Value::makeInt(L->getValue());
    if (const auto *L = dyn_cast<FloatingLiteral>(E))
      return Value::makeFloat(
          Value::Float,
          roundTo(E->getType(), L->getValueAsApproximateDouble()));
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

  std::optional<Value> evalUnary(const UnaryOperator *U) {
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

  std::optional<Value> assign(const Expr *LHS, const Value &V, const Stmt *At) {
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

  std::optional<Value> evalBinary(const BinaryOperator *B) {
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
      std::optional<Value> L =
          convert(Vars[VD], CA->getComputationLHSType(), B);
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

  Flow declare(const VarDecl *VD) {
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
      fail(FD->getBody(),
           "it keeps state in the static '" + VD->getName() + "'");
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

  /// Evaluates a condition to true or false.
  std::optional<bool> condition(const Expr *E) {
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

  Flow loop(const Expr *Cond, const Stmt *Body, const Expr *Inc,
            bool TestFirst) {
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

  Flow exec(const Stmt *S) {
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

  const FunctionDecl *FD;
  const ParmVarDecl *Param;
  ASTContext &AC;
  float XValue = 0;
  std::set<double> *Thresholds = nullptr;
  std::map<const VarDecl *, Value> Vars;
  std::map<const VarDecl *, std::vector<Value>> Arrays;
  std::optional<Value> Returned;
  unsigned Steps = 0;
  std::string Why;
};

//===----------------------------------------------------------------------===//
// The proof
//===----------------------------------------------------------------------===//

/// One float of each cell of the partition by Points (sorted): each point
/// that is a float, one float strictly between neighbours (where there is
/// one), +-0, +-inf and a NaN of each sign.
std::vector<float> cellRepresentatives(const std::set<double> &Points) {
  const float Inf = std::numeric_limits<float>::infinity();
  std::vector<float> Reps = {-0.0f, 0.0f, -Inf, Inf};
  std::vector<double> Sorted = {-double(Inf)};
  for (double P : Points)
    if (P != 0 && std::isfinite(P))
      Sorted.push_back(P);
  Sorted.push_back(0.0);
  Sorted.push_back(double(Inf));
  std::sort(Sorted.begin(), Sorted.end());
  Sorted.erase(std::unique(Sorted.begin(), Sorted.end()), Sorted.end());
  for (size_t I = 0; I < Sorted.size(); ++I) {
    double P = Sorted[I];
    if (P != 0 && std::isfinite(P) &&
        static_cast<double>(static_cast<float>(P)) == P)
      Reps.push_back(static_cast<float>(P));
    if (I + 1 == Sorted.size())
      break;
    // The smallest float above P.
    float F = static_cast<float>(P);
    while (static_cast<double>(F) <= P)
      F = std::nextafter(F, Inf);
    if (static_cast<double>(F) < Sorted[I + 1])
      Reps.push_back(F);
  }
  uint32_t NaNs[] = {0x7fc00000u, 0xffc00000u};
  for (uint32_t B : NaNs) {
    float F;
    std::memcpy(&F, &B, sizeof F);
    Reps.push_back(F);
  }
  return Reps;
}

/// What the proof found about a helper.
struct Verdict {
  std::string Why; ///< empty when the helper is recognized
  /// The helper encodes -0.0 as +0 (sign from `x < 0`): the wrapper passes
  /// x + 0.0f to the intrinsic.
  bool NegZeroIsPositive = false;
  /// The helper encodes a NaN with the sign bit set as 0xF: the wrapper sets
  /// the sign bit for it (exact-nan=true).
  bool NegNaNKeepsSign = false;
  /// With exact-nan=false: some NaN encodes differently from the intrinsic.
  bool NaNDiffers = false;
  size_t Cells = 0;
};

/// Proves Helper equal to the intrinsic on every float, or says where not.
/// With ExactNaN false, NaN inputs are not compared.
Verdict proveHelper(const FunctionDecl *Helper, ASTContext &AC, bool ExactNaN) {
  Verdict V;
  Interpreter Interp(Helper, AC);
  std::set<double> HelperThresholds;
  std::map<uint32_t, int64_t> Codes; // by bit pattern of the representative
  std::vector<float> Reps;
  for (unsigned Round = 0;; ++Round) {
    std::set<double> Points = HelperThresholds;
    for (double M : Midpoints) {
      Points.insert(M);
      Points.insert(-M);
    }
    size_t Before = HelperThresholds.size();
    Reps = cellRepresentatives(Points);
    Codes.clear();
    for (float R : Reps) {
      std::optional<int64_t> C = Interp.run(R, HelperThresholds);
      if (!C) {
        V.Why = Interp.why();
        return V;
      }
      uint32_t B;
      std::memcpy(&B, &R, sizeof B);
      Codes[B] = *C;
    }
    if (HelperThresholds.size() == Before)
      break;
    if (Round == 8 || HelperThresholds.size() > 2000) {
      V.Why = "the constants it compares with do not settle";
      return V;
    }
  }
  V.Cells = Reps.size();

  // Compare in order of magnitude, so the first difference reported is the
  // one nearest zero.
  std::sort(Reps.begin(), Reps.end(), [](float A, float B) {
    bool NA = std::isnan(A), NB = std::isnan(B);
    if (NA != NB)
      return NB;
    if (std::fabs(A) != std::fabs(B))
      return std::fabs(A) < std::fabs(B);
    return !std::signbit(A) && std::signbit(B);
  });
  std::vector<double> Positive;
  for (double T : HelperThresholds)
    if (T > 0)
      Positive.push_back(T);
  for (float R : Reps) {
    uint32_t B;
    std::memcpy(&B, &R, sizeof B);
    int64_t Got = Codes[B];
    int Want = e2m1Reference(R);
    if (Got == Want)
      continue;
    if (std::isnan(R)) {
      if (!ExactNaN) {
        V.NaNDiffers = true;
        continue;
      }
      if (std::signbit(R) && Got == 0xF) {
        V.NegNaNKeepsSign = true;
        continue;
      }
      V.Why = formatv("a NaN{0} gives code 0x{1}, the intrinsic +6 (0x7)",
                      std::signbit(R) ? " with the sign bit set" : "",
                      formatCode(Got))
                  .str();
      return V;
    }
    if (R == 0 && std::signbit(R) && Got == 0x0) {
      V.NegZeroIsPositive = true;
      continue;
    }
    double A = std::fabs(static_cast<double>(R));
    // The midpoint nearest to R, and the helper's constant nearest to it.
    const double *NearMid = std::min_element(
        std::begin(Midpoints), std::end(Midpoints), [&](double X, double Y) {
          return std::fabs(X - A) < std::fabs(Y - A);
        });
    std::optional<double> Near;
    if (!Positive.empty())
      Near = *std::min_element(Positive.begin(), Positive.end(),
                               [&](double X, double Y) {
                                 return std::fabs(X - A) < std::fabs(Y - A);
                               });
    std::string Detail =
        formatv("{0} gives code 0x{1}, round-to-nearest-even 0x{2}",
                formatNumber(R), formatCode(Got), formatCode(Want))
            .str();
    bool HasMid = is_contained(Positive, *NearMid);
    if (std::isfinite(A) && !HasMid && Near &&
        std::fabs(*Near - *NearMid) < 1.0) {
      V.Why = formatv("its threshold {0} is not the midpoint {1} ({2})",
                      formatNumber(*Near), formatNumber(*NearMid), Detail)
                  .str();
      return V;
    }
    if (A == *NearMid && (Got & 0x8) == (Want & 0x8) && Got >= 0) {
      V.Why = formatv("the tie at {0}{1} goes to {2}code {3}, not to the even "
                      "code {4}",
                      std::signbit(R) ? "-" : "", formatNumber(A),
                      (Got & 1) ? "the odd " : "", Got & 7, Want & 7)
                  .str();
      return V;
    }
    if (Got >= 0 && Got <= 0xF && (Got & 0x8) != (Want & 0x8) &&
        (Got & 7) == (Want & 7)) {
      V.Why = formatv("{0} gives code 0x{1}: its sign bit differs from the "
                      "intrinsic's (0x{2})",
                      formatNumber(R), formatCode(Got), formatCode(Want))
                  .str();
      return V;
    }
    V.Why = Detail;
    return V;
  }
  return V;
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

/// `h(a) | (h(b) << 4)`: two codes of one helper packed into a byte.
struct PairSite {
  const BinaryOperator *Or = nullptr;
  const CallExpr *Low = nullptr, *High = nullptr;
  const FunctionDecl *Helper = nullptr;
  const FunctionDecl *Caller = nullptr;
};

/// A call of a float -> integer function outside such a pair.
struct SingleCall {
  const CallExpr *Call = nullptr;
  const FunctionDecl *Caller = nullptr;
};

const FunctionDecl *calledFunction(const Expr *E) {
  if (const auto *C = dyn_cast<CallExpr>(E->IgnoreParenImpCasts()))
    if (C->getNumArgs() == 1)
      if (const FunctionDecl *FD = C->getDirectCallee())
        return FD->getCanonicalDecl();
  return nullptr;
}

/// Finds the pairs in device code, and every other call of a function that
/// converts one float to an integer.
class SiteFinder : public RecursiveASTVisitor<SiteFinder> {
public:
  explicit SiteFinder(ASTContext &AC) : SM(AC.getSourceManager()) {}

  bool TraverseFunctionDecl(FunctionDecl *FD) {
    if (!FD->doesThisDeclarationHaveABody() || FD->isTemplated() ||
        !SM.isInMainFile(SM.getExpansionLoc(FD->getLocation())))
      return true;
    const FunctionDecl *Saved = Caller;
    Caller = FD;
    bool R = RecursiveASTVisitor::TraverseFunctionDecl(FD);
    Caller = Saved;
    return R;
  }
  bool TraverseCXXMethodDecl(CXXMethodDecl *MD) {
    return TraverseFunctionDecl(MD);
  }

  bool VisitBinaryOperator(BinaryOperator *B) {
    if (!Caller || (B->getOpcode() != BO_Or && B->getOpcode() != BO_Add &&
                    B->getOpcode() != BO_Xor))
      return true;
    for (bool Swap : {false, true}) {
      const Expr *Plain = (Swap ? B->getRHS() : B->getLHS())->IgnoreParens();
      const Expr *Shifted = (Swap ? B->getLHS() : B->getRHS())->IgnoreParens();
      const auto *Shl =
          dyn_cast<BinaryOperator>(Shifted->IgnoreParenImpCasts());
      if (!Shl || Shl->getOpcode() != BO_Shl)
        continue;
      const auto *Four =
          dyn_cast<IntegerLiteral>(Shl->getRHS()->IgnoreParenImpCasts());
      const FunctionDecl *H = calledFunction(Plain);
      if (!Four || Four->getValue() != 4 || !H ||
          calledFunction(Shl->getLHS()) != H)
        continue;
      PairSite P;
      P.Or = B;
      P.Low = cast<CallExpr>(Plain->IgnoreParenImpCasts());
      P.High = cast<CallExpr>(Shl->getLHS()->IgnoreParenImpCasts());
      P.Helper = H;
      P.Caller = Caller;
      Paired.insert(P.Low);
      Paired.insert(P.High);
      Pairs.push_back(P);
      break;
    }
    return true;
  }

  bool VisitCallExpr(CallExpr *C) {
    if (Caller && C->getNumArgs() == 1 && C->getDirectCallee())
      Calls.push_back({C, Caller});
    return true;
  }

  std::vector<PairSite> Pairs;
  std::set<const CallExpr *> Paired;
  std::vector<SingleCall> Calls;

private:
  const SourceManager &SM;
  const FunctionDecl *Caller = nullptr;
};

bool isDeviceFunction(const FunctionDecl *FD) {
  return FD->hasAttr<CUDADeviceAttr>() || FD->hasAttr<CUDAGlobalAttr>();
}

bool isFloatToInteger(const FunctionDecl *FD) {
  return FD->getNumParams() == 1 && !FD->isVariadic() &&
         FD->getParamDecl(0)
             ->getType()
             .getCanonicalType()
             .getUnqualifiedType()
             ->isSpecificBuiltinType(BuiltinType::Float) &&
         FD->getReturnType()->isIntegerType() &&
         !FD->getReturnType()->isBooleanType();
}

/// True when Arch has the e2m1x2 conversion instruction: the family-specific
/// targets sm_100a/f to sm_12xa/f (cuda_fp8.h's
/// __CUDA_FP8_INTERNAL_CAN_RELY_ON_PTX_FOR_SHORTTYPESCVT__). std::nullopt if
/// Arch is not of the form sm_N[a|f].
std::optional<bool> hasE2m1Instruction(StringRef Arch) {
  if (!Arch.consume_front("sm_"))
    return std::nullopt;
  bool Specific = Arch.consume_back("a") || Arch.consume_back("f");
  unsigned N;
  if (Arch.getAsInteger(10, N))
    return std::nullopt;
  return Specific && N >= 100 && N < 130;
}

/// Whether a function looks like a hand-written float -> fp8 e4m3
/// conversion: its name says so, or it compares with 448 (e4m3's largest
/// finite value).
bool looksLikeE4m3(const FunctionDecl *FD) {
  std::string Name = StringRef(FD->getNameAsString()).lower();
  if (StringRef(Name).contains("e4m3") || StringRef(Name).contains("fp8"))
    return true;
  struct Finder : RecursiveASTVisitor<Finder> {
    bool Found = false;
    bool VisitFloatingLiteral(FloatingLiteral *L) {
      Found |= L->getValueAsApproximateDouble() == 448.0;
      return true;
    }
    bool VisitIntegerLiteral(IntegerLiteral *L) {
      Found |= L->getValue() == 448;
      return true;
    }
  } F;
  F.TraverseStmt(FD->getBody());
  return F.Found;
}

class Fp4IntrinsicsPass : public FilePass<Fp4IntrinsicsOptions> {
public:
  void runOnFile(PassContext &Ctx) override {
    Pending.clear();
    ReportedE4m3.clear();
    ASTContext &AC = Ctx.deviceContext();
    SiteFinder Finder(AC);
    Finder.TraverseDecl(AC.getTranslationUnitDecl());

    StringRef ArchParam = options().Arch;
    bool Explicit = ArchParam != "auto";
    std::string Arch = Explicit ? ArchParam.str() : Ctx.info().GpuArch;
    std::optional<bool> Hardware = hasE2m1Instruction(Arch);
    bool ExactNaN = options().ExactNaN;

    // Helpers in order of their first pair.
    std::vector<const FunctionDecl *> Helpers;
    for (const PairSite &P : Finder.Pairs)
      if (!is_contained(Helpers, P.Helper))
        Helpers.push_back(P.Helper);

    std::set<const FunctionDecl *> Recognized;
    for (const FunctionDecl *H : Helpers) {
      std::vector<const PairSite *> Sites;
      for (const PairSite &P : Finder.Pairs)
        if (P.Helper == H)
          Sites.push_back(&P);
      auto MissAll = [&](const Twine &Why) {
        for (const PairSite *P : Sites)
          Ctx.missed(P->Caller->getQualifiedNameAsString(),
                     lineCol(P->Or->getBeginLoc(), AC), Why);
      };
      std::string Name = H->getNameAsString();
      if (!Hardware) {
        MissAll("arch '" + Arch + "' is not of the form sm_N");
        continue;
      }
      if (!*Hardware && !Explicit) {
        MissAll(Arch + " has no e2m1 conversion instruction; the intrinsic "
                       "would be emulated (arch=sm_100a rewrites anyway)");
        continue;
      }
      if (std::string Why = checkHelperShape(H, AC); !Why.empty()) {
        MissAll("'" + Name + "' is not a recognized e2m1 conversion: " + Why);
        continue;
      }
      const FunctionDecl *Def = H->getDefinition();
      Verdict V = proveHelper(Def, AC, ExactNaN);
      if (!V.Why.empty()) {
        MissAll("'" + Name +
                "' is not e2m1 round-to-nearest-even with "
                "saturation: " +
                V.Why);
        continue;
      }
      Recognized.insert(H);
      rewriteSites(Ctx, H, Def, V, Sites, Arch, ExactNaN);
    }
    emit(Ctx);

    // Single conversions of a recognized helper, and float -> e4m3 code.
    for (const SingleCall &C : Finder.Calls) {
      const FunctionDecl *Callee =
          C.Call->getDirectCallee()->getCanonicalDecl();
      if (Finder.Paired.count(C.Call) || !isDeviceFunction(C.Caller))
        continue;
      if (Recognized.count(Callee)) {
        Ctx.missed(C.Caller->getQualifiedNameAsString(),
                   lineCol(C.Call->getBeginLoc(), AC),
                   "a single '" + Callee->getNameAsString() +
                       "' conversion, not packed with a second one as "
                       "h(a) | (h(b) << 4): left as is");
        continue;
      }
      const FunctionDecl *Def = Callee->getDefinition();
      if (Def && isFloatToInteger(Def) && !Recognized.count(Callee) &&
          SM(AC).isInMainFile(SM(AC).getExpansionLoc(Def->getLocation())) &&
          looksLikeE4m3(Def) && ReportedE4m3.insert(Def).second)
        Ctx.missed(Def->getQualifiedNameAsString(),
                   lineCol(Def->getLocation(), AC),
                   "'" + Def->getNameAsString() +
                       "' looks like a hand-written float to e4m3 conversion; "
                       "fp4-intrinsics proves only e2m1 helpers: use "
                       "__nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E4M3)");
    }
  }

private:
  static const SourceManager &SM(ASTContext &AC) {
    return AC.getSourceManager();
  }

  /// Why H's declaration cannot be proven or wrapped; empty if it can.
  static std::string checkHelperShape(const FunctionDecl *H, ASTContext &AC) {
    const FunctionDecl *Def = H->getDefinition();
    if (!Def)
      return "its definition is not in this file";
    if (!SM(AC).isInMainFile(SM(AC).getExpansionLoc(Def->getLocation())))
      return "it is defined in a header";
    if (!isFloatToInteger(Def))
      return "it does not take one float and return an integer";
    if (isa<CXXMethodDecl>(Def) || Def->isTemplated() ||
        !Def->getDeclContext()->getRedeclContext()->isTranslationUnit())
      return "it is not a plain function at file scope";
    return "";
  }

  /// Where the wrapper goes: after H's definition when that precedes every
  /// pair, else before H's first declaration and the comment lines above
  /// it. std::nullopt when H is written in a macro or shares a line.
  struct Placement {
    unsigned Offset = 0;
    bool AfterDefinition = false;
  };
  static std::optional<Placement>
  wrapperPlacement(const FunctionDecl *H, const FunctionDecl *Def,
                   const std::vector<const PairSite *> &Sites, ASTContext &AC,
                   StringRef Code) {
    const SourceManager &S = SM(AC);
    SourceLocation End = S.getExpansionLoc(Def->getEndLoc());
    bool DefFirst = S.isInMainFile(End);
    for (const PairSite *P : Sites)
      DefFirst &= S.isBeforeInTranslationUnit(
          End, S.getExpansionLoc(P->Or->getBeginLoc()));
    if (DefFirst) {
      unsigned Offset = S.getFileOffset(End);
      size_t LineEnd = Code.find('\n', Offset);
      if (LineEnd == StringRef::npos ||
          !Code.slice(Offset + 1, LineEnd).trim().empty())
        return std::nullopt;
      return Placement{unsigned(LineEnd + 1), true};
    }
    SourceLocation Begin =
        S.getExpansionLoc(H->getCanonicalDecl()->getBeginLoc());
    if (!S.isInMainFile(Begin))
      return std::nullopt;
    unsigned Offset = S.getFileOffset(Begin);
    size_t LineStart = Code.rfind('\n', Offset);
    LineStart = LineStart == StringRef::npos ? 0 : LineStart + 1;
    if (!Code.slice(LineStart, Offset).trim().empty())
      return std::nullopt;
    // Keep the declaration's comment next to it.
    while (LineStart > 0) {
      size_t Prev = Code.rfind('\n', LineStart - 1);
      Prev = Prev == StringRef::npos ? 0 : Prev + 1;
      if (!Code.slice(Prev, LineStart).trim().starts_with("//"))
        break;
      LineStart = Prev;
    }
    return Placement{unsigned(LineStart), false};
  }

  /// Where `#include <cuda_fp4.h>` goes (after the last top-level #include
  /// before Limit), or std::nullopt when the file already includes it.
  static std::optional<unsigned> includeOffset(StringRef Code, unsigned Limit) {
    unsigned Depth = 0;
    std::optional<unsigned> After;
    size_t Pos = 0;
    while (Pos < Limit) {
      size_t End = Code.find('\n', Pos);
      if (End == StringRef::npos)
        End = Code.size();
      StringRef Line = Code.slice(Pos, End).ltrim();
      if (Line.consume_front("#")) {
        Line = Line.ltrim();
        if (Line.starts_with("if"))
          ++Depth;
        else if (Line.starts_with("endif") && Depth)
          --Depth;
        else if (Line.consume_front("include")) {
          Line = Line.trim();
          if (Line == "<cuda_fp4.h>" || Line == "\"cuda_fp4.h\"")
            return std::nullopt;
          if (Depth == 0)
            After = unsigned(std::min(End + 1, Code.size()));
        }
      }
      Pos = End + 1;
    }
    return After ? *After : Limit;
  }

  void rewriteSites(PassContext &Ctx, const FunctionDecl *H,
                    const FunctionDecl *Def, const Verdict &V,
                    const std::vector<const PairSite *> &Sites, StringRef Arch,
                    bool ExactNaN) {
    ASTContext &AC = Ctx.deviceContext();
    std::string Name = H->getNameAsString();
    std::string Wrapper = "kopt_" + Name + "_x2";
    DeclarationName WrapperName(&AC.Idents.get(Wrapper));

    // Sites that can be rewritten, and the one type of their packed value.
    std::vector<const PairSite *> Good;
    std::string PairType;
    for (const PairSite *P : Sites) {
      LineCol Loc = lineCol(P->Or->getBeginLoc(), AC);
      StringRef Caller = P->Caller->getQualifiedNameAsString();
      std::string Type =
          P->Or->getType().getCanonicalType().getUnqualifiedType().getAsString(
              AC.getPrintingPolicy());
      if (!isDeviceFunction(P->Caller)) {
        Ctx.missed(Caller, Loc,
                   "host code: the intrinsic is emulated on the host");
        continue;
      }
      if (!isRewritable(P->Or->getSourceRange(), AC) ||
          sourceText(P->Low->getArg(0)->getSourceRange(), AC).empty() ||
          sourceText(P->High->getArg(0)->getSourceRange(), AC).empty()) {
        Ctx.missed(Caller, Loc, "the pair is written in a macro");
        continue;
      }
      if (hasSideEffects(P->Low->getArg(0), AC) ||
          hasSideEffects(P->High->getArg(0), AC)) {
        Ctx.missed(Caller, Loc,
                   "an argument has side effects: the pair's order of "
                   "evaluation would change");
        continue;
      }
      // Every pair of one helper has the same type: its promoted result.
      PairType = Type;
      Good.push_back(P);
    }
    if (Good.empty())
      return;
    if (!AC.getTranslationUnitDecl()->lookup(WrapperName).empty()) {
      for (const PairSite *P : Good)
        Ctx.missed(P->Caller->getQualifiedNameAsString(),
                   lineCol(P->Or->getBeginLoc(), AC),
                   "the name '" + Wrapper + "' is already taken");
      return;
    }

    StringRef Code = Ctx.source().Code;
    std::optional<Placement> At = wrapperPlacement(H, Def, Good, AC, Code);
    if (!At) {
      for (const PairSite *P : Good)
        Ctx.missed(P->Caller->getQualifiedNameAsString(),
                   lineCol(P->Or->getBeginLoc(), AC),
                   "'" + Name +
                       "' shares its line with other code or is written "
                       "in a macro: no place for the wrapper");
      return;
    }

    // The wrapper: the intrinsic, plus the repairs the proof asked for.
    bool HostToo = Def->hasAttr<CUDAHostAttr>() || H->hasAttr<CUDAHostAttr>();
    std::string Text;
    raw_string_ostream OS(Text);
    std::string Lo = V.NegZeroIsPositive ? "lo + 0.0f" : "lo";
    std::string Hi = V.NegZeroIsPositive ? "hi + 0.0f" : "hi";
    OS << "// kopt fp4-intrinsics: " << Name << "(lo) | (" << Name
       << "(hi) << 4)\n"
       << "// as one conversion (cvt.rn.satfinite.e2m1x2.f32 on sm_100a and "
          "later\n"
       << "// family-specific targets).\n";
    if (V.NegZeroIsPositive)
      OS << "// " << Name
         << " encodes -0.0 as +0: x + 0.0f turns -0.0 into +0.0 and\n"
            "// keeps every other x.\n";
    if (V.NegNaNKeepsSign && ExactNaN)
      OS << "// " << Name
         << " keeps the sign bit of a NaN (0xF), the intrinsic gives\n"
            "// +6 (0x7): set it again.\n";
    OS << "static inline " << (HostToo ? "__host__ __device__ " : "__device__ ")
       << PairType << "\n"
       << Wrapper << "(float lo, float hi) {\n"
       << "  " << PairType << " r = __nv_cvt_float2_to_fp4x2(make_float2(" << Lo
       << ", " << Hi << "),\n"
       << "      __NV_E2M1, cudaRoundNearest);\n";
    if (V.NegNaNKeepsSign && ExactNaN)
      OS << "  if (lo != lo && copysignf(1.0f, lo) < 0.0f)\n"
         << "    r |= 0x08;\n"
         << "  if (hi != hi && copysignf(1.0f, hi) < 0.0f)\n"
         << "    r |= 0x80;\n";
    OS << "  return r;\n}\n";
    Text = At->AfterDefinition ? "\n" + Text : Text + "\n";

    std::string Repairs;
    if (V.NegZeroIsPositive)
      Repairs += "; -0.0 passed as +0.0, as '" + Name + "' encodes it";
    if (V.NegNaNKeepsSign)
      Repairs += "; a NaN's sign bit kept, as '" + Name + "' does";
    if (V.NaNDiffers)
      Repairs += "; NaNs encode as +6 (0x7), not as '" + Name +
                 "' does (exact-nan=false)";
    Pending.push_back({At->Offset, std::move(Text), Wrapper, Good,
                       "two '" + Name +
                           "' conversions as one __nv_cvt_float2_to_fp4x2 "
                           "for " +
                           Arch.str() + " ('" + Name +
                           "' proven e2m1 round-to-nearest-even with "
                           "saturation on " +
                           std::to_string(V.Cells) + " cells of the floats" +
                           Repairs + ")"});
  }

  /// Adds the include, the wrappers and the rewritten pairs.
  void emit(PassContext &Ctx) {
    if (Pending.empty())
      return;
    ASTContext &AC = Ctx.deviceContext();
    auto MissAll = [&](const Wrapping &W, const Twine &Why) {
      for (const PairSite *P : W.Sites)
        Ctx.missed(P->Caller->getQualifiedNameAsString(),
                   lineCol(P->Or->getBeginLoc(), AC), Why);
    };
    // One include, before the first wrapper: after the file's last #include
    // above it, or right before it.
    auto First = std::min_element(Pending.begin(), Pending.end(),
                                  [](const Wrapping &A, const Wrapping &B) {
                                    return A.Offset < B.Offset;
                                  });
    std::optional<unsigned> Include =
        includeOffset(Ctx.source().Code, First->Offset);
    if (Include && *Include == First->Offset)
      First->Text = "#include <cuda_fp4.h>\n\n" + First->Text;
    else if (Include)
      if (Error E = Ctx.edits().replaceChars(*Include, 0,
                                             "#include <cuda_fp4.h>\n")) {
        std::string Msg = toString(std::move(E));
        for (const Wrapping &W : Pending)
          MissAll(W, Msg);
        return;
      }
    for (const Wrapping &W : Pending) {
      if (Error E = Ctx.edits().replaceChars(W.Offset, 0, W.Text)) {
        MissAll(W, toString(std::move(E)));
        continue;
      }
      for (const PairSite *P : W.Sites) {
        std::string Lo = sourceText(P->Low->getArg(0)->getSourceRange(), AC);
        std::string Hi = sourceText(P->High->getArg(0)->getSourceRange(), AC);
        std::string Caller = P->Caller->getQualifiedNameAsString();
        LineCol Loc = lineCol(P->Or->getBeginLoc(), AC);
        if (Error E =
                Ctx.edits().replace(P->Or->getSourceRange(),
                                    W.Name + "(" + Lo + ", " + Hi + ")", AC)) {
          Ctx.missed(Caller, Loc, toString(std::move(E)));
          continue;
        }
        Ctx.applied(Caller, Loc, W.Remark);
      }
    }
  }

  /// A wrapper to insert and the pairs that call it.
  struct Wrapping {
    unsigned Offset;
    std::string Text, Name;
    std::vector<const PairSite *> Sites;
    std::string Remark;
  };
  std::vector<Wrapping> Pending;
  std::set<const FunctionDecl *> ReportedE4m3;
};

} // namespace

std::unique_ptr<Pass> createFp4IntrinsicsPass() {
  return std::make_unique<Fp4IntrinsicsPass>();
}

} // namespace kopt
