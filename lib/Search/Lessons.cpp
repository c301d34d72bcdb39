//===- Lessons.cpp - What worked, kept for similar kernels ----------------===//
#include "kopt/Search/Lessons.h"

#include "kopt/Search/Searcher.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <set>
#include <sstream>

namespace kopt::search {

using json = nlohmann::json;

namespace {

std::set<std::string> split(const std::string &Features) {
  std::set<std::string> Out;
  std::istringstream In(Features);
  for (std::string F; In >> F;)
    Out.insert(F);
  return Out;
}

std::string str(const json &J, const char *Key) {
  return J.contains(Key) && J[Key].is_string() ? J[Key].get<std::string>() : "";
}

} // namespace

std::string kernelFeatures(const std::string &AnalysisJson) {
  json A = json::parse(AnalysisJson, nullptr, /*allow_exceptions=*/false);
  std::set<std::string> F;
  if (A.is_object() && A.contains("kernels") && A["kernels"].is_array())
    for (const json &K : A["kernels"]) {
      if (K.value("template", false))
        F.insert("template");
      if (K.contains("loops"))
        for (const json &L : K["loops"])
          F.insert("loop:" + str(L, "kind"));
      if (K.contains("accesses"))
        for (const json &X : K["accesses"]) {
          F.insert(str(X, "kind") + ":" + str(X, "class"));
          F.insert("type:" + str(X, "element_type"));
        }
      if (K.contains("barriers") && !K["barriers"].empty())
        F.insert("barriers");
      if (K.contains("shared_arrays") && !K["shared_arrays"].empty())
        F.insert("shared");
      if (K.contains("rereads") && !K["rereads"].empty())
        F.insert("rereads");
    }
  std::string Out;
  for (const std::string &S : F)
    Out += (Out.empty() ? "" : " ") + S;
  return Out;
}

double featureSimilarity(const std::string &A, const std::string &B) {
  std::set<std::string> X = split(A), Y = split(B);
  if (X.empty() && Y.empty())
    return 0;
  std::size_t Common = 0;
  for (const std::string &F : X)
    Common += Y.count(F);
  return double(Common) / double(X.size() + Y.size() - Common);
}

std::vector<Lesson> similarLessons(std::vector<Lesson> All,
                                   const std::string &Features,
                                   const std::string &Problem,
                                   std::size_t Max) {
  All.erase(
      std::remove_if(All.begin(), All.end(),
                     [&](const Lesson &L) { return L.Problem == Problem; }),
      All.end());
  std::stable_sort(All.begin(), All.end(),
                   [&](const Lesson &A, const Lesson &B) {
                     double SA = featureSimilarity(A.Features, Features),
                            SB = featureSimilarity(B.Features, Features);
                     return SA != SB ? SA > SB : A.Speedup > B.Speedup;
                   });
  if (All.size() > Max)
    All.resize(Max);
  return All;
}

std::optional<Lesson> lessonOf(const std::string &Problem,
                               const std::vector<Candidate> &Candidates,
                               const std::string &Features) {
  const Candidate *Best = bestCandidate(Candidates);
  if (!Best || Best->Recipe.empty() || Best->Eval->SpeedupLow <= 1.0)
    return std::nullopt;
  Lesson L;
  L.Problem = Problem;
  L.Executor = Best->Eval->Executor;
  L.Features = Features;
  L.Recipe = Best->Recipe;
  L.What = Best->Proposer + " (recipe " + Best->Recipe + ")";
  L.Speedup = Best->Eval->Speedup;
  return L;
}

} // namespace kopt::search
