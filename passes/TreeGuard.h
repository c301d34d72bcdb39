//===- TreeGuard.h - warp-reduce's run-time check of a tree -----*- C++ -*-===//
//
// Where a kernel's block sizes are not known in the file, or a tree starts
// from a variable B (`for (int s = B / 2; ...)`) or from a constant C that
// not every launch is known to run (`BLOCK / 2`), warp-reduce rewrites the
// tree under a run-time check of what the rewrite needs (a 1-D block of a
// power of two of at least 32 threads, B == blockDim.x, C == blockDim.x)
// and keeps the
// original tree in the else branch. The check reads only values every
// thread of a block shares, so the whole block takes one branch and reaches
// that branch's barriers together.
//
//===----------------------------------------------------------------------===//

#ifndef KOPT_PASSES_TREEGUARD_H
#define KOPT_PASSES_TREEGUARD_H

#include "kopt/Analysis/KernelInfo.h"
#include "kopt/Analysis/ReductionTree.h"

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <set>
#include <string>

namespace kopt {

/// Out (a block `{ ... }` replacing Code[Begin, End), the tree) under the
/// run-time check, the original tree in the else branch; Out itself when
/// no check is needed (Sizes, the launches' block sizes, known and the
/// tree starting from blockDim.x, or from a constant equal to the one
/// size). Sizes empty: not known here.
std::string guardedTree(const ReductionTree &T, const std::set<int64_t> &Sizes,
                        std::string Out, llvm::StringRef Code, unsigned Begin,
                        unsigned End, llvm::StringRef Indent);

/// Why a tree that starts from a constant C (T.ConstSize) is not rewritten:
/// C is not a power of two of 32 to 1024, or every launch is known and none
/// runs C threads (the tree covers part of the block, or more than it);
/// or, for a tree that ends in a warp tail of rounds K..1 (T.TailRounds),
/// a launch runs fewer than 2K threads.
std::optional<Refusal> checkConstSize(const ReductionTree &T,
                                      const std::set<int64_t> &Sizes);

/// "128, 256" for the remarks.
std::string sizeList(const std::set<int64_t> &Sizes);

/// "128, 256 threads", or what the run-time check of T tests.
std::string sizeList(const std::set<int64_t> &Sizes, const ReductionTree &T);

} // namespace kopt

#endif // KOPT_PASSES_TREEGUARD_H
