#include "kopt/Tidy/CheckGlob.h"

#include <gtest/gtest.h>

using namespace kopt;

TEST(CheckGlob, LastMatchDecides) {
  CheckGlob G("kopt-*,-kopt-unroll");
  EXPECT_TRUE(G.contains("kopt-launch-bounds"));
  EXPECT_FALSE(G.contains("kopt-unroll"));
  EXPECT_FALSE(G.contains("clang-analyzer-core"));
  CheckGlob Again("-*, kopt-unroll ,-kopt-*,kopt-unroll");
  EXPECT_TRUE(Again.contains("kopt-unroll"));
  EXPECT_FALSE(Again.contains("kopt-launch-bounds"));
}

TEST(CheckGlob, WildcardsAreTheOnlyMetacharacters) {
  CheckGlob G("kopt-launch.bounds,kopt-vec*-loads");
  EXPECT_TRUE(G.contains("kopt-launch.bounds"));
  EXPECT_FALSE(G.contains("kopt-launch-bounds")); // '.' is literal
  EXPECT_TRUE(G.contains("kopt-vectorize-loads"));
  EXPECT_FALSE(G.contains("kopt-vectorize-loadsx"));
  EXPECT_TRUE(CheckGlob().empty());
  EXPECT_FALSE(CheckGlob("").contains("kopt-unroll"));
}
