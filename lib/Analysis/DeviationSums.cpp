//===- DeviationSums.cpp - Loops summing functions of deviations ----------===//

#include "kopt/Analysis/DeviationSums.h"
#include "kopt/Analysis/CudaAST.h"
#include "kopt/Analysis/LoopAccumulators.h"
#include "kopt/Analysis/Mutation.h"

#include "clang/AST/Attr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/STLExtras.h"

using namespace clang;
using namespace llvm;

namespace kopt {

namespace {

/// The statements of a loop body (a compound statement's, or the one).
SmallVector<const Stmt *, 4> statementsOf(const Stmt *Body) {
  SmallVector<const Stmt *, 4> Out;
  if (const auto *CS = dyn_cast<CompoundStmt>(Body))
    Out.append(CS->body_begin(), CS->body_end());
  else
    Out.push_back(Body);
  return Out;
}

/// Whether E is the constant \p Value (2, 2.0f, 2.0 for 2).
bool isConstant(const Expr *E, const ASTContext &AC, int Value) {
  Expr::EvalResult V;
  return E->EvaluateAsRValue(V, AC) &&
         (V.Val.isFloat() ? V.Val.getFloat().isExactlyValue(Value)
                          : V.Val.isInt() && V.Val.getInt() == Value);
}

/// Whether Call is an exponential: expf, exp (CUDA's overloads) or __expf.
bool isExp(const CallExpr *Call) {
  const FunctionDecl *F = Call->getDirectCallee();
  StringRef Name = F ? F->getName() : "";
  return Call->getNumArgs() == 1 &&
         (Name == "expf" || Name == "exp" || Name == "__expf");
}

/// E with parentheses and implicit casts stripped and the loop's locals
/// (in Locals) replaced by their initializers.
const Expr *resolve(const Expr *E,
                    const SmallPtrSetImpl<const VarDecl *> &Locals) {
  for (;;) {
    E = E->IgnoreParenImpCasts();
    const VarDecl *V = referencedVar(E);
    if (!V || !Locals.count(V))
      return E;
    E = V->getInit();
  }
}

/// What the update statement S adds to an outer variable: a square, as
/// its two factors, or an exponential, as its call. `v += t`, `v = v + t`,
/// `v = t + v`; a square also as `v = fmaf(a, b, v)` (fma, __fmaf_rn,
/// __fma_rn) and `v += powf(a, 2)` (pow, __powf; a twice); the added term
/// also through the loop's locals (`float sq = d * d; v += sq;`). Sets Acc.
struct AddedTerm {
  DeviationTerm Term = DeviationTerm::Square;
  const Expr *First = nullptr, *Second = nullptr; ///< the factors; exp's arg
  const CallExpr *Exp = nullptr;
};
std::optional<AddedTerm>
addedTerm(const Stmt *S, const VarDecl *&Acc,
          const SmallPtrSetImpl<const VarDecl *> &Locals) {
  const auto *E = dyn_cast<Expr>(S);
  if (!E)
    return std::nullopt;
  const auto *B = dyn_cast<BinaryOperator>(E->IgnoreParens());
  if (!B)
    return std::nullopt;
  const VarDecl *V = referencedVar(B->getLHS()->IgnoreParens());
  if (!V)
    return std::nullopt;
  auto Term = [&](const Expr *X) -> std::optional<AddedTerm> {
    X = resolve(X, Locals);
    if (const auto *M = dyn_cast<BinaryOperator>(X);
        M && M->getOpcode() == BO_Mul)
      return AddedTerm{DeviationTerm::Square, M->getLHS(), M->getRHS()};
    const auto *Call = dyn_cast<CallExpr>(X);
    const FunctionDecl *F = Call ? Call->getDirectCallee() : nullptr;
    StringRef Name = F ? F->getName() : "";
    if (Call && Call->getNumArgs() == 2 &&
        (Name == "powf" || Name == "pow" || Name == "__powf") &&
        isConstant(Call->getArg(1), F->getASTContext(), 2))
      return AddedTerm{DeviationTerm::Square, Call->getArg(0), Call->getArg(0)};
    if (Call && isExp(Call))
      return AddedTerm{DeviationTerm::Exp, Call->getArg(0), Call->getArg(0),
                       Call};
    return std::nullopt;
  };
  std::optional<AddedTerm> Out;
  if (B->getOpcode() == BO_AddAssign) {
    Out = Term(B->getRHS());
  } else if (B->getOpcode() == BO_Assign) {
    const Expr *R = B->getRHS()->IgnoreParenImpCasts();
    if (const auto *Add = dyn_cast<BinaryOperator>(R);
        Add && Add->getOpcode() == BO_Add) {
      if (referencedVar(Add->getLHS()->IgnoreParenImpCasts()) == V)
        Out = Term(Add->getRHS());
      else if (referencedVar(Add->getRHS()->IgnoreParenImpCasts()) == V)
        Out = Term(Add->getLHS());
    } else if (const auto *Call = dyn_cast<CallExpr>(R)) {
      const FunctionDecl *F = Call->getDirectCallee();
      StringRef Name = F ? F->getName() : "";
      if (Call->getNumArgs() == 3 &&
          (Name == "fmaf" || Name == "fma" || Name == "__fmaf_rn" ||
           Name == "__fma_rn") &&
          referencedVar(Call->getArg(2)->IgnoreParenImpCasts()) == V)
        Out =
            AddedTerm{DeviationTerm::Square, Call->getArg(0), Call->getArg(1)};
    }
  }
  if (Out)
    Acc = V;
  return Out;
}

/// The load under the conversions an element may be written with:
/// implicit and explicit arithmetic casts and CUDA's half and bfloat16
/// conversions.
const ArraySubscriptExpr *loadUnder(const Expr *E) {
  for (;;) {
    E = E->IgnoreParens();
    if (const auto *L = dyn_cast<ArraySubscriptExpr>(E))
      return L;
    if (const auto *C = dyn_cast<CastExpr>(E)) {
      if (!C->getType()->isArithmeticType() &&
          !isa<ImplicitCastExpr>(C)) // a class element's conversion
        return nullptr;
      E = C->getSubExpr();
      continue;
    }
    if (const auto *M = dyn_cast<CXXMemberCallExpr>(E)) { // operator float()
      if (isa_and_nonnull<CXXConversionDecl>(M->getMethodDecl()) &&
          M->getType()->isArithmeticType()) {
        E = M->getImplicitObjectArgument();
        continue;
      }
      return nullptr;
    }
    // The copy of a class element passed by value (`__half2float(x[i])`).
    if (const auto *C = dyn_cast<CXXConstructExpr>(E);
        C && C->getNumArgs() == 1 &&
        C->getConstructor()->isCopyOrMoveConstructor()) {
      E = C->getArg(0);
      continue;
    }
    if (const auto *T = dyn_cast<MaterializeTemporaryExpr>(E)) {
      E = T->getSubExpr();
      continue;
    }
    if (const auto *Call = dyn_cast<CallExpr>(E)) {
      const FunctionDecl *F = Call->getDirectCallee();
      StringRef Name = F ? F->getName() : "";
      if (Call->getNumArgs() == 1 &&
          (Name == "__half2float" || Name == "__bfloat162float")) {
        E = Call->getArg(0);
        continue;
      }
    }
    return nullptr;
  }
}

/// Whether E has no side effects, a conversion of an element of a class
/// type (`(float)x[i]` of a __half) and the exponentials a deviation sum
/// takes counted as none.
bool sideEffectFree(const Expr *E, const ASTContext &AC) {
  if (loadUnder(E))
    return true;
  if (const auto *Call = dyn_cast<CallExpr>(E->IgnoreParenImpCasts());
      Call && isExp(Call))
    return sideEffectFree(Call->getArg(0), AC);
  if (const auto *B = dyn_cast<BinaryOperator>(E->IgnoreParenImpCasts());
      B && (B->isAdditiveOp() || B->isMultiplicativeOp()))
    return sideEffectFree(B->getLHS(), AC) && sideEffectFree(B->getRHS(), AC);
  return !hasSideEffects(E, AC);
}

/// E without parentheses and casts (implicit and explicit).
const Expr *bare(const Expr *E) {
  for (;;) {
    E = E->IgnoreParens();
    if (const auto *C = dyn_cast<CastExpr>(E))
      E = C->getSubExpr();
    else
      return E;
  }
}

const VarDecl *varOf(const Expr *E) { return referencedVar(bare(E)); }

/// `L Op R` of bare operands.
const BinaryOperator *binary(const Expr *E, BinaryOperatorKind Op) {
  const auto *B = dyn_cast<BinaryOperator>(bare(E));
  return B && B->getOpcode() == Op ? B : nullptr;
}

/// The variable S adds \p What to with `v += What` (What compared by
/// Match), or null.
template <typename MatchT> const VarDecl *addsTo(const Stmt *S, MatchT Match) {
  const auto *E = dyn_cast<Expr>(S);
  const BinaryOperator *B = E ? binary(E, BO_AddAssign) : nullptr;
  return B && Match(B->getRHS()) ? varOf(B->getLHS()) : nullptr;
}

/// Whether every reference to V at or after Loop's start only reads it.
bool unchangedFrom(const VarDecl *V, const ForStmt *Loop, const Stmt *Body,
                   ASTContext &AC) {
  const SourceManager &SM = AC.getSourceManager();
  for (const DeclRefExpr *R : referencesTo(Body, V, AC))
    if (!SM.isBeforeInTranslationUnit(R->getBeginLoc(), Loop->getBeginLoc()) &&
        isMutatedAt(R, Body, AC))
      return false;
  return true;
}

} // namespace

std::optional<VarianceFold> matchVarianceFold(const IfStmt *If,
                                              const ForStmt *Loop,
                                              const FunctionDecl *F,
                                              ASTContext &AC) {
  if (!If || If->getElse() || If->getInit() || If->getConditionVariable())
    return std::nullopt;
  const BinaryOperator *Cond = binary(If->getCond(), BO_NE);
  std::optional<int64_t> Zero =
      Cond ? evaluateInt(Cond->getRHS(), AC, nullptr) : std::nullopt;
  const auto *Then = dyn_cast<CompoundStmt>(If->getThen());
  if (!Zero || *Zero != 0 || !Then || Then->size() != 2)
    return std::nullopt;
  VarianceFold Out;
  Out.Count = varOf(Cond->getLHS());
  // const T C = centre - K;
  const auto *DS = dyn_cast<DeclStmt>(Then->body_front());
  const auto *C = DS && DS->isSingleDecl()
                      ? dyn_cast<VarDecl>(DS->getSingleDecl())
                      : nullptr;
  const BinaryOperator *CInit =
      C && C->getInit() ? binary(C->getInit(), BO_Sub) : nullptr;
  const VarDecl *K = CInit ? varOf(CInit->getRHS()) : nullptr;
  if (!Out.Count || !K || !C->getType().isConstQualified())
    return std::nullopt;
  // w += Q - C * (2 * S - N * C);
  const VarDecl *Sq = nullptr, *Sum = nullptr;
  Out.Into = addsTo(Then->body_back(), [&](const Expr *X) {
    const BinaryOperator *Minus = binary(X, BO_Sub);
    const BinaryOperator *Times =
        Minus ? binary(Minus->getRHS(), BO_Mul) : nullptr;
    const BinaryOperator *Inner =
        Times ? binary(Times->getRHS(), BO_Sub) : nullptr;
    const BinaryOperator *TwoS =
        Inner ? binary(Inner->getLHS(), BO_Mul) : nullptr;
    const BinaryOperator *NC =
        Inner ? binary(Inner->getRHS(), BO_Mul) : nullptr;
    if (!TwoS || !NC || varOf(Times->getLHS()) != C ||
        varOf(NC->getLHS()) != Out.Count || varOf(NC->getRHS()) != C)
      return false;
    if (!isConstant(TwoS->getLHS(), AC, 2))
      return false;
    Sq = varOf(Minus->getLHS());
    Sum = varOf(TwoS->getRHS());
    return Sq && Sum;
  });
  if (!Out.Into)
    return std::nullopt;
  Out.Squares = Sq;
  Out.Sum = Sum;
  // The loop: T D = element - K; S += D; Q += D * D; ++N; each the only
  // update of its variable, and K fixed from the loop's start on.
  const auto *Body = dyn_cast<CompoundStmt>(Loop->getBody());
  const Stmt *FBody = F->getBody();
  if (!Body || !unchangedFrom(K, Loop, FBody, AC))
    return std::nullopt;
  for (const VarDecl *V : {Out.Sum, Out.Squares, Out.Count})
    if (countReferences(Loop, V) != 1 || V == Out.Into)
      return std::nullopt;
  bool Found = false;
  for (const Stmt *St : Body->body()) {
    const auto *D = dyn_cast<DeclStmt>(St);
    const auto *DV = D && D->isSingleDecl()
                         ? dyn_cast<VarDecl>(D->getSingleDecl())
                         : nullptr;
    const BinaryOperator *DInit =
        DV && DV->getInit() ? binary(DV->getInit(), BO_Sub) : nullptr;
    if (!DInit || varOf(DInit->getRHS()) != K || isModifiedIn(DV, Body))
      continue;
    bool HasS = false, HasQ = false, HasN = false;
    for (const Stmt *U : Body->body()) {
      HasS |=
          addsTo(U, [&](const Expr *X) { return varOf(X) == DV; }) == Out.Sum;
      HasQ |=
          addsTo(U, [&](const Expr *X) {
            const BinaryOperator *M = binary(X, BO_Mul);
            return M && varOf(M->getLHS()) == DV && varOf(M->getRHS()) == DV;
          }) == Out.Squares;
      const auto *Inc = dyn_cast<UnaryOperator>(U);
      HasN |=
          Inc && Inc->isIncrementOp() && varOf(Inc->getSubExpr()) == Out.Count;
    }
    Found |= HasS && HasQ && HasN;
  }
  if (!Found)
    return std::nullopt;
  return Out;
}

std::optional<SoftmaxFold>
matchSoftmaxFold(const ForStmt *Loop, const FunctionDecl *F, ASTContext &AC) {
  const auto *Body = dyn_cast_or_null<CompoundStmt>(Loop->getBody());
  if (!Body || !F->getBody())
    return std::nullopt;
  auto Local = [](const Stmt *S) -> const VarDecl * {
    const auto *DS = dyn_cast<DeclStmt>(S);
    const auto *V = DS && DS->isSingleDecl()
                        ? dyn_cast<VarDecl>(DS->getSingleDecl())
                        : nullptr;
    return V && V->getInit() && V->getType().isConstQualified() ? V : nullptr;
  };
  // exp(a - b), the difference returned.
  auto ExpOf = [](const Expr *E) {
    const auto *Call = dyn_cast<CallExpr>(bare(E));
    return Call && isExp(Call) ? binary(Call->getArg(0), BO_Sub) : nullptr;
  };
  ArrayRef<Stmt *> Stmts(Body->body_begin(), Body->body_end());
  for (size_t I = 0; I + 3 < Stmts.size(); ++I) {
    // const T E = element; const T N = fmaxf(M, E);
    const VarDecl *E = Local(Stmts[I]), *N = Local(Stmts[I + 1]);
    const auto *Max = N ? dyn_cast<CallExpr>(bare(N->getInit())) : nullptr;
    if (!E || !Max || Max->getNumArgs() != 2 || !Max->getDirectCallee() ||
        !minMaxKind(Max->getDirectCallee()->getName()) ||
        *minMaxKind(Max->getDirectCallee()->getName()) != Accumulator::Max ||
        varOf(Max->getArg(1)) != E)
      continue;
    const VarDecl *M = varOf(Max->getArg(0));
    // S = S * exp(M - N) + exp(E - N);
    const auto *Update = dyn_cast<Expr>(Stmts[I + 2]);
    const BinaryOperator *Set = Update ? binary(Update, BO_Assign) : nullptr;
    const BinaryOperator *Plus = Set ? binary(Set->getRHS(), BO_Add) : nullptr;
    const BinaryOperator *Scale =
        Plus ? binary(Plus->getLHS(), BO_Mul) : nullptr;
    const VarDecl *S = Set ? varOf(Set->getLHS()) : nullptr;
    const BinaryOperator *Old = Scale ? ExpOf(Scale->getRHS()) : nullptr;
    const BinaryOperator *New = Plus ? ExpOf(Plus->getRHS()) : nullptr;
    if (!M || !S || !Old || !New || varOf(Scale->getLHS()) != S ||
        varOf(Old->getLHS()) != M || varOf(Old->getRHS()) != N ||
        varOf(New->getLHS()) != E || varOf(New->getRHS()) != N)
      continue;
    // M = N;
    const auto *Last = dyn_cast<Expr>(Stmts[I + 3]);
    const BinaryOperator *Keep = Last ? binary(Last, BO_Assign) : nullptr;
    if (!Keep || varOf(Keep->getLHS()) != M || varOf(Keep->getRHS()) != N)
      continue;
    // Locals of the function, outside the loop, S from zero; no other
    // reference in the loop.
    if (M == S || !S->getInit() || !isConstant(S->getInit(), AC, 0) ||
        !M->hasLocalStorage() || !S->hasLocalStorage() ||
        M->hasAttr<CUDASharedAttr>() || S->hasAttr<CUDASharedAttr>() ||
        varsDeclaredIn(Loop).count(M) || varsDeclaredIn(Loop).count(S) ||
        countReferences(Loop, M) != 3 || countReferences(Loop, S) != 2)
      continue;
    // After the loop: if (S != 0) { w += S * exp(M - centre); }, the only
    // reads of M and S.
    const SourceManager &SM = AC.getSourceManager();
    std::optional<SoftmaxFold> Out;
    forEachSubStmt(F->getBody(), [&](const Stmt *X) {
      const auto *If = dyn_cast<IfStmt>(X);
      if (Out || !If || If->getElse() || If->getInit() ||
          If->getConditionVariable() ||
          !SM.isBeforeInTranslationUnit(Loop->getEndLoc(), If->getBeginLoc()))
        return;
      const BinaryOperator *Cond = binary(If->getCond(), BO_NE);
      const Stmt *Then = If->getThen();
      if (const auto *CS = dyn_cast<CompoundStmt>(Then))
        Then = CS->size() == 1 ? CS->body_front() : nullptr;
      if (!Cond || !isConstant(Cond->getRHS(), AC, 0) ||
          varOf(Cond->getLHS()) != S || !Then)
        return;
      const VarDecl *W = addsTo(Then, [&](const Expr *T) {
        const BinaryOperator *Times = binary(T, BO_Mul);
        const BinaryOperator *D = Times ? ExpOf(Times->getRHS()) : nullptr;
        return D && varOf(Times->getLHS()) == S && varOf(D->getLHS()) == M &&
               countReferences(D->getRHS(), M) == 0 &&
               countReferences(D->getRHS(), S) == 0;
      });
      if (W && W != M && W != S && countReferences(If, M) == 1 &&
          countReferences(If, S) == 2)
        Out = SoftmaxFold{M, S, W, If};
    });
    if (!Out)
      continue;
    for (const VarDecl *V : {M, S})
      if (countReferences(F->getBody(), V) !=
          countReferences(Loop, V) + countReferences(Out->If, V))
        return std::nullopt;
    return Out;
  }
  return std::nullopt;
}

std::optional<Decision<DeviationSumLoop>>
matchDeviationSum(const ForStmt *Loop, DeviationTerm Term, ASTContext &AC) {
  std::optional<CountedLoop> CL = matchCountedLoop(Loop);
  if (!CL || !Loop->getBody())
    return std::nullopt;
  const Stmt *Body = Loop->getBody();
  SmallVector<const Stmt *, 4> Stmts = statementsOf(Body);
  // The candidate: a statement adding a product of two equal factors.
  SmallPtrSet<const VarDecl *, 8> Locals = varsDeclaredIn(Body);
  DeviationSumLoop Out;
  Out.Loop = Loop;
  const Stmt *Update = nullptr;
  const Expr *Deviation = nullptr;
  for (const Stmt *S : Stmts) {
    const VarDecl *V = nullptr;
    std::optional<AddedTerm> T = addedTerm(S, V, Locals);
    if (!T || T->Term != Term || Locals.count(V) || V == CL->Var)
      continue;
    const Expr *X = resolve(T->First, Locals), *Y = resolve(T->Second, Locals);
    if (X != Y && withoutSpaces(sourceText(X->getSourceRange(), AC)) !=
                      withoutSpaces(sourceText(Y->getSourceRange(), AC)))
      continue;
    // A function of anything but a difference (a sum of squares, a norm,
    // exp(x[i])) is not the second loop of a variance or softmax.
    if (const auto *D = dyn_cast<BinaryOperator>(X);
        !D || D->getOpcode() != BO_Sub)
      continue;
    Update = S;
    Out.Acc = V;
    Out.Term = T->Term;
    Out.Exp = T->Exp;
    Deviation = X;
    break;
  }
  if (!Update)
    return std::nullopt;
  LineCol Loc = lineCol(Update->getBeginLoc(), AC);
  std::string What = Out.Term == DeviationTerm::Square
                         ? "squared deviations"
                         : "exponentials of deviations";
  auto Fail = [&](const Twine &Why) {
    return Decision<DeviationSumLoop>(
        Refusal{"the loop at " + str(lineCol(Loop->getBeginLoc(), AC)) + " " +
                    Why.str(),
                Loc});
  };
  // Nothing else: locals that feed the update, initialized without side
  // effects and never changed.
  for (const Stmt *S : Stmts) {
    if (S == Update || isa<NullStmt>(S))
      continue;
    const auto *DS = dyn_cast<DeclStmt>(S);
    if (!DS)
      return Fail("does more than add " + What + " to '" +
                  Out.Acc->getNameAsString() + "' (at " +
                  str(lineCol(S->getBeginLoc(), AC)) + ")");
    for (const Decl *D : DS->decls()) {
      const auto *V = dyn_cast<VarDecl>(D);
      if (!V || !V->getInit() || V->getType()->isReferenceType() ||
          !V->getType()->isScalarType() || !sideEffectFree(V->getInit(), AC) ||
          isModifiedIn(V, Body))
        return Fail("declares '" +
                    (V ? V->getNameAsString() : std::string("something")) +
                    "', which is not a scalar initialized without side "
                    "effects and never changed");
    }
  }
  const VarDecl *V = Out.Acc;
  if (!V->hasLocalStorage() || V->hasAttr<CUDASharedAttr>() ||
      V->getType().isVolatileQualified() || !V->getType()->isRealFloatingType())
    return Fail("adds to '" + V->getNameAsString() +
                "', which is not a local floating-point scalar");
  // The deviation: element - centre (or centre - element).
  const auto *D = cast<BinaryOperator>(Deviation);
  Out.Type = D->getType().getCanonicalType();
  if (!Out.Type->isRealFloatingType())
    return Fail("computes its deviation in '" + Out.Type.getAsString() +
                "', not a floating-point type");
  auto Varies = [&](const Expr *E) {
    return countReferences(E, CL->Var) != 0 ||
           any_of(Locals,
                  [&](const VarDecl *L) { return countReferences(E, L) != 0; });
  };
  const Expr *L = resolve(D->getLHS(), Locals);
  const Expr *R = resolve(D->getRHS(), Locals);
  // (centre - element)^2 is a squared deviation; exp(centre - element) is
  // not a softmax's.
  if (Out.Term == DeviationTerm::Square && Varies(R) && !Varies(L))
    std::swap(L, R);
  if (!Varies(L) || Varies(R))
    return Fail(
        "adds the " +
        std::string(Out.Term == DeviationTerm::Square ? "square"
                                                      : "exponential") +
        " of '" + sourceText(D->getSourceRange(), AC) +
        "', not the difference of an element and a value the loop does not "
        "change" +
        (Out.Term == DeviationTerm::Exp ? " (element - value)" : ""));
  Out.Element = L;
  Out.Center = R;
  Out.Load = loadUnder(L);
  if (!Out.Load || hasSideEffects(Out.Load->getIdx(), AC))
    return Fail("reads '" + sourceText(L->getSourceRange(), AC) +
                "', which is not an element of an array (converted at most "
                "by casts)");
  for (const Expr *E : {L, R})
    if (!isRewritable(E->getSourceRange(), AC))
      return Fail("writes '" + sourceText(E->getSourceRange(), AC) +
                  "' in a macro");
  if (hasSideEffects(R, AC) || countReferences(R, V) != 0)
    return Fail("deviates from '" + sourceText(R->getSourceRange(), AC) +
                "', which has side effects or reads '" + V->getNameAsString() +
                "'");
  return Decision<DeviationSumLoop>(Out);
}

} // namespace kopt
