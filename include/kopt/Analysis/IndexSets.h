//===- IndexSets.h - Integer-set questions about affine forms ---*- C++ -*-===//
//
// Questions a pass asks about the indices and sizes of a kernel, answered
// with MLIR's Presburger library: each question becomes a set of integer
// points (symbols, thread ids, divisions as local variables) that must be
// empty for the answer to be yes. "No" and "don't know" are the same answer
// to a pass: no rewrite.
//
//===----------------------------------------------------------------------===//

#ifndef KOPT_ANALYSIS_INDEXSETS_H
#define KOPT_ANALYSIS_INDEXSETS_H

#include "kopt/Analysis/AffineForm.h"

#include <cstdint>
#include <optional>

namespace kopt {

/// How far F moves from a thread to the next thread of the same warp
/// (threadIdx.x to threadIdx.x + 1, both in one warp of 32), when that is
/// one constant; std::nullopt when it varies (`threadIdx.x / 2`) or is not
/// known (a run-time stride, threadIdx.y).
std::optional<int64_t> strideAcrossWarp(AffineContext &A, const AffineForm &F);

/// True if two different threads of a block never touch the same element:
/// the ranges [F(t), F(t) + Width) of threads t1 != t2 are disjoint.
bool disjointAcrossThreads(AffineContext &A, const AffineForm &F,
                           int64_t Width);

/// True if Grid blocks of Block threads are at least Count threads for every
/// Count >= 1 the symbols allow (a launch covers every element of a
/// one-element-per-thread kernel). Block is a constant, or the run-time
/// value Grid divides by (`(n + b - 1) / b` blocks of b threads).
bool coversCount(AffineContext &A, const AffineForm &Grid,
                 const AffineForm &Block, const AffineForm &Count);

/// True if Index + Width <= Bound holds wherever Guard >= 0 holds (e.g. a
/// vector of Width elements at Index, under the guard `Index + Width <=
/// Bound` written as Bound - Index - Width >= 0).
bool staysBelow(AffineContext &A, const AffineForm &Index, int64_t Width,
                const AffineForm &Bound, const AffineForm &Guard);

} // namespace kopt

#endif // KOPT_ANALYSIS_INDEXSETS_H
