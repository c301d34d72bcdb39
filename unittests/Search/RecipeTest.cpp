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
