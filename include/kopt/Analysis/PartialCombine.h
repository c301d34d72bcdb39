//===- PartialCombine.h - Partials that only their combine reads -*- C++
//-*-===//
//
// A rewrite that changes which elements each thread of a loop visits
// (vectorize-loads with reassociate=true gives a thread W consecutive
// elements instead of one every blockDim.x) changes every thread's partial
// value: only what the threads compute from all partials together stays
// the same, up to the order of the combine. This analysis says when a loop's
// carried state is nothing more than that.
//
// The loop's carried state must be accumulators (LoopAccumulators.h: no
// running value is read in the loop). After the loop, each accumulator v is
// followed through the function in source order. v holds a partial of one
// thread until it is combined; it may then only be read by
//
//   * the store of a shared-memory tree of the same operation
//     (ReductionTree.h: `buf[threadIdx.x] = v;` then the tree);
//   * a warp-shuffle step of the same operation, `v += __shfl_xor_sync(m,
//     v, o)` or `__shfl_down_sync`, `v = fmaxf(v, __shfl_...)`: v then
//     holds a warp's total, which may be stored to shared memory (the second
//     level of a block reduction), broadcast (`__shfl_sync(m, v, 0)`) or
//     folded further;
//   * a call passing v to a function of the file whose body waits at a
//     barrier (a block reduction: `v = blockReduceSum(v)`; v then holds the
//     block's total) or shuffles down/xor without a scan's `__shfl_up_sync`
//     (a warp reduction), or to cooperative_groups::reduce (a warp's); a
//     function whose body kopt does not see (in a header, which it reads
//     without bodies) when its name says "reduce", a block's when it also
//     says "block" (`blockReduce<warpReduceSum>(v)`), else a warp's;
//     a value computed so into a new variable (`float t = f(v);`), or v
//     copied into one (`float w = v;`), is followed in its turn;
//   * one-pass-variance's closed form of a sum of squared deviations
//     (`if (N != 0) { ... w += Q - C * (2 * S - N * C); }` after a loop
//     that adds a shifted element to S, its square to Q and one to N;
//     DeviationSums.h): w then holds the thread's partial of that sum,
//     the same for any share of the iterations, and is followed in its
//     turn;
//   * cluster-split's thread-by-thread combine (`v = kopt_cluster_combine(
//     ..., v, ...)`), after which v is still one thread's partial;
//   * an atomic of the same operation (atomicAdd, atomicMax, atomicMin) at
//     an address the same for every thread of the block;
//   * and anything once v holds the block's total, or a value assigned to
//     it that does not read it (outside any branch).
//
// Every other read exposes a partial and the loop is refused. A block of one
// warp (every launch runs 32 threads) has its total in a warp's. Loops whose
// threads span the grid (grid-stride loops) change each block's elements
// too, so their partials may only reach atomics at one address for the
// whole grid, directly or after warp shuffles.
//
// What is trusted and not proven: that the author's second level of a block
// reduction (warp totals through shared memory) and the functions called as
// reductions combine every thread's value once.
//
//===----------------------------------------------------------------------===//

#ifndef KOPT_ANALYSIS_PARTIALCOMBINE_H
#define KOPT_ANALYSIS_PARTIALCOMBINE_H

#include "kopt/Analysis/Refusal.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Stmt.h"

#include <optional>
#include <set>

namespace kopt {

struct PartialScope {
  /// The loop's threads span the grid (a grid-stride loop), not a block.
  bool Grid = false;
  /// Every launch runs blocks of one warp: a warp's total is the block's.
  bool OneWarpBlocks = false;
  /// Every launch runs 1-D blocks of this many threads: a shared-memory
  /// tree from a constant (`BLOCK / 2`, `128`) covers the block only where
  /// its size is this.
  std::optional<int64_t> BlockX;
  /// The parameters every launch passes the value of its 1-D block to: a
  /// tree from `B / 2` covers the block only where B is one of them.
  std::set<const clang::VarDecl *> BlockXParams;
};

/// Why the state Loop (in F) carries is more than partials that only their
/// combine reads; none when it is no more (or there is none).
std::optional<Refusal> checkPartialsCombined(const clang::FunctionDecl *F,
                                             const clang::ForStmt *Loop,
                                             PartialScope Scope,
                                             clang::ASTContext &AC);

} // namespace kopt

#endif // KOPT_ANALYSIS_PARTIALCOMBINE_H
