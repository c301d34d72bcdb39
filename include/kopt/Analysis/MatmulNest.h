//===- MatmulNest.h - Kernels that compute a dense matrix product -*- C++ -*-===//
//
// Recognizes a kernel in which every thread computes one element of
//
//   C(i, j) = epilogue(sum over k = 0, 1, ..., K-1 of A(i, k) * B(k, j))
//
// with i and j the thread's row and column (blockIdx * tile + threadIdx in
// two dimensions), A(i, k) = A[i * SA + k * TA] and B(k, j) = B[k * TB + j *
// SB] for strides that are kernel parameters or constants (so transposes are
// the same form), and the sum taken in increasing k by one accumulator. Two
// ways of writing it are understood:
//
//   - the dot-product loop: `for (k = 0; k < K; ++k) acc += A[..] * B[..]`;
//   - the textbook shared-memory tiling: a loop over tiles of T (`t += T`)
//     whose threads each store one element of an A tile and of a B tile,
//     masked with zero beyond K, a barrier, `for (k = 0; k < T; ++k) acc +=
//     As[ty][k] * Bs[k][tx]`, a barrier. Each shared read is traced to the
//     thread that stored it, so the products are A(i, t + k) * B(t + k, j),
//     and zero times zero where t + k >= K.
//
// The result names everything a rewrite needs; launches are the pass's
// business (tile-matmul).
//
//===----------------------------------------------------------------------===//

#ifndef KOPT_ANALYSIS_MATMULNEST_H
#define KOPT_ANALYSIS_MATMULNEST_H

#include "kopt/Analysis/Polynomial.h"
#include "kopt/Analysis/Refusal.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Stmt.h"

#include <optional>

namespace kopt {

/// One factor of the products: Base[Outer * x + Reduce * k], x the row
/// (for A) or the column (for B).
struct MatmulOperand {
  const clang::ParmVarDecl *Base = nullptr;
  Polynomial Outer, Reduce;
};

/// How a thread's row or column is computed: blockIdx.<Dim> * Tile +
/// threadIdx.<Dim>, Tile a constant or (unset) blockDim.<Dim>; the guard
/// keeps it below Bound.
struct MatmulAxis {
  const clang::VarDecl *Var = nullptr;
  unsigned Dim = 0;
  std::optional<int64_t> Tile;
  const clang::ParmVarDecl *Bound = nullptr;
};

struct MatmulNest {
  enum Form { DotLoop, SharedTiles };
  Form F = DotLoop;
  MatmulAxis Row, Col;
  const clang::VarDecl *Acc = nullptr;
  /// The accumulator's initial value where it is not zero (`bias[col]`):
  /// side-effect-free, reading only the row, the column and parameters, so
  /// it can be evaluated again for each element.
  const clang::Expr *AccInit = nullptr;
  const clang::ParmVarDecl *Reduce = nullptr; ///< K
  MatmulOperand A, B;
  const clang::ParmVarDecl *C = nullptr;
  Polynomial CRow, CCol; ///< C(i, j) = C[i * CRow + j * CCol]
  /// The if whose then-branch holds the store (`row < M && col < N`), or,
  /// with GuardReturns, the top-level `if (row >= M || col >= N) return;`
  /// before the loop.
  const clang::IfStmt *Guard = nullptr;
  bool GuardReturns = false;
  const clang::Stmt *Store = nullptr; ///< `C[...] = value;`
  clang::QualType Elem;               ///< of A, B and the accumulator
  /// SharedTiles: the tile T; a launch needs at least T threads along each
  /// dimension in SharedDims for every shared element read to be stored.
  int64_t SharedTile = 0;
  bool SharedDims[2] = {false, false};
  LineCol Loc; ///< the accumulation
};

/// The nest of Kernel, or why there is none. A Refusal with an empty
/// message means the kernel does not look like a matrix product at all (no
/// `acc += x * y` in a loop): a pass stays silent.
Decision<MatmulNest> findMatmulNest(const clang::FunctionDecl *Kernel,
                                    clang::ASTContext &Ctx);

} // namespace kopt

#endif // KOPT_ANALYSIS_MATMULNEST_H
