//===- InOrderTail.h - warp-reduce's in-order tail of float sums -*- C++
//-*-===//
//
// A floating-point sum in a shared-memory tree keeps its order under
// warp-reduce's default: the rounds s >= 32 stay in shared memory and the
// last five run in warp 0 with __shfl_down_sync, where lane t adds lane
// t + o's value, the pair the tree adds (the proof is in WarpReduce.cpp).
// It saves five barriers and may cost registers, so a tail is kept only
// where the resource estimator reports no more for the kernels it changes.
//
//===----------------------------------------------------------------------===//

#ifndef KOPT_PASSES_INORDERTAIL_H
#define KOPT_PASSES_INORDERTAIL_H

#include "kopt/Analysis/CudaAST.h"
#include "kopt/Analysis/ReductionTree.h"
#include "kopt/Pass/Edits.h"
#include "kopt/Pass/Pass.h"

#include "llvm/ADT/StringRef.h"

#include <optional>
#include <set>
#include <string>
#include <vector>

namespace kopt {

/// The text that replaces T from its store to the end of its loop, a
/// compound statement whose lines after the first start at Indent.
std::string inOrderTailText(const ReductionTree &T, clang::ASTContext &AC,
                            llvm::StringRef Indent);

/// A tail planned for one tree, kept or refused by checkTailResources.
struct PlannedTail {
  explicit PlannedTail(std::string Path) : Edit(std::move(Path)) {}

  EditSet Edit;
  std::string Function;
  LineCol Loc;
  std::string Message; ///< the applied remark
  /// The kernels whose code it changes: the tree's kernel, or the kernels
  /// that call the helper it is in.
  std::set<std::string> Kernels;
  std::optional<std::string> Refused; ///< why not kept (a missed remark)
  std::string Note;                   ///< "; ptxas: 'k' 32 -> 32 registers"
};

/// Asks Ctx's resource estimator about the file with Ctx's edits, with and
/// without the tails, and refuses each tail whose kernels need more
/// registers or more local memory with it. Refusing a tail changes its
/// kernels again, so the estimate repeats until every kept tail was
/// measured with exactly the tails kept (at most one round per tail).
/// Without an estimate, every tail is refused.
void checkTailResources(PassContext &Ctx, std::vector<PlannedTail> &Tails);

} // namespace kopt

#endif // KOPT_PASSES_INORDERTAIL_H
