//===- Searcher.cpp - Ranking, and the searchers by name ------------------===//
#include "kopt/Search/Searcher.h"

#include <algorithm>
#include <numeric>

namespace kopt::search {

Searcher::~Searcher() = default;

std::vector<std::size_t> Searcher::children(std::size_t Count) {
  std::vector<std::size_t> All(Count);
  std::iota(All.begin(), All.end(), 0);
  return All;
}

static bool overlap(const Candidate &A, const Candidate &B) {
  return A.Eval->SpeedupLow <= B.Eval->SpeedupHigh &&
         B.Eval->SpeedupLow <= A.Eval->SpeedupHigh;
}

std::vector<const Candidate *>
rankCandidates(std::vector<const Candidate *> C) {
  std::stable_sort(C.begin(), C.end(),
                   [](const Candidate *A, const Candidate *B) {
                     if (A->Eval->Speedup != B->Eval->Speedup)
                       return A->Eval->Speedup > B->Eval->Speedup;
                     return A->Id < B->Id;
                   });
  // Among neighbours whose intervals overlap (a tie the measurement cannot
  // break), the shorter recipe first: fewer edits for the same speed.
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (std::size_t I = 0; I + 1 < C.size(); ++I)
      if (overlap(*C[I], *C[I + 1]) && C[I + 1]->steps() < C[I]->steps()) {
        std::swap(C[I], C[I + 1]);
        Changed = true;
      }
  }
  return C;
}

const Candidate *bestCandidate(const std::vector<Candidate> &All) {
  const Candidate *Best = nullptr;
  for (const Candidate &C : All)
    if (C.evaluatedOk() &&
        (!Best || C.Eval->Speedup > Best->Eval->Speedup ||
         (C.Eval->Speedup == Best->Eval->Speedup && C.steps() < Best->steps())))
      Best = &C;
  return Best;
}

int Candidate::steps() const {
  if (Recipe.empty())
    return 0;
  int Steps = 1, Depth = 0;
  for (char Ch : Recipe) {
    Depth += Ch == '{' ? 1 : Ch == '}' ? -1 : 0;
    Steps += Ch == ',' && Depth == 0;
  }
  return Steps;
}

std::unique_ptr<Searcher> createSearcher(const std::string &Name,
                                         const SearcherOptions &O) {
  if (Name == "beam")
    return createBeamSearcher(O);
  if (Name == "exhaustive")
    return createExhaustiveSearcher(O);
  if (Name == "random")
    return createRandomSearcher(O);
  return nullptr;
}

} // namespace kopt::search
