//===- Searcher.cpp - Ranking, and the searchers by name ------------------===//
#include "kopt/Search/Searcher.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <numeric>

namespace kopt::search {

Searcher::~Searcher() = default;

std::vector<std::size_t>
Searcher::children(const Candidate &, const std::vector<Candidate> &Proposed,
                   const std::vector<Candidate> &) {
  std::vector<std::size_t> All(Proposed.size());
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

std::string deviceModel(const Evaluation &E) {
  nlohmann::json D =
      nlohmann::json::parse(E.Device.empty() ? "{}" : E.Device, nullptr, false);
  if (D.is_object() && D.contains("name") && D["name"].is_string() &&
      !D["name"].get<std::string>().empty())
    return D["name"].get<std::string>();
  return E.Executor.rfind("simulate", 0) == 0 ? "simulated" : "";
}

std::string deviceNode(const Evaluation &E) {
  nlohmann::json D =
      nlohmann::json::parse(E.Device.empty() ? "{}" : E.Device, nullptr, false);
  return D.is_object() && D.contains("node") && D["node"].is_string()
             ? D["node"].get<std::string>()
             : "";
}

std::vector<const Candidate *>
bestParents(const std::vector<const Candidate *> &Fresh, int Width) {
  std::vector<const Candidate *> Ranked = rankCandidates(Fresh);
  if (Ranked.size() > static_cast<std::size_t>(std::max(Width, 0)))
    Ranked.resize(std::max(Width, 0));
  return Ranked;
}

std::map<std::string, const Candidate *>
bestPerDeviceModel(const std::vector<Candidate> &All) {
  std::map<std::string, const Candidate *> Best;
  for (const Candidate &C : All) {
    if (!C.evaluatedOk())
      continue;
    const Candidate *&B = Best[deviceModel(*C.Eval)];
    if (!B || C.Eval->Speedup > B->Eval->Speedup ||
        (C.Eval->Speedup == B->Eval->Speedup && C.steps() < B->steps()))
      B = &C;
  }
  return Best;
}

const Candidate *bestCandidate(const std::vector<Candidate> &All) {
  // Speedups of different device models are not comparable: the best is
  // the best on the model with the most successful evaluations.
  std::map<std::string, int> OkPerModel;
  for (const Candidate &C : All)
    if (C.evaluatedOk())
      ++OkPerModel[deviceModel(*C.Eval)];
  if (OkPerModel.empty())
    return nullptr;
  auto Primary = std::max_element(
      OkPerModel.begin(), OkPerModel.end(),
      [](const auto &A, const auto &B) { return A.second < B.second; });
  return bestPerDeviceModel(All).at(Primary->first);
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
  if (Name == "model")
    return createModelSearcher(O);
  return nullptr;
}

} // namespace kopt::search
