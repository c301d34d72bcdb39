//===- LoopAccumulators.h - What a loop only accumulates into -*- C++ -*-===//
//
// A loop whose iterations are divided among threads may still carry state
// from one iteration to the next, if that state is a reduction: each thread
// folds its own iterations into a private copy, and the copies are combined
// afterwards. This analysis says when the state a loop carries is nothing
// but such accumulators:
//
//   * every variable declared outside the loop that the loop writes (its
//     own counter's step aside) is an accumulator: each write is
//     `v += e`, `v -= e`, `v = v + e`, `v = e + v`, `v = v - e`, `++v`,
//     `v++`, `--v`, `v--`, `v = fmaf(a, b, v)` (fma, __fmaf_rn,
//     __fma_rn: a sum), or `v = f(v, e)` / `v = f(e, v)` with f one of
//     fmaxf, fmax, max (a maximum) or fminf, fmin, min (a minimum), or a
//     selection `if (e > v) v = e;` / `v = e > v ? e : v;` (a maximum;
//     `>=`, `v < e` alike; `<` a minimum) with e the same side-effect-free
//     expression, of v's type, in the test and the assignment; one kind
//     per variable;
//   * e reads no accumulator of the loop, and nothing else in the loop
//     reads one: a thread's partial value decides nothing;
//   * the variable is a built-in integer or floating-point scalar that
//     __shfl_xor_sync carries (int, unsigned, long long, float, double and
//     their kin of 32 and 64 bits).
//
// What is exact: integer sums (wrapping addition is associative and
// commutative), integer maxima and minima, and floating-point maxima and
// minima through fmaxf/fminf/fmax/fmin (which return the other operand of a
// NaN, and so do not depend on the order either). A floating-point sum in
// another order rounds differently, and a floating-point selection keeps
// the first of two values that compare equal (-0.0 and +0.0), which the
// order decides: Accumulator::Exact is false. (A selection never takes a
// NaN e, in any order.)
//
//===----------------------------------------------------------------------===//

#ifndef KOPT_ANALYSIS_LOOPACCUMULATORS_H
#define KOPT_ANALYSIS_LOOPACCUMULATORS_H

#include "kopt/Analysis/Refusal.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Stmt.h"

#include <optional>
#include <string>
#include <vector>

namespace kopt {

struct Accumulator {
  enum KindT { Sum, Max, Min };
  const clang::VarDecl *Var = nullptr;
  KindT Kind = Sum;
  /// The function that combines two partial values of a maximum or
  /// minimum, as the loop calls it (`fmaxf`); empty for sums and
  /// selections.
  std::string Combine;
  /// Whether combining partial values in another order gives the same bits.
  bool Exact = true;
};

/// The accumulators Loop carries, one for each variable declared outside
/// it that it writes, or why its state is more than that. A loop that
/// writes no outer variable has none. Variables in \p Vouched are left out:
/// the caller has shown what they carry (online-softmax's running pair,
/// DeviationSums.h's SoftmaxFold).
Decision<std::vector<Accumulator>>
loopAccumulators(const clang::ForStmt *Loop, clang::ASTContext &Ctx,
                 llvm::ArrayRef<const clang::VarDecl *> Vouched = {});

/// The kind of fmaxf, fmax, max (a maximum) and fminf, fmin, min (a
/// minimum); none for any other name.
std::optional<Accumulator::KindT> minMaxKind(llvm::StringRef Callee);

/// The kind of update S makes to V, when S is one of the updates above
/// (a guarded selection aside): `v += e`, `v = fmaxf(v, e)`, ...; e may read
/// V (a shuffle of it). None for anything else.
std::optional<Accumulator::KindT> updateKind(const clang::Stmt *S,
                                             const clang::VarDecl *V,
                                             const clang::ASTContext &Ctx);

/// The expression that combines A's partial value \p X with \p Y, the
/// partial value of later elements: `X + Y`, `fmaxf(X, Y)`, or for a
/// selection `Y > X ? Y : X` (X and Y are names: they may be read twice).
std::string combineExpr(const Accumulator &A, llvm::StringRef X,
                        llvm::StringRef Y);

/// The statement that folds \p Other, a partial value of later elements
/// evaluated once (a shuffle), into A's variable: `v += Other;`, `v =
/// fmaxf(v, Other);`, or `{ const T kopt_y = Other; v = kopt_y > v ? kopt_y
/// : v; }` with T \p Type.
std::string foldStatement(const Accumulator &A, llvm::StringRef Type,
                          llvm::StringRef Other);

/// For a sum whose loop is divided among participants that each fold a
/// share: `if (Others)\n<Indent>  v = 0;\n`, so that only the participant
/// for which \p Others is false keeps the value v had before the loop; ""
/// for maxima and minima, which may see their start any number of times.
std::string restartStatement(const Accumulator &A, llvm::StringRef Others,
                             llvm::StringRef Indent);

} // namespace kopt

#endif // KOPT_ANALYSIS_LOOPACCUMULATORS_H
