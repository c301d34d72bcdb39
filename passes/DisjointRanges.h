//===- DisjointRanges.h - Run-time checks that ranges differ ---*- C++ -*-===//
//
// vectorize-loads and staged-loads read an element before the stores of
// earlier iterations have run. Through plain pointers that is right only
// where no stored range overlaps a loaded one; the plan lists those pairs
// (VectorPlan::Disjoint) and the rewritten loop checks them at run time
// beside its alignment checks, running the original loop where they
// overlap (LLVM's loop versioning does the same for its vectorizer).
//
//===----------------------------------------------------------------------===//

#ifndef KOPT_PASSES_DISJOINTRANGES_H
#define KOPT_PASSES_DISJOINTRANGES_H

#include "kopt/Analysis/ElementwiseLoop.h"

#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace kopt {

/// One term a pair of P.Disjoint: the ranges of Count elements from the
/// store's and the load's bases lie one wholly before the other, compared
/// as addresses (integers, so unrelated pointers compare too), or, for the
/// pairs of P.InPlace, start at the same address. Count is a
/// variable of the rewrite holding the loop's bound; a term's second line
/// starts at Indent plus one space (inside its parenthesis).
std::vector<std::string> disjointRangeTerms(const VectorPlan &P,
                                            llvm::StringRef Count,
                                            llvm::StringRef Indent);

/// "; where 'y' overlaps 'x' the original loop runs (checked at run time)"
/// for the remark, or "" without pairs.
std::string disjointRangesNote(const VectorPlan &P);

} // namespace kopt

#endif // KOPT_PASSES_DISJOINTRANGES_H
