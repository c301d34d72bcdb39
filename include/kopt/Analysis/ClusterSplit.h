//===- ClusterSplit.h - A block's group shared by a cluster -----*- C++ -*-===//
//
// A kernel that gives each block a group of elements (a row of a norm, a
// whole channel) and walks it with block-stride loops,
//
//   const float *in = x + (long long)blockIdx.x * n;
//   float s = 0.0f;
//   for (int i = threadIdx.x; i < n; i += blockDim.x)
//     s += in[i];
//   ... any block reduction of s: a tree in shared memory, warp shuffles,
//       a helper ...
//   for (int i = threadIdx.x; i < n; i += blockDim.x)
//     out[i] = f(in[i], total);
//
// runs one block a group: with a few huge groups most of the GPU idles.
// planClusterSplit says when the group can be shared by the C blocks of a
// thread-block cluster instead: each block takes a contiguous part of every
// block-stride loop, a whole number of blocks' width long, and right after
// a loop that accumulates, thread t of every block combines the partial
// values of thread t of all the cluster's blocks through distributed shared
// memory, in rank order. Thread t then holds the reduction of the very
// elements thread t of the original block visited (parts start at
// multiples of blockDim.x, so i % blockDim.x is the same), and every block
// of the cluster holds the same bits: whatever the kernel does with its
// accumulators afterwards (a tree, shuffles, a helper, a store of each
// thread's partial) every block of the cluster does alike, as the original
// block did once.
//
// What is proved, and why it suffices (each failure is a Refusal):
//
//   * Blocks run the kernel's code identically outside the split loops:
//     blockIdx.x becomes the group (blockIdx.x / C) and gridDim.x the
//     original grid; the kernel calls no function of the file that reads
//     blockIdx or gridDim, nor, in a split loop, one that waits at a
//     barrier or uses shared memory.
//   * A split loop is `for (T i = threadIdx.x; i < N; i += blockDim.x)` in
//     the kernel's straight-line code (only compound statements enclose it,
//     no return before it: every thread reaches the combine after it), N
//     one value in every thread (isBlockUniform) and i not changed in the
//     body. Its body has no barrier, no break, return or goto, and only
//     reads shared memory (which every block of the cluster fills alike,
//     outside split loops, as the original block did). Every index below N
//     still runs once, now in some block of the cluster, in the thread of
//     the same threadIdx.x: only what the iterations share can differ.
//   * What they share: the loop writes no variable declared outside it but
//     accumulators (LoopAccumulators.h), each a local of the kernel. A sum
//     starts from its value before the loop in rank 0 and from 0 in the
//     other ranks; maxima and minima are idempotent. Maxima, minima and
//     integer sums give the same value in any order; a floating-point sum
//     or selection may differ (Rounding; only with Reassociate). At least
//     one loop accumulates (an element-wise kernel is split-grid's).
//   * Memory: a loop that stores to memory is the last loop combined or
//     comes after it, and it is the only split loop there: every read of
//     the group before the last combine has finished in every block of the
//     cluster when the first store after it runs (the combine's cluster
//     barriers order them). The pointer it stores through is read in the
//     kernel only at the index it is stored at, in that loop. Stores outside
//     split loops are plain (`=`, no atomics, no compound assignment) to
//     pointers the kernel never reads: each block of the cluster stores the
//     same value, which is the value the original stored.
//
//===----------------------------------------------------------------------===//

#ifndef KOPT_ANALYSIS_CLUSTERSPLIT_H
#define KOPT_ANALYSIS_CLUSTERSPLIT_H

#include "kopt/Analysis/KernelInfo.h"
#include "kopt/Analysis/LoopAccumulators.h"
#include "kopt/Analysis/Refusal.h"

#include <vector>

namespace kopt {

/// A block-stride loop the cluster's blocks divide among them.
struct ClusterLoop {
  const clang::ForStmt *For = nullptr;
  const clang::VarDecl *Var = nullptr;
  const clang::Expr *Init = nullptr;  ///< threadIdx.x, as written
  const clang::Expr *Bound = nullptr; ///< N
  /// What the cluster combines after the loop, thread by thread.
  std::vector<Accumulator> Accumulators;
};

struct ClusterSplitPlan {
  std::vector<ClusterLoop> Loops;
  /// A floating-point sum or selection is combined in another order.
  bool Rounding = false;
};

/// Whether K's block-per-group work can be shared by the blocks of a
/// cluster (the rules above); Reassociate admits floating-point sums and
/// selections.
Decision<ClusterSplitPlan>
planClusterSplit(const KernelInfo &K, clang::ASTContext &Ctx, bool Reassociate);

} // namespace kopt

#endif // KOPT_ANALYSIS_CLUSTERSPLIT_H
