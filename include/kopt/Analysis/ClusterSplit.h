//===- ClusterSplit.h - A block's group shared by a cluster -----*- C++ -*-===//
//
// A kernel that gives each block a group of elements (a row of a norm, a
// whole channel) and walks it with block-stride loops,
//
//   const float *in = x + (long long)blockIdx.x * n;
//   float s = 0.0f;
//   for (int i = threadIdx.x; i < n; i += blockDim.x)
//     s += in[i];
//   buf[threadIdx.x] = s; __syncthreads();
//   for (int st = blockDim.x / 2; st > 0; st /= 2) { ...tree... }
//   ... buf[0] ...
//   for (int i = threadIdx.x; i < n; i += blockDim.x)
//     out[i] = f(in[i], buf[0]);
//
// runs one block a group: with a few huge groups most of the GPU idles.
// planClusterSplit says when the group can be shared by the C blocks of a
// thread-block cluster instead: each block takes a contiguous part of every
// block-stride loop, reduces it with the kernel's own tree, and the
// cluster's blocks then combine their totals through distributed shared
// memory (every block adds them in rank order, so every block holds the
// same bits afterwards, as every thread of the original block did).
//
// What is proved, and why it suffices (each failure is a Refusal):
//
//   * Blocks run the kernel's code identically outside the split loops:
//     blockIdx.x becomes the group (blockIdx.x / C) and gridDim.x the
//     original grid; the kernel calls no function of the file that reads
//     blockIdx, gridDim or shared memory or synchronizes.
//   * A split loop is `for (T i = threadIdx.x; i < N; i += blockDim.x)` in
//     the kernel's straight-line code (only compound statements enclose
//     it), N one value in every thread (isBlockUniform) and i not changed in
//     the body. Its body has no barrier, no shared memory, no break, return
//     or goto. Every index below N still runs once, now in some block of the
//     cluster: only what the iterations share can differ.
//   * What they share: the loop writes no local declared outside it but
//     accumulators (LoopAccumulators.h), each a local of the kernel
//     declared with a start value (0 for a sum) and read after the loop
//     only as the value a tree reduces with its own operation. So each
//     block's tree yields the reduction of its part, and the combine yields
//     the reduction of the group. Maxima, minima and integer sums give the
//     same value in any order; a floating-point sum rounds differently
//     (Rounding; only with Reassociate).
//   * Memory: a loop that stores to memory comes after the last tree, and
//     it is the only split loop there: every read of the group before the
//     last combine has finished in every block of the cluster when the first
//     store runs (the combine's cluster barriers order them), as the tree's
//     barriers did in one block. The pointer it stores through is read in
//     the kernel only at the index it is stored at, in that loop. Stores
//     outside split loops are plain (`=`, no atomics, no compound
//     assignment) to pointers the kernel never reads: each block of the
//     cluster stores the same value, which is the value the original stored.
//   * Trees: reductions of the ReductionTree shape in uniform control flow,
//     their shared array used only by the trees and reads of A[0]; the value
//     a sum tree reduces is a split loop's accumulator (a value every block
//     holds alike would be added C times; maxima and minima of it are
//     unchanged).
//
//===----------------------------------------------------------------------===//

#ifndef KOPT_ANALYSIS_CLUSTERSPLIT_H
#define KOPT_ANALYSIS_CLUSTERSPLIT_H

#include "kopt/Analysis/KernelInfo.h"
#include "kopt/Analysis/ReductionTree.h"
#include "kopt/Analysis/Refusal.h"

#include <vector>

namespace kopt {

/// A block-stride loop the cluster's blocks divide among them.
struct ClusterLoop {
  const clang::ForStmt *For = nullptr;
  const clang::VarDecl *Var = nullptr;
  const clang::Expr *Init = nullptr;  ///< threadIdx.x, as written
  const clang::Expr *Bound = nullptr; ///< N
};

struct ClusterSplitPlan {
  std::vector<ClusterLoop> Loops;
  std::vector<ReductionTree> Trees;
  /// A floating-point sum is combined in another order.
  bool Rounding = false;
};

/// Whether K's block-per-group work can be shared by the blocks of a
/// cluster (the rules above); Reassociate admits floating-point sums.
Decision<ClusterSplitPlan>
planClusterSplit(const KernelInfo &K, clang::ASTContext &Ctx, bool Reassociate);

} // namespace kopt

#endif // KOPT_ANALYSIS_CLUSTERSPLIT_H
