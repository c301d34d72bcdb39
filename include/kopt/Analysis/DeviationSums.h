//===- DeviationSums.h - Loops summing functions of deviations -*- C++ -*-===//
//
// The second loop of a two-pass variance or softmax: a loop whose every
// iteration adds a function of an element's deviation from a value the
// loop does not change, and does nothing else. The functions: the square
// (a variance),
//
//   for (int i = threadIdx.x; i < n; i += blockDim.x) {
//     float d = x[i] - mean;   // locals that only feed the update
//     v += d * d;              // or v = v + d*d, v = fmaf(d, d, v),
//   }                          //    v += (x[i] - mean) * (x[i] - mean),
//                              //    v += powf(d, 2), v += sq (sq = d*d)
//
// and the exponential of `element - centre` (a softmax's denominator):
// `s += expf(x[i] - max)`, also `s = s + __expf(d)`, `exp`, the term kept
// in a local (`float e = expf(x[i] - max); s += e;`).
//
// matchDeviationSum takes such a loop apart: the accumulator v (a local
// floating-point scalar declared outside the loop), the element (x[i], with
// the conversions written around it: `__half2float(x[i])`, `(float)x[i]`),
// the centre (`mean`: no side effects, no loop-local or loop variable, not
// v), the deviation's type and the function. Which loop reads the same
// elements first, and whether they hold the same values there, is
// ReReadLoops.h's question; the rewrites are passes/OnePassVariance.cpp
// and passes/OnlineSoftmax.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef KOPT_ANALYSIS_DEVIATIONSUMS_H
#define KOPT_ANALYSIS_DEVIATIONSUMS_H

#include "kopt/Analysis/Refusal.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "clang/AST/Stmt.h"

#include <optional>

namespace kopt {

/// What a deviation sum adds of each deviation d.
enum class DeviationTerm {
  Square, ///< d * d
  Exp,    ///< exp(d), d = element - centre
};

struct DeviationSumLoop {
  const clang::ForStmt *Loop = nullptr;
  DeviationTerm Term = DeviationTerm::Square;
  /// Exp: the call (`expf(x[i] - m)`, `__expf(d)`); its callee is the
  /// exponential the rewrite uses.
  const clang::CallExpr *Exp = nullptr;
  const clang::VarDecl *Acc = nullptr; ///< v
  /// The element as the deviation reads it, conversions included
  /// (`__half2float(x[i])`), after the loop's locals are followed.
  const clang::Expr *Element = nullptr;
  /// The load in Element (`x[i]`).
  const clang::ArraySubscriptExpr *Load = nullptr;
  const clang::Expr *Center = nullptr; ///< mean
  /// The type the deviation is computed in (float, double).
  clang::QualType Type;
};

/// The closed form passes/OnePassVariance.cpp puts in such a loop's place,
/// after the earlier loop Loop that accumulates its sums:
///
///   if (N != 0) {
///     const T C = centre - K;
///     w += Q - C * (2 * S - (T)N * C);
///   }
///
/// where Loop's body, unconditionally, computes `T D = element - K;` and
/// adds `S += D; Q += D * D; ++N;` (their only updates), and K is never
/// changed once Loop starts. Then w gains sum (element - centre)^2 over the
/// iterations the thread ran, whichever those were: each element's term is
/// the same in every thread (the shift K cancels), as in the loop of
/// squared deviations that was replaced. Vectorizing Loop (another share
/// of its iterations per thread) keeps w such a partial.
struct VarianceFold {
  const clang::VarDecl *Into = nullptr; ///< w
  const clang::VarDecl *Sum = nullptr, *Squares = nullptr, *Count = nullptr;
};
std::optional<VarianceFold> matchVarianceFold(const clang::IfStmt *If,
                                              const clang::ForStmt *Loop,
                                              const clang::FunctionDecl *F,
                                              clang::ASTContext &AC);

/// The closed form passes/OnlineSoftmax.cpp puts in place of a sum of
/// exponentials, after the earlier loop Loop that keeps its running pair:
///
///   if (S != 0) {
///     w += S * exp(M - centre);
///   }
///
/// where Loop's body, unconditionally, computes `const T E = element;
/// const T N = fmaxf(M, E); S = S * exp(M - N) + exp(E - N); M = N;`
/// (fmax for double; expf, exp or __expf), the only references to M and S
/// in the loop, and nothing but the closed form reads them after it; S
/// starts at 0. Then w gains sum exp(element - centre) over the iterations
/// the thread ran, whichever those were: (M, S) is the largest element and
/// the sum of exponentials scaled to it of any set of elements, folded in
/// any order. Vectorizing Loop (another share of its iterations per
/// thread, the body copied for each element) keeps w such a partial.
struct SoftmaxFold {
  const clang::VarDecl *Max = nullptr, *Sum = nullptr; ///< M, S
  const clang::VarDecl *Into = nullptr;                ///< w
  const clang::IfStmt *If = nullptr;
};
std::optional<SoftmaxFold> matchSoftmaxFold(const clang::ForStmt *Loop,
                                            const clang::FunctionDecl *F,
                                            clang::ASTContext &AC);

/// Loop taken apart as above, for sums of \p Term; a Refusal when its body
/// adds that function of a deviation to an outer variable but is not only
/// that; none when the loop adds no such term (it is no candidate).
std::optional<Decision<DeviationSumLoop>>
matchDeviationSum(const clang::ForStmt *Loop, DeviationTerm Term,
                  clang::ASTContext &AC);

} // namespace kopt

#endif // KOPT_ANALYSIS_DEVIATIONSUMS_H
