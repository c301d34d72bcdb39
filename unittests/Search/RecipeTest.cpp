//===- RecipeTest.cpp - Recipes round-trip --------------------------------===//
#include "kopt/Search/Recipe.h"

#include <gtest/gtest.h>

using namespace kopt::search;

TEST(RecipeTest, ParsesAndFormatsBack) {
  Recipe R;
  ASSERT_TRUE(parseRecipe("vectorize-loads{width=4,reassociate=true},"
                          "launch-bounds",
                          R));
  ASSERT_EQ(R.size(), 2u);
  EXPECT_EQ(R[0].Pass, "vectorize-loads");
  ASSERT_EQ(R[0].Params.size(), 2u);
  EXPECT_EQ(R[0].Params[1].first, "reassociate");
  EXPECT_EQ(R[0].Params[1].second, "true");
  EXPECT_TRUE(R[1].Params.empty());
  EXPECT_EQ(formatRecipe(R),
            "vectorize-loads{width=4,reassociate=true},launch-bounds");
}

TEST(RecipeTest, EmptyIsTheOriginal) {
  Recipe R{{"x", {}}};
  ASSERT_TRUE(parseRecipe("", R));
  EXPECT_TRUE(R.empty());
  EXPECT_EQ(formatRecipe(R), "");
}

TEST(RecipeTest, RejectsMalformedText) {
  Recipe R;
  EXPECT_FALSE(parseRecipe("a{width=4", R));
  EXPECT_FALSE(parseRecipe("a}", R));
  EXPECT_FALSE(parseRecipe("a{=4}", R));
  EXPECT_FALSE(parseRecipe("a,,b", R));
  EXPECT_FALSE(parseRecipe("a{width}", R));
}

TEST(RecipeTest, AnLLMStartSplitsFromItsPasses) {
  RecipeStart S = splitRecipeStart("llm#12 | vectorize-loads,launch-bounds");
  EXPECT_EQ(S.LLMSeq, 12);
  EXPECT_EQ(S.Passes, "vectorize-loads,launch-bounds");
  EXPECT_EQ(joinRecipeStart(S.LLMSeq, S.Passes),
            "llm#12 | vectorize-loads,launch-bounds");
  S = splitRecipeStart("llm#7");
  EXPECT_EQ(S.LLMSeq, 7);
  EXPECT_EQ(S.Passes, "");
  EXPECT_EQ(joinRecipeStart(7, ""), "llm#7");
  EXPECT_EQ(joinRecipeStart(0, "a,b"), "a,b");
  // Not a start: left whole for kopt-opt to refuse.
  // A number too long to be an exchange (found by fuzz/recipe.cpp).
  for (const char *Text : {"launch-bounds", "llm#", "llm#x", "llm#3x | a",
                           "llm#34444444444444444444444444444444444444"}) {
    S = splitRecipeStart(Text);
    EXPECT_EQ(S.LLMSeq, 0) << Text;
    EXPECT_EQ(S.Passes, Text);
  }
}

TEST(RecipeTest, DescribesWhatAStepChanged) {
  EXPECT_EQ(describeStep("", "restrict-const"), "+ restrict-const");
  EXPECT_EQ(describeStep("restrict-const",
                         "restrict-const,launch-bounds{min-blocks=1}"),
            "+ launch-bounds{min-blocks=1}");
  EXPECT_EQ(describeStep("block-size{threads=256},launch-bounds",
                         "block-size{threads=512},launch-bounds"),
            "block-size: threads 256 -> 512");
  EXPECT_EQ(describeStep("unroll", "unroll{factor=8}"),
            "unroll: factor default -> 8");
  EXPECT_EQ(describeStep("a,b", "a"), "- b");
  EXPECT_EQ(describeStep("restrict-const", "llm#3"), "llm#3");
  EXPECT_EQ(describeStep("llm#3", "llm#3 | launch-bounds"), "+ launch-bounds");
  EXPECT_EQ(describeStep("", "llm#2 | unroll"), "llm#2, then unroll");
  EXPECT_EQ(describeStep("unroll", "launch-bounds"), "recipe launch-bounds");
  EXPECT_EQ(describeStep("unroll", ""), "- unroll");
  EXPECT_EQ(describeStep("x{", "y"), "recipe y");
}
