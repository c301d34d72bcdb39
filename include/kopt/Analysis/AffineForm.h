//===- AffineForm.h - Integer expressions as affine forms -------*- C++ -*-===//
//
// An index or size expression of the AST as a quasi-affine form
//
//   c0 + c1 * s1 + c2 * s2 + ...
//
// over symbols: CUDA's builtin indices, parameters, how far a counted loop
// has advanced, uniform subexpressions that are not affine (`row * n`), and
// floor divisions and remainders of forms by positive constants. The form is
// built once, in the analysis; passes ask questions of it (how an index
// moves from one thread to the next, whether a grid covers a range) here and
// through the Presburger queries of IndexSets.h.
//
//===----------------------------------------------------------------------===//

#ifndef KOPT_ANALYSIS_AFFINEFORM_H
#define KOPT_ANALYSIS_AFFINEFORM_H

#include "kopt/Analysis/CudaAST.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "clang/AST/Stmt.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kopt {

struct AffineForm {
  /// Symbol index -> coefficient; no zero coefficients.
  std::map<unsigned, int64_t> Terms;
  int64_t Constant = 0;

  int64_t coefficient(unsigned Symbol) const;
  bool isConstant() const { return Terms.empty(); }
};

struct AffineSymbol {
  enum Kind {
    Builtin,   ///< threadIdx.x and friends
    Value,     ///< a parameter or variable whose value is not known
    Iteration, ///< iterations a counted loop has made (>= 0)
    Opaque,    ///< a subexpression that is not affine (`row * n`, `min(a, b)`)
    FloorDiv,  ///< Operand / Divisor (Divisor a positive constant)
    Mod,       ///< Operand % Divisor (Divisor a positive constant)
    Quotient   ///< Operand / symbol DivisorSymbol (a uniform run-time value)
  };
  Kind K = Opaque;
  BuiltinRef B{BuiltinVar::ThreadIdx, 0};
  const clang::ValueDecl *Decl = nullptr;
  const clang::Stmt *Loop = nullptr;
  std::string Text; ///< as written, without spaces (Opaque, Value)
  AffineForm Operand;
  int64_t Divisor = 1;
  unsigned DivisorSymbol = 0;
  /// C's `/` and `%` round toward zero: the same as floor division only for
  /// a non-negative operand (`>>` and `& (2^k-1)` are exact for any sign).
  bool Truncates = false;
  /// The same in every thread of a block.
  bool Uniform = true;
  /// Known to be at least this (builtins, iterations, unsigned values).
  std::optional<int64_t> Min;
  /// An Opaque product of threadIdx.x and a run-time uniform factor
  /// (`threadIdx.x * n`): a stride not known at compile time.
  bool ScalesThreadIdx = false;
};

/// Builds forms for expressions of one function body (or host function),
/// and owns their symbols. Locals are followed to their initializers when
/// nothing in Scope may change them (ExprMutationAnalyzer); a call of a
/// helper whose body is one `return` of integer parameters it does not
/// change (llm.c's `ceil_div(n, b)`, also from a header: SkippedBodies.h)
/// is the form of that return value.
class AffineContext {
public:
  AffineContext(const clang::ASTContext &Ctx, const clang::Stmt *Scope)
      : Ctx(Ctx), EvalCtx(&Ctx), Scope(Scope) {}

  /// The form of E; std::nullopt when E is not quasi-affine in the symbols
  /// above (a load from memory, a thread-dependent call, a variable written
  /// in a loop, ...).
  std::optional<AffineForm> build(const clang::Expr *E);

  const AffineSymbol &symbol(unsigned I) const { return Symbols[I]; }
  unsigned numSymbols() const { return Symbols.size(); }
  /// The symbol index of a builtin, created on first use.
  unsigned builtin(BuiltinVar Var, unsigned Dim);

  /// No symbol of F varies from one thread of a block to another.
  bool isUniform(const AffineForm &F) const;
  /// The symbols F mentions, directly or inside divisions, once each.
  std::vector<unsigned> symbolsOf(const AffineForm &F) const;
  /// "4*threadIdx.x + n + 1", for remarks and tests.
  std::string str(const AffineForm &F) const;

private:
  std::optional<AffineForm> buildVar(const clang::VarDecl *V,
                                     const clang::Expr *E, unsigned Depth);
  std::optional<AffineForm> buildBinary(const clang::BinaryOperator *B,
                                        unsigned Depth);
  std::optional<AffineForm> build(const clang::Expr *E, unsigned Depth);
  std::optional<AffineForm> opaque(const clang::Expr *E, bool Uniform,
                                   bool ScalesThreadIdx = false);
  unsigned intern(AffineSymbol S);
  AffineForm single(unsigned Symbol, int64_t Coefficient = 1) const;
  std::optional<int64_t> constant(const clang::Expr *E) const;
  bool startsUniformLoop(const clang::VarDecl *V, AffineForm &Out,
                         unsigned Depth);
  std::optional<AffineForm> inlineCall(const clang::CallExpr *Call,
                                       unsigned Depth);

  const clang::ASTContext &Ctx;
  /// Where constants are evaluated: Ctx, or a reparsed helper's context
  /// while its body is read.
  const clang::ASTContext *EvalCtx;
  const clang::Stmt *Scope;
  std::vector<AffineSymbol> Symbols;
  /// The parameters of the helpers being inlined, bound to the forms of
  /// their arguments (innermost call last).
  std::vector<std::pair<const clang::ParmVarDecl *, AffineForm>> Bound;
};

/// Sum, difference and scaling of forms (checked against overflow).
std::optional<AffineForm> add(const AffineForm &A, const AffineForm &B,
                              int64_t ScaleB = 1);
std::optional<AffineForm> scale(const AffineForm &A, int64_t Factor);

} // namespace kopt

#endif // KOPT_ANALYSIS_AFFINEFORM_H
