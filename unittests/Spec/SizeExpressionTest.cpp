#include "kopt/Spec/SizeExpression.h"

#include <gtest/gtest.h>

using namespace kopt::spec;

namespace {
Shape shape() {
  Shape S;
  S.Sizes = {{"n", 10}, {"m", 3}};
  return S;
}

TEST(SizeExpression, Arithmetic) {
  EXPECT_DOUBLE_EQ(evaluateSizeExpression("12 * n", shape()).Value, 120);
  EXPECT_DOUBLE_EQ(evaluateSizeExpression("2*(n+m) - 1", shape()).Value, 25);
  EXPECT_DOUBLE_EQ(evaluateSizeExpression("n / 4", shape()).Value, 2.5);
  EXPECT_DOUBLE_EQ(evaluateSizeExpression("-m + 1e3", shape()).Value, 997);
}

TEST(SizeExpression, Errors) {
  EXPECT_NE(evaluateSizeExpression("12 * q", shape())
                .Error.find("unknown size name 'q'"),
            std::string::npos);
  EXPECT_NE(evaluateSizeExpression("(n", shape()).Error.find("missing ')'"),
            std::string::npos);
  EXPECT_NE(evaluateSizeExpression("n / 0", shape()).Error.find("division"),
            std::string::npos);
  EXPECT_FALSE(evaluateSizeExpression("n n", shape()).Error.empty());
}
} // namespace
