//===- DisjointRanges.cpp - Run-time checks that ranges do not overlap ----===//

#include "DisjointRanges.h"

namespace kopt {

namespace {

std::string address(const VectorPointer &V) {
  return "reinterpret_cast<unsigned long long>(" + V.base() + ")";
}

/// The address one past V's range of Count elements.
std::string end(const VectorPointer &V, llvm::StringRef Count) {
  return address(V) + " + " + Count.str() + " * " +
         std::to_string(V.ElementBytes) + "ull";
}

} // namespace

std::vector<std::string> disjointRangeTerms(const VectorPlan &P,
                                            llvm::StringRef Count,
                                            llvm::StringRef Indent) {
  std::vector<std::string> Terms;
  for (auto [StoreIndex, LoadIndex] : P.Disjoint) {
    const VectorPointer &S = P.Pointers[StoreIndex];
    const VectorPointer &L = P.Pointers[LoadIndex];
    // The same start and element size: the same elements, each loaded by
    // the iteration that stores it and before it does (in place, as
    // through one pointer).
    std::string InPlace =
        P.InPlace.count({StoreIndex, LoadIndex})
            ? " ||\n" + Indent.str() + " " + address(S) + " == " + address(L)
            : "";
    Terms.push_back("(" + end(S, Count) + " <= " + address(L) + " ||\n" +
                    Indent.str() + " " + end(L, Count) + " <= " + address(S) +
                    InPlace + ")");
  }
  return Terms;
}

std::string disjointRangesNote(const VectorPlan &P) {
  std::string Pairs;
  for (auto [StoreIndex, LoadIndex] : P.Disjoint)
    Pairs += (Pairs.empty() ? "'" : " or '") + P.Pointers[StoreIndex].Name +
             "' overlaps '" + P.Pointers[LoadIndex].Name + "'" +
             (P.InPlace.count({StoreIndex, LoadIndex}) ? " other than in place"
                                                       : "");
  if (Pairs.empty())
    return "";
  return "; where " + Pairs + " the original loop runs (checked at run time)";
}

} // namespace kopt
