//===- Polynomial.h - Integer index expressions as polynomials --*- C++ -*-===//
//
// Index expressions of dense linear algebra are not affine: `row * K + k`
// multiplies a thread-dependent value by a run-time size. A Polynomial is a
// sum of products of symbols (parameters, CUDA builtins, loop counters,
// locals kept whole) with integer coefficients, enough to ask "is this index
// i * S + k * T, and what are S and T?" of a matrix access. AffineForm
// (AffineForm.h) stays the tool for questions about threads and grids.
//
//===----------------------------------------------------------------------===//

#ifndef KOPT_ANALYSIS_POLYNOMIAL_H
#define KOPT_ANALYSIS_POLYNOMIAL_H

#include "kopt/Analysis/CudaAST.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace kopt {

/// A variable (parameter, local, loop counter) or a CUDA builtin.
struct PolySymbol {
  const clang::ValueDecl *Decl = nullptr;
  BuiltinVar Var = BuiltinVar::ThreadIdx;
  unsigned Dim = 0;

  static PolySymbol variable(const clang::ValueDecl *D) { return {D}; }
  static PolySymbol builtin(BuiltinVar V, unsigned Dim) {
    return {nullptr, V, Dim};
  }
  bool isBuiltin() const { return !Decl; }
  /// Builtins first, then variables by where they are declared: not by
  /// address, so that the same source gives the same order, and the same
  /// text (str), in every run.
  friend bool operator<(const PolySymbol &A, const PolySymbol &B) {
    auto Key = [](const PolySymbol &S) {
      return std::make_tuple(S.Decl != nullptr,
                             S.Decl ? S.Decl->getLocation().getRawEncoding()
                                    : 0u,
                             unsigned(S.Var), S.Dim);
    };
    if (Key(A) != Key(B))
      return Key(A) < Key(B);
    return std::less<const clang::ValueDecl *>()(A.Decl, B.Decl);
  }
  friend bool operator==(const PolySymbol &A, const PolySymbol &B) {
    return !(A < B) && !(B < A);
  }
};

/// A product of symbols, sorted (a symbol may repeat).
using Monomial = std::vector<PolySymbol>;

class Polynomial {
public:
  static Polynomial constant(int64_t C);
  static Polynomial symbol(PolySymbol S);

  const std::map<Monomial, int64_t> &terms() const { return Terms; }
  bool isZero() const { return Terms.empty(); }
  std::optional<int64_t> asConstant() const;
  bool mentions(const PolySymbol &S) const;
  /// True if every symbol satisfies Pred.
  bool onlySymbols(const std::function<bool(const PolySymbol &)> &Pred) const;

  /// P = S * Q + R where S divides no monomial of R: returns Q, or none when
  /// S appears squared in a monomial.
  std::optional<Polynomial> coefficientOf(const PolySymbol &S) const;
  /// The monomials that do not mention S.
  Polynomial without(const PolySymbol &S) const;
  /// Every occurrence of S replaced by By.
  std::optional<Polynomial> substitute(const PolySymbol &S,
                                       const Polynomial &By) const;

  /// "2 * K * M + N", symbols named by Name (parenthesize as needed: the
  /// result is a sum).
  std::string
  str(const std::function<std::string(const PolySymbol &)> &Name) const;

  friend std::optional<Polynomial> add(const Polynomial &A, const Polynomial &B,
                                       int64_t ScaleB);
  friend std::optional<Polynomial> multiply(const Polynomial &A,
                                            const Polynomial &B);
  friend bool operator==(const Polynomial &A, const Polynomial &B) {
    return A.Terms == B.Terms;
  }
  friend bool operator!=(const Polynomial &A, const Polynomial &B) {
    return !(A == B);
  }

private:
  std::map<Monomial, int64_t> Terms; ///< no zero coefficients
};

std::optional<Polynomial> add(const Polynomial &A, const Polynomial &B,
                              int64_t ScaleB = 1);
std::optional<Polynomial> multiply(const Polynomial &A, const Polynomial &B);

/// Builds polynomials for integer expressions of one function body: integer
/// constants, +, -, *, unary minus, parameters and locals. A local that is
/// never modified in Scope is replaced by its initializer, unless it is in
/// Whole (kept as its own symbol); a loop counter or parameter never
/// modified is a symbol; a builtin is a symbol. Substitutions replace a
/// symbol by a polynomial as it is built (a thread's neighbour's indices).
class PolyBuilder {
public:
  PolyBuilder(const clang::ASTContext &Ctx, const clang::Stmt *Scope)
      : Ctx(Ctx), Scope(Scope) {}

  void keepWhole(const clang::VarDecl *V) { Whole.push_back(V); }
  /// Treats V as a symbol even though Scope modifies it (a loop counter).
  void counter(const clang::VarDecl *V) { Counters.push_back(V); }
  void substitute(PolySymbol S, Polynomial By) { Subst[S] = std::move(By); }
  void clearSubstitutions() { Subst.clear(); }

  std::optional<Polynomial> build(const clang::Expr *E, unsigned Depth = 0);

private:
  std::optional<Polynomial> leaf(PolySymbol S) const;

  const clang::ASTContext &Ctx;
  const clang::Stmt *Scope;
  std::vector<const clang::VarDecl *> Whole, Counters;
  std::map<PolySymbol, Polynomial> Subst;
};

} // namespace kopt

#endif // KOPT_ANALYSIS_POLYNOMIAL_H
