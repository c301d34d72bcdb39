//===- recipe.cpp - Fuzz target: kopt-search's recipe parser --------------===//
//
// Any text: parseRecipe never crashes; a recipe it accepts prints back to a
// form it parses to the same steps; splitting an LLM start off and joining
// it back is the identity on what it accepted.
//
//===----------------------------------------------------------------------===//
#include "kopt/Search/Recipe.h"

#include <cstdint>
#include <cstdlib>
#include <string>

using namespace kopt::search;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *Data,
                                      std::size_t Size) {
  std::string Text(reinterpret_cast<const char *>(Data), Size);
  Recipe R;
  if (parseRecipe(Text, R)) {
    Recipe Again;
    if (!parseRecipe(formatRecipe(R), Again) || !(Again == R))
      std::abort();
  }
  RecipeStart Start = splitRecipeStart(Text);
  if (Start.LLMSeq > 0) {
    RecipeStart Back =
        splitRecipeStart(joinRecipeStart(Start.LLMSeq, Start.Passes));
    if (Back.LLMSeq != Start.LLMSeq || Back.Passes != Start.Passes)
      std::abort();
  }
  return 0;
}
