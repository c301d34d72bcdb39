//===- GridSplit.h - A grid-stride kernel on a larger grid ------*- C++ -*-===//
//
// A kernel whose whole work is one grid-stride loop,
//
//   for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
//        i += blockDim.x * gridDim.x)
//     y[i] = f(x[...], i);
//
// processes every index below n exactly once whatever its grid: the grid
// decides only which thread runs which index, and in what order one thread
// runs its indices. When nothing an iteration computes depends on that, a
// launch may start S times as many blocks, each thread walking S times
// fewer iterations, and every result is the same bits. A small fixed grid
// (`<<<32, 256>>>`, one block per SM) leaves most of the GPU idle while each
// thread walks a long loop; this is the rewrite that fills it.
//
// Legality (each failure is a Refusal):
//   * the kernel body is declarations and one grid-stride loop: `for (T i =
//     blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x *
//     gridDim.x)` (either operand order, through unchanged locals), T a
//     signed integer of at least 32 bits, n a kernel parameter of a signed
//     integer type no wider than T, neither changed in the kernel;
//   * threadIdx, blockIdx and gridDim appear only in the loop's start and
//     step (or in unchanged locals used only there): nothing else tells
//     threads apart (blockDim is unchanged by the rewrite); no value on the
//     way to the start or the step is narrower than 32 bits;
//   * the loop body leaves no iteration early for later ones (return,
//     break, goto), has no barrier, warp collective or inline assembly, and
//     writes no variable declared outside it: nothing is carried from one
//     iteration to the next;
//   * no shared memory; calls only to CUDA's and the C library's functions
//     without pointer arguments (no atomics, printf, malloc) and to the
//     read-only loads; memory reached only through pointer parameters
//     (hiddenPointer);
//   * memory is written only as `B[i]` or `B[o + i]` of a pointer parameter
//     B, inside the loop; every use of a written B is such a subscript with
//     the same offset o (uniform, unchanged); a written B is __restrict__,
//     so no other pointer reaches what it points to. Each index's elements
//     are then touched by its own iteration alone.
//
// The launch's side (the grid must stay in gridDim.x, the index must not
// overflow) is a run-time condition the pass writes at each launch.
//
//===----------------------------------------------------------------------===//

#ifndef KOPT_ANALYSIS_GRIDSPLIT_H
#define KOPT_ANALYSIS_GRIDSPLIT_H

#include "kopt/Analysis/KernelInfo.h"
#include "kopt/Analysis/Refusal.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Stmt.h"

#include <vector>

namespace kopt {

struct GridSplitPlan {
  const clang::ForStmt *Loop = nullptr;
  const clang::VarDecl *Index = nullptr;     ///< the loop's counter
  const clang::ParmVarDecl *Bound = nullptr; ///< n of `i < n`
  unsigned IndexBits = 0;                    ///< width of the counter's type
  std::vector<const clang::ParmVarDecl *> Written;
};

/// Whether K's results are the same on any grid, and what a launch must
/// check; a Refusal says why not.
Decision<GridSplitPlan> planGridSplit(const KernelInfo &K,
                                      clang::ASTContext &Ctx);

} // namespace kopt

#endif // KOPT_ANALYSIS_GRIDSPLIT_H
