//===- ShuffleTreeText.h - warp-reduce's shuffle trees as text ---*- C++
//-*-===//
//
// The text warp-reduce writes in place of a shared-memory tree (from its
// first store to the end of its loop): a butterfly of shuffles in each
// warp, one shared slot per warp, and a second butterfly over the slots in
// warp 0 (WarpReduce.cpp has the legality argument). Types are spelled as
// the source spells them, so a template's instantiation gives the
// template's text (`T kopt_wr`).
//
//===----------------------------------------------------------------------===//

#ifndef KOPT_PASSES_SHUFFLETREETEXT_H
#define KOPT_PASSES_SHUFFLETREETEXT_H

#include "kopt/Analysis/ReductionTree.h"
#include "kopt/Analysis/SelectionReduction.h"

#include "llvm/ADT/StringRef.h"

#include <string>

namespace kopt {

/// A tree over one array: __shfl_xor_sync rounds 16, 8, ..., 1 (an
/// interleaved tree: __shfl_down_sync rounds 1, 2, ..., 16, in its order).
/// A compound statement whose lines after the first start at Indent.
std::string shuffleTreeText(const ReductionTree &T, clang::ASTContext &AC,
                            llvm::StringRef Indent);

/// A first-index (value, index) selection tree: each round keeps the
/// partner's pair when it is better or equal with a smaller index.
std::string selectionTreeText(const SelectionTree &T, clang::ASTContext &AC,
                              llvm::StringRef Indent);

} // namespace kopt

#endif // KOPT_PASSES_SHUFFLETREETEXT_H
