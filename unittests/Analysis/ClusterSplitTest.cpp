//===- ClusterSplitTest.cpp - A block's group shared by a cluster ---------===//

#include "kopt/Analysis/ClusterSplit.h"

#include "AnalyzedSource.h"

using namespace kopt;

namespace {

/// A block-per-group kernel: Accumulate over the group (with `T acc`
/// declared before), a shared-memory tree over acc, then Last.
std::string group(const std::string &Accumulate,
                  const std::string &Type = "float",
                  const std::string &Last =
                      "  for (int i = threadIdx.x; i < n; i += blockDim.x)\n"
                      "    out[i] = in[i] / total;\n",
                  const std::string &Before = "") {
  return "__global__ void k(const " + Type + " *__restrict__ x, " + Type +
         " *__restrict__ y, int n) {\n"
         "  __shared__ " +
         Type +
         " buf[256];\n"
         "  const " +
         Type +
         " *in = x + (long long)blockIdx.x * n;\n"
         "  " +
         Type + " *out = y + (long long)blockIdx.x * n;\n" + Before + "  " +
         Type + " acc = 0;\n" + Accumulate +
         "  buf[threadIdx.x] = acc;\n  __syncthreads();\n"
         "  for (int s = blockDim.x / 2; s > 0; s >>= 1) {\n"
         "    if (threadIdx.x < s) buf[threadIdx.x] += buf[threadIdx.x + s];\n"
         "    __syncthreads();\n  }\n"
         "  " +
         Type + " total = buf[0];\n" + Last + "}\n" + "void launch(const " +
         Type + " *x, " + Type +
         " *y, int rows, int n) {\n"
         "  k<<<rows, 256>>>(x, y, n);\n}\n";
}

const std::string Sum = "  for (int i = threadIdx.x; i < n; i += blockDim.x)\n"
                        "    acc += in[i];\n";

/// "loops N, accumulators A, rounding R", or "refused: message".
std::string plan(const std::string &Source, bool Reassociate) {
  AnalyzedSource S(Source);
  const KernelInfo *K = S.kernel();
  if (!K)
    return "no kernel";
  Decision<ClusterSplitPlan> D = planClusterSplit(*K, S.ctx(), Reassociate);
  if (const Refusal *R = std::get_if<Refusal>(&D))
    return "refused: " + R->Message;
  const ClusterSplitPlan &P = std::get<ClusterSplitPlan>(D);
  std::size_t Accumulators = 0;
  for (const ClusterLoop &L : P.Loops)
    Accumulators += L.Accumulators.size();
  return "loops " + std::to_string(P.Loops.size()) + ", accumulators " +
         std::to_string(Accumulators) + ", rounding " +
         (P.Rounding ? "yes" : "no");
}

bool refusedFor(const std::string &Answer, const std::string &Why) {
  return Answer.rfind("refused: ", 0) == 0 &&
         Answer.find(Why) != std::string::npos;
}

} // namespace

TEST(ClusterSplitTest, AFloatSumIsSplitOnlyWhenItMayRoundDifferently) {
  EXPECT_EQ(plan(group(Sum), true), "loops 2, accumulators 1, rounding yes");
  std::string Exact = plan(group(Sum), false);
  EXPECT_TRUE(refusedFor(Exact, "round")) << Exact;
  EXPECT_TRUE(refusedFor(Exact, "reassociate=true")) << Exact;
}

TEST(ClusterSplitTest, MaximaAndIntegerSumsAreExact) {
  EXPECT_EQ(plan(group("  for (int i = threadIdx.x; i < n; i += blockDim.x)\n"
                       "    acc = fmaxf(acc, in[i]);\n"),
                 false),
            "loops 2, accumulators 1, rounding no");
  EXPECT_EQ(plan(group(Sum, "int"), false),
            "loops 2, accumulators 1, rounding no");
}

TEST(ClusterSplitTest, WhatTheClusterCannotShareIsRefused) {
  // A barrier inside a split loop.
  EXPECT_TRUE(refusedFor(
      plan(group("  for (int i = threadIdx.x; i < n; i += blockDim.x) {\n"
                 "    acc += in[i];\n    __syncthreads();\n  }\n"),
           true),
      "barrier"));
  // A return before the loop: not every thread reaches the combine.
  std::string Return =
      plan(group(Sum, "float",
                 "  for (int i = threadIdx.x; i < n; i += blockDim.x)\n"
                 "    out[i] = in[i] / total;\n",
                 "  if (n == 0) return;\n"),
           true);
  EXPECT_TRUE(refusedFor(Return, "return")) << Return;
  // The stores come before the last combine: another block of the cluster
  // may still read what they overwrite.
  std::string Early =
      plan(group(Sum, "float",
                 "  for (int i = threadIdx.x; i < n; i += blockDim.x)\n"
                 "    out[i] = in[i] / total;\n"
                 "  float acc2 = 0;\n"
                 "  for (int i = threadIdx.x; i < n; i += blockDim.x)\n"
                 "    acc2 += in[i];\n"
                 "  if (threadIdx.x == 0) out[0] = acc2;\n"),
           true);
  EXPECT_TRUE(refusedFor(Early, "stores to memory before the loop at 18:3 is "
                                "combined"))
      << Early;
  // Nothing to combine: an element-wise kernel is split-grid's.
  std::string Copy =
      "__global__ void k(const float *__restrict__ x, float *__restrict__ y,"
      " int n) {\n"
      "  for (int i = threadIdx.x; i < n; i += blockDim.x)\n"
      "    y[blockIdx.x * n + i] = x[blockIdx.x * n + i];\n}\n"
      "void launch(const float *x, float *y, int rows, int n) {\n"
      "  k<<<rows, 256>>>(x, y, n);\n}\n";
  EXPECT_TRUE(refusedFor(plan(Copy, true), "no block-stride loop accumulates"))
      << plan(Copy, true);
}
