//===- UnifiedDiffTest.cpp - Line diffs -----------------------------------===//

#include "kopt/Support/UnifiedDiff.h"

#include "gtest/gtest.h"

using namespace kopt;

namespace {

TEST(UnifiedDiffTest, EqualTextsHaveNoDiff) {
  EXPECT_EQ(unifiedDiff("a\nb\n", "a\nb\n", "x", "y"), "");
}

TEST(UnifiedDiffTest, OneChangedLine) {
  EXPECT_EQ(unifiedDiff("a\nb\nc\n", "a\nB\nc\n", "old", "new"),
            "--- old\n+++ new\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n");
}

TEST(UnifiedDiffTest, DistantChangesMakeTwoHunks) {
  std::string Old, New;
  for (int I = 0; I < 20; ++I) {
    Old += "l" + std::to_string(I) + "\n";
    New += (I == 1 || I == 18 ? "X" : "l" + std::to_string(I)) + "\n";
  }
  std::string D = unifiedDiff(Old, New, "a", "b");
  EXPECT_NE(D.find("@@ -1,5 +1,5 @@"), std::string::npos) << D;
  EXPECT_NE(D.find("@@ -16,5 +16,5 @@"), std::string::npos) << D;
}

TEST(UnifiedDiffTest, InsertionsAndDeletions) {
  EXPECT_EQ(unifiedDiff("a\n", "a\nb\n", "x", "y"),
            "--- x\n+++ y\n@@ -1,1 +1,2 @@\n a\n+b\n");
  EXPECT_EQ(unifiedDiff("a\nb\n", "b\n", "x", "y"),
            "--- x\n+++ y\n@@ -1,2 +1,1 @@\n-a\n b\n");
}

} // namespace
