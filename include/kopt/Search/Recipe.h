//===- Recipe.h - The -passes= string that makes a candidate ----*- C++ -*-===//
//
// A candidate's recipe is the pipeline kopt-opt runs on the problem's source
// to make it: `vectorize-loads{width=4},launch-bounds`. The empty recipe is
// the original source. Recipes are written canonically (parameters in the
// registry's order, defaults left out), so one string names one candidate.
//
//===----------------------------------------------------------------------===//
#ifndef KOPT_SEARCH_RECIPE_H
#define KOPT_SEARCH_RECIPE_H

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace kopt::search {

struct RecipeStep {
  std::string Pass;
  /// Non-default parameters, in the registry's order.
  std::vector<std::pair<std::string, std::string>> Params;

  std::string str() const;
  bool operator==(const RecipeStep &O) const {
    return Pass == O.Pass && Params == O.Params;
  }
};

using Recipe = std::vector<RecipeStep>;

std::string formatRecipe(const Recipe &R);

/// Where a recipe starts. An LLM's candidate starts from the source the
/// problem's exchange N gave (docs/llm.md): "llm#N", or "llm#N | PASSES"
/// when passes ran on it. Anything else starts from the problem's source.
struct RecipeStart {
  std::int64_t LLMSeq = 0; // 0: the problem's source
  std::string Passes;      // the -passes= part
};
RecipeStart splitRecipeStart(const std::string &Text);
std::string joinRecipeStart(std::int64_t LLMSeq, const std::string &Passes);

/// Splits a recipe at its top-level commas; "" is the empty recipe.
/// Returns false on unbalanced braces or a malformed parameter.
bool parseRecipe(const std::string &Text, Recipe &Out);

/// What a child's recipe changed in its parent's, as a reader wants it:
/// "+ launch-bounds{min-blocks=1}" (steps appended), "block-size: threads
/// 256 -> 512" (a parameter changed), "llm#3" (an LLM's source), "- ..."
/// (steps dropped); "recipe R" when the change is none of these.
std::string describeStep(const std::string &Parent, const std::string &Child);

} // namespace kopt::search

#endif // KOPT_SEARCH_RECIPE_H
