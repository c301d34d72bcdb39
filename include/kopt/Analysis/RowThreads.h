//===- RowThreads.h - A thread-per-row kernel run by G threads a row -*- C++
//-*-===//
//
// Naive kernels often give each thread one row: `int idx = blockIdx.x *
// blockDim.x + threadIdx.x;` names the row, and loops walk it serially.
// Such a kernel can run with G threads per row without changing what any
// element is computed from, or in which order:
//
//   * code outside loops, and loops that carry state from one iteration to
//     the next (sums, maxima), run in every one of the G threads, the same
//     values in the same order: all G threads hold what the one thread held;
//   * a loop that carries nothing is split: thread `lane` of the row runs
//     the iterations whose counter is congruent to lane modulo G;
//   * memory a loop writes belongs to one thread of the row: element `B[i]`
//     to the thread whose lane is i mod G. A carrying loop stores only in
//     that thread; a split loop runs iteration i only there, so it may read
//     back `B[i]` written earlier by the same thread;
//   * stores outside loops run in lane 0 alone.
//
// Legality (each failure is a Refusal):
//   * threadIdx/blockIdx/blockDim/gridDim appear only in one variable's
//     initializer, `blockIdx.x * blockDim.x + threadIdx.x`, never changed;
//   * no shared memory, barrier, warp collective, inline assembly, call of a
//     function outside CUDA's and the C library's headers, call with a
//     pointer argument (atomics) other than the read-only loads (__ldg);
//   * memory is written only through pointer parameters that are
//     __restrict__ (no other pointer reaches what they point to), through
//     pointers based on them; the kernel reaches memory only through its
//     pointer parameters (hiddenPointer);
//   * a written parameter is either written only outside loops (and not
//     read elsewhere), or accessed only as `B[i]` or `B[o + i]`, one base B
//     and one offset o for all its accesses (o with one value in the whole
//     kernel: parameters and unchanged variables declared outside loops, no
//     memory read or call), i the counter of the row loop around the
//     access, read only in split loops;
//   * a loop that writes memory is `for (T i = S; i < N; ++i)` (or `<=`,
//     `i += 1`) with i unchanged in the body; a split loop writes no
//     variable declared outside it and does not leave early (break, return,
//     goto);
//   * at least one loop is split (more threads that only repeat the same
//     carrying loops would add work, not divide it); loops that write
//     memory are for loops.
//
// A loop whose only carried state is accumulators (LoopAccumulators.h) is
// split too, when each accumulator is exact or Reassociate allows it: each
// thread of the row folds its own iterations into its copy (a sum's copy
// starts from zero in every thread but the row's first, which keeps the
// value before the loop; a maximum's or minimum's starts from that value in
// all of them), and right after the loop the copies are combined so that
// every thread of the row holds the same total again. The loop has the
// split loop's form, does not leave early and does not run a constant
// number of iterations smaller than the row's threads.
//
//===----------------------------------------------------------------------===//

#ifndef KOPT_ANALYSIS_ROWTHREADS_H
#define KOPT_ANALYSIS_ROWTHREADS_H

#include "kopt/Analysis/KernelInfo.h"
#include "kopt/Analysis/LoopAccumulators.h"
#include "kopt/Analysis/Refusal.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Stmt.h"

#include <vector>

namespace kopt {

/// A loop of the row, at the kernel's top level (outside other loops).
struct RowLoop {
  const clang::ForStmt *For = nullptr;
  const clang::VarDecl *Var = nullptr; ///< the counter (split/storing loops)
  const clang::Expr *Init = nullptr;   ///< the counter's start
  bool Split = false; ///< iterations divided among the row's threads
  /// Statements of a carrying loop that store to memory; each runs only in
  /// the thread that owns the element (lane == Var mod G).
  std::vector<const clang::Stmt *> OwnedStores;
  /// What a split loop carries, combined among the row's threads after it.
  std::vector<Accumulator> Accumulators;
};

struct RowThreadsPlan {
  const clang::VarDecl *Row = nullptr; ///< the row index variable
  const clang::Expr *RowInit = nullptr;
  std::vector<RowLoop> Loops;
  /// Statements outside loops that store to memory: lane 0 runs them.
  std::vector<const clang::Stmt *> LaneZeroStores;

  /// Whether a loop's accumulators are combined among the row's threads
  /// (they must then be able to exchange values).
  bool combines() const {
    for (const RowLoop &L : Loops)
      if (!L.Accumulators.empty())
        return true;
    return false;
  }
};

/// Whether K can run with Threads threads per row, and how. Reassociate
/// lets loops that carry a floating-point sum be split (LoopAccumulators.h);
/// a reduction loop of fewer constant iterations than Threads is not split.
Decision<RowThreadsPlan> planRowThreads(const KernelInfo &K,
                                        clang::ASTContext &Ctx,
                                        unsigned Threads, bool Reassociate);

} // namespace kopt

#endif // KOPT_ANALYSIS_ROWTHREADS_H
