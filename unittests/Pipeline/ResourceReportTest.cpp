//===- ResourceReportTest.cpp - Finding kernels in ptxas's report --------===//

#include "kopt/Pass/ResourceEstimator.h"

#include "gtest/gtest.h"

using namespace kopt;

namespace {

KernelResources kernel(const char *Name, unsigned Registers) {
  KernelResources K;
  K.Name = Name;
  K.Registers = Registers;
  return K;
}

TEST(ResourceReportTest, FindsAKernelAndEachInstantiationOfATemplate) {
  ResourceReport R;
  R.Kernels = {
      kernel("k(float*, int)", 10),       kernel("k2(float*)", 11),
      kernel("void t<256u>(float*)", 12), kernel("void t<512u>(float*)", 13),
      kernel("void t2<1>(float*)", 14),   kernel("plain", 15)};
  ASSERT_EQ(R.kernels("k").size(), 1u);
  EXPECT_EQ(R.kernels("k")[0]->Registers, 10u);
  std::vector<const KernelResources *> T = R.kernels("t");
  ASSERT_EQ(T.size(), 2u);
  EXPECT_EQ(T[0]->Registers, 12u);
  EXPECT_EQ(T[1]->Registers, 13u);
  EXPECT_EQ(R.kernels("plain").size(), 1u);
  EXPECT_TRUE(R.kernels("missing").empty());
}

TEST(ResourceReportTest, MatchesInstantiationsBeforeAndAfterByFullName) {
  ResourceReport Before, After;
  Before.Kernels = {kernel("void t<512u>(float*)", 20),
                    kernel("void t<256u>(float*)", 21)};
  After.Kernels = {kernel("void t<256u>(float*)", 22),
                   kernel("void t<512u>(float*)", 23),
                   kernel("void t<64u>(float*)", 24)};
  auto Pairs = matchKernels(Before, After, "t");
  ASSERT_EQ(Pairs.size(), 3u);
  ASSERT_NE(Pairs[0].first, nullptr);
  EXPECT_EQ(Pairs[0].first->Registers, 21u);
  EXPECT_EQ(Pairs[0].second->Registers, 22u);
  EXPECT_EQ(Pairs[1].first->Registers, 20u);
  EXPECT_EQ(Pairs[1].second->Registers, 23u);
  // An instantiation the input did not have: nothing to compare with.
  EXPECT_EQ(Pairs[2].first, nullptr);
  EXPECT_EQ(Pairs[2].second->Registers, 24u);
}

} // namespace
