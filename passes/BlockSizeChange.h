//===- BlockSizeChange.h - Relaunch with another block size ----*- C++ -*-===//
//
// The rewrite behind `block-size` and `thread-utilization{fix=true}`:
// launch a kernel with N threads per block instead of its one constant block
// size B, keeping what it computes. See BlockSizeChange.cpp for the rules.
//
//===----------------------------------------------------------------------===//

#ifndef KOPT_PASSES_BLOCKSIZECHANGE_H
#define KOPT_PASSES_BLOCKSIZECHANGE_H

#include "kopt/Pass/Pass.h"

#include <string>
#include <variant>
#include <vector>

namespace kopt {

/// The one constant, one-dimensional block size every launch of K uses, or
/// why there is none.
std::variant<int64_t, std::string> launchBlockSize(PassContext &Ctx,
                                                   const KernelInfo &K);

struct BlockSizeChange {
  EditSet Edits;
  /// What else changed besides the launches' block sizes, for the remark
  /// ("grid recomputed", "shared array 'partial' resized").
  std::vector<std::string> Notes;
};

/// The edits that launch K with NewThreads threads per block instead of
/// OldThreads (its launchBlockSize), or why that could change what K
/// computes. Reassociate allows floating-point sums whose order depends on
/// the block size.
std::variant<BlockSizeChange, std::string>
planBlockSizeChange(PassContext &Ctx, const KernelInfo &K, int64_t OldThreads,
                    int64_t NewThreads, bool Reassociate);

} // namespace kopt

#endif // KOPT_PASSES_BLOCKSIZECHANGE_H
