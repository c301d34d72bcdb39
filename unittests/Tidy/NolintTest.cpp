#include "kopt/Tidy/Nolint.h"

#include <gtest/gtest.h>

using namespace kopt;

TEST(Nolint, SameLineNextLineAndLists) {
  NolintMap M("a; // NOLINT\n"
              "b; // NOLINT(kopt-unroll, kopt-launch-*)\n"
              "// NOLINTNEXTLINE(kopt-vectorize-loads)\n"
              "c;\n"
              "d;\n");
  EXPECT_TRUE(M.suppresses(1, "kopt-anything"));
  EXPECT_TRUE(M.suppresses(2, "kopt-unroll"));
  EXPECT_TRUE(M.suppresses(2, "kopt-launch-bounds"));
  EXPECT_FALSE(M.suppresses(2, "kopt-vectorize-loads"));
  EXPECT_TRUE(M.suppresses(4, "kopt-vectorize-loads"));
  EXPECT_FALSE(M.suppresses(3, "kopt-vectorize-loads"));
  EXPECT_FALSE(M.suppresses(5, "kopt-vectorize-loads"));
  EXPECT_TRUE(M.problems().empty());
}

TEST(Nolint, BeginEndPairsByList) {
  NolintMap M("// NOLINTBEGIN(kopt-*)\n"
              "x;\n"
              "// NOLINTBEGIN(kopt-unroll)\n"
              "y;\n"
              "// NOLINTEND(kopt-*)\n"
              "z;\n"
              "// NOLINTEND(kopt-unroll)\n"
              "w;\n");
  EXPECT_TRUE(M.suppresses(2, "kopt-launch-bounds"));
  EXPECT_TRUE(M.suppresses(4, "kopt-launch-bounds"));
  EXPECT_FALSE(M.suppresses(6, "kopt-launch-bounds"));
  EXPECT_TRUE(M.suppresses(6, "kopt-unroll"));
  EXPECT_FALSE(M.suppresses(8, "kopt-unroll"));
  EXPECT_TRUE(M.problems().empty());
}

TEST(Nolint, UnmatchedMarkersAreReportedAndSuppressNothing) {
  NolintMap M("// NOLINTEND(kopt-unroll)\n"
              "// NOLINTBEGIN\n"
              "x;\n");
  EXPECT_FALSE(M.suppresses(3, "kopt-unroll"));
  ASSERT_EQ(M.problems().size(), 2u);
  EXPECT_EQ(M.problems()[0].Line, 1u);
  EXPECT_EQ(M.problems()[0].Message,
            "NOLINTEND without a matching NOLINTBEGIN");
  EXPECT_EQ(M.problems()[1].Line, 2u);
  EXPECT_EQ(M.problems()[1].Message,
            "NOLINTBEGIN without a matching NOLINTEND");
}
