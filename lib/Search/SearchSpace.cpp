//===- SearchSpace.cpp - Passes and the values a search tries -------------===//
#include "kopt/Search/SearchSpace.h"

#include <nlohmann/json.hpp>

namespace kopt::search {

const SpaceParam *SpacePass::param(const std::string &Key) const {
  for (const SpaceParam &P : Params)
    if (P.Key == Key)
      return &P;
  return nullptr;
}

std::string SpacePass::value(const RecipeStep &Step,
                             const std::string &Key) const {
  for (const auto &[K, V] : Step.Params)
    if (K == Key)
      return V;
  const SpaceParam *P = param(Key);
  return P ? P->Default : std::string();
}

RecipeStep SpacePass::withParam(const RecipeStep &Base, const std::string &Key,
                                const std::string &Value) const {
  RecipeStep S{Base.Pass, {}};
  for (const SpaceParam &P : Params) {
    std::string V = P.Key == Key ? Value : value(Base, P.Key);
    if (V != P.Default)
      S.Params.emplace_back(P.Key, V);
  }
  return S;
}

const SpacePass *SearchSpace::pass(const std::string &Name) const {
  for (const SpacePass &P : Passes)
    if (P.Name == Name)
      return &P;
  return nullptr;
}

std::optional<SearchSpace> parseSearchSpace(const std::string &Json,
                                            std::string &Error) {
  nlohmann::json Doc = nlohmann::json::parse(Json, nullptr, false);
  if (Doc.is_discarded() || !Doc.is_object() || !Doc["passes"].is_array()) {
    Error = "kopt-opt --print-passes=json did not print the pass registry";
    return std::nullopt;
  }
  SearchSpace S;
  try {
    for (const auto &P : Doc["passes"]) {
      SpacePass Pass;
      Pass.Name = P.at("name").get<std::string>();
      for (const auto &Q : P.at("params")) {
        SpaceParam Param;
        Param.Key = Q.at("key").get<std::string>();
        Param.Type = Q.at("type").get<std::string>();
        Param.Default = Q.at("default").get<std::string>();
        // Reordered sums and fewer bits alike need a non-zero tolerance.
        Param.ChangesRounding = Q.at("effect").get<std::string>() != "exact";
        for (const auto &V : Q.at("search"))
          Param.Values.push_back(V.get<std::string>());
        Pass.Params.push_back(std::move(Param));
      }
      S.Passes.push_back(std::move(Pass));
    }
    for (const auto &A : Doc.value("pipelines", nlohmann::json::array()))
      if (A.at("name") == "default")
        S.DefaultPipeline = A.at("pipeline").get<std::string>();
  } catch (const nlohmann::json::exception &E) {
    Error = std::string("the pass registry's JSON is malformed: ") + E.what();
    return std::nullopt;
  }
  if (S.DefaultPipeline.empty()) {
    Error = "the pass registry names no 'default' pipeline";
    return std::nullopt;
  }
  return S;
}

} // namespace kopt::search
