//===- Polynomial.cpp - Integer index expressions as polynomials ----------===//

#include "kopt/Analysis/Polynomial.h"
#include "kopt/Analysis/Mutation.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>

using namespace clang;

namespace kopt {

Polynomial Polynomial::constant(int64_t C) {
  Polynomial P;
  if (C)
    P.Terms[{}] = C;
  return P;
}

Polynomial Polynomial::symbol(PolySymbol S) {
  Polynomial P;
  P.Terms[{S}] = 1;
  return P;
}

std::optional<int64_t> Polynomial::asConstant() const {
  if (Terms.empty())
    return 0;
  if (Terms.size() == 1 && Terms.begin()->first.empty())
    return Terms.begin()->second;
  return std::nullopt;
}

bool Polynomial::mentions(const PolySymbol &S) const {
  return llvm::any_of(Terms, [&](const auto &T) {
    return llvm::is_contained(T.first, S);
  });
}

bool Polynomial::onlySymbols(
    const std::function<bool(const PolySymbol &)> &Pred) const {
  for (const auto &[M, C] : Terms)
    for (const PolySymbol &S : M)
      if (!Pred(S))
        return false;
  return true;
}

std::optional<Polynomial> Polynomial::coefficientOf(const PolySymbol &S) const {
  Polynomial Q;
  for (const auto &[M, C] : Terms) {
    auto N = llvm::count(M, S);
    if (N > 1)
      return std::nullopt;
    if (N == 0)
      continue;
    Monomial Rest = M;
    Rest.erase(llvm::find(Rest, S));
    Q.Terms[Rest] = C;
  }
  return Q;
}

Polynomial Polynomial::without(const PolySymbol &S) const {
  Polynomial R;
  for (const auto &[M, C] : Terms)
    if (!llvm::is_contained(M, S))
      R.Terms[M] = C;
  return R;
}

std::optional<Polynomial> Polynomial::substitute(const PolySymbol &S,
                                                 const Polynomial &By) const {
  Polynomial R;
  for (const auto &[M, C] : Terms) {
    Polynomial Term = constant(C);
    for (const PolySymbol &X : M) {
      std::optional<Polynomial> Next =
          multiply(Term, X == S ? By : symbol(X));
      if (!Next)
        return std::nullopt;
      Term = std::move(*Next);
    }
    std::optional<Polynomial> Sum = add(R, Term);
    if (!Sum)
      return std::nullopt;
    R = std::move(*Sum);
  }
  return R;
}

std::string Polynomial::str(
    const std::function<std::string(const PolySymbol &)> &Name) const {
  if (Terms.empty())
    return "0";
  std::string Out;
  // Constants last, as people write them.
  std::vector<std::pair<Monomial, int64_t>> Ordered(Terms.rbegin(),
                                                    Terms.rend());
  for (const auto &[M, C] : Ordered) {
    int64_t Abs = C < 0 ? -C : C;
    if (Out.empty())
      Out = C < 0 ? "-" : "";
    else
      Out += C < 0 ? " - " : " + ";
    std::string Factors;
    for (const PolySymbol &S : M)
      Factors += (Factors.empty() ? "" : " * ") + Name(S);
    if (Factors.empty())
      Out += std::to_string(Abs);
    else if (Abs == 1)
      Out += Factors;
    else
      Out += std::to_string(Abs) + " * " + Factors;
  }
  return Out;
}

std::optional<Polynomial> add(const Polynomial &A, const Polynomial &B,
                              int64_t ScaleB) {
  Polynomial R = A;
  for (const auto &[M, C] : B.Terms) {
    int64_t Scaled;
    if (llvm::MulOverflow(C, ScaleB, Scaled))
      return std::nullopt;
    int64_t &Coef = R.Terms[M];
    if (llvm::AddOverflow(Coef, Scaled, Coef))
      return std::nullopt;
    if (Coef == 0)
      R.Terms.erase(M);
  }
  return R;
}

std::optional<Polynomial> multiply(const Polynomial &A, const Polynomial &B) {
  Polynomial R;
  for (const auto &[MA, CA] : A.Terms)
    for (const auto &[MB, CB] : B.Terms) {
      Monomial M = MA;
      M.insert(M.end(), MB.begin(), MB.end());
      std::sort(M.begin(), M.end());
      int64_t C;
      if (llvm::MulOverflow(CA, CB, C))
        return std::nullopt;
      int64_t &Coef = R.Terms[M];
      if (llvm::AddOverflow(Coef, C, Coef))
        return std::nullopt;
      if (Coef == 0)
        R.Terms.erase(M);
    }
  return R;
}

std::optional<Polynomial> PolyBuilder::leaf(PolySymbol S) const {
  auto It = Subst.find(S);
  return It == Subst.end() ? Polynomial::symbol(S) : It->second;
}

std::optional<Polynomial> PolyBuilder::build(const Expr *E, unsigned Depth) {
  if (!E || Depth > 32)
    return std::nullopt;
  E = stripCasts(E)->IgnoreParens();
  if (!E->getType()->isIntegralOrEnumerationType())
    return std::nullopt;
  if (std::optional<BuiltinRef> B = matchBuiltin(E))
    return leaf(PolySymbol::builtin(B->Var, B->Dim));
  if (!E->isValueDependent()) {
    Expr::EvalResult R;
    if (E->EvaluateAsInt(R, Ctx) && R.Val.getInt().getSignificantBits() <= 63)
      return Polynomial::constant(R.Val.getInt().getSExtValue());
  }
  if (const auto *U = dyn_cast<UnaryOperator>(E)) {
    if (U->getOpcode() == UO_Plus)
      return build(U->getSubExpr(), Depth + 1);
    if (U->getOpcode() == UO_Minus)
      if (std::optional<Polynomial> P = build(U->getSubExpr(), Depth + 1))
        return add(Polynomial(), *P, -1);
    return std::nullopt;
  }
  if (const auto *B = dyn_cast<BinaryOperator>(E)) {
    std::optional<Polynomial> L = build(B->getLHS(), Depth + 1);
    std::optional<Polynomial> R = L ? build(B->getRHS(), Depth + 1)
                                    : std::nullopt;
    if (!L || !R)
      return std::nullopt;
    switch (B->getOpcode()) {
    case BO_Add:
      return add(*L, *R);
    case BO_Sub:
      return add(*L, *R, -1);
    case BO_Mul:
      return multiply(*L, *R);
    default:
      return std::nullopt;
    }
  }
  const VarDecl *V = referencedVar(E);
  if (!V)
    return std::nullopt;
  PolySymbol S = PolySymbol::variable(V);
  if (Subst.count(S) || llvm::is_contained(Whole, V) ||
      llvm::is_contained(Counters, V))
    return leaf(S);
  if (isModifiedIn(V, Scope))
    return std::nullopt;
  if (isa<ParmVarDecl>(V))
    return leaf(S);
  if (V->hasLocalStorage() && V->getInit() && !V->getType()->isReferenceType())
    return build(V->getInit(), Depth + 1);
  return std::nullopt;
}

} // namespace kopt
