//===- SelectionReduction.h - First-index argmax/argmin ---------*- C++ -*-===//
//
// The argmax (argmin) that kernels write per block:
//
//   float v = -INFINITY; int idx = n;           // the same in every thread
//   for (int j = threadIdx.x; j < n; j += blockDim.x) {
//     float e = x[...j...];
//     if (e > v) { v = e; idx = j; }            // the first of equal maxima
//   }
//   V[t] = v; I[t] = idx; __syncthreads();
//   for (int s = blockDim.x / 2; s > 0; s >>= 1) {
//     if (t < s) {
//       float ov = V[t + s]; int oi = I[t + s];
//       if (ov > V[t] || (ov == V[t] && oi < I[t])) { V[t] = ov; I[t] = oi; }
//     }
//     __syncthreads();
//   }
//   ... V[0], I[0]
//
// What the block computes does not depend on which thread visits which
// element: each thread keeps the first (lowest-index) of its maximal
// elements, or (v0, i0) when none exceeds v0, and the tree keeps the
// largest value, the lowest index among equal values. Over any partition
// that is the lowest index among the elements equal to the largest one
// exceeding v0, or (v0, i0). NaNs are never kept (e > v is false), signed
// zeros compare equal and are told apart by their index. So vectorize-loads
// may give each thread other elements and warp-reduce may combine the pairs
// in another order, without reassociate=true. Legality is in the .cpp.
//
//===----------------------------------------------------------------------===//

#ifndef KOPT_ANALYSIS_SELECTIONREDUCTION_H
#define KOPT_ANALYSIS_SELECTIONREDUCTION_H

#include "kopt/Analysis/CudaAST.h"
#include "kopt/Analysis/Refusal.h"

#include <vector>

namespace kopt {

/// A (value, index) tree of the shape above whose stored pair only
/// selection updates change (see SelectionReduction.cpp for what that
/// guarantees).
struct SelectionTree {
  const clang::CompoundStmt *Block = nullptr;
  const clang::BinaryOperator *FirstStore = nullptr; ///< V[t] = v or I[t] = idx
  const clang::BinaryOperator *SecondStore = nullptr;
  const clang::Stmt *Sync = nullptr;
  const clang::ForStmt *Loop = nullptr; ///< the tree loop
  const clang::ValueDecl *ValueArray = nullptr, *IndexArray = nullptr;
  const clang::VarDecl *Value = nullptr, *Index = nullptr; ///< v, idx
  /// The block-stride loop whose body is the one selection update, with
  /// idx = its index; null when the updates lie elsewhere (several loops,
  /// as after vectorize-loads).
  const clang::ForStmt *Feed = nullptr;
  /// The value array is read outside the tree (V[0]).
  bool ValueRead = false;
  bool Max = true; ///< argmax (>), else argmin (<)
  clang::QualType ValueType, IndexType;
  LineCol Loc; ///< of the tree loop
};

/// The (value, index) trees of F: those of the shape above fed by a
/// selection loop, and a refusal for each pair tree that is not.
void findSelectionTrees(const clang::FunctionDecl *F, clang::ASTContext &AC,
                        std::vector<SelectionTree> &Trees,
                        std::vector<Refusal> &Refused);

} // namespace kopt

#endif // KOPT_ANALYSIS_SELECTIONREDUCTION_H
