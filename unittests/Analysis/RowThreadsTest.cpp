//===- RowThreadsTest.cpp - A thread-per-row kernel run by G threads ------===//

#include "kopt/Analysis/RowThreads.h"

#include "AnalyzedSource.h"

using namespace kopt;

namespace {

/// A thread-per-row kernel over the rows of x (n columns) with Body after
/// `int row = blockIdx.x * blockDim.x + threadIdx.x; if (row >= m) return;`.
std::string perRow(const std::string &Body,
                   const std::string &Params = "const float *__restrict__ x, "
                                               "float *__restrict__ y, int m, "
                                               "int n") {
  return "__global__ void k(" + Params +
         ") {\n"
         "  int row = blockIdx.x * blockDim.x + threadIdx.x;\n"
         "  if (row >= m) return;\n" +
         Body + "}\n";
}

/// One letter a top-level loop (S split, C carrying, in order), then the
/// number of accumulators combined and of lane-0 stores; or "refused: ...".
std::string plan(const std::string &Source, bool Reassociate = false,
                 unsigned Threads = 32) {
  AnalyzedSource S(Source);
  const KernelInfo *K = S.kernel();
  if (!K)
    return "no kernel";
  Decision<RowThreadsPlan> D =
      planRowThreads(*K, S.ctx(), Threads, Reassociate);
  if (const Refusal *R = std::get_if<Refusal>(&D))
    return "refused: " + R->Message;
  const RowThreadsPlan &P = std::get<RowThreadsPlan>(D);
  std::string Out;
  std::size_t Combined = 0;
  for (const RowLoop &L : P.Loops) {
    Out += L.Split ? "S" : "C";
    Combined += L.Accumulators.size();
  }
  return Out + " combined " + std::to_string(Combined) + " lane0 " +
         std::to_string(P.LaneZeroStores.size());
}

bool refusedFor(const std::string &Answer, const std::string &Why) {
  return Answer.rfind("refused: ", 0) == 0 &&
         Answer.find(Why) != std::string::npos;
}

const std::string RowSum = "  float s = 0.0f;\n"
                           "  for (int j = 0; j < n; ++j)\n"
                           "    s += x[row * n + j];\n"
                           "  y[row] = s;\n";

} // namespace

TEST(RowThreadsTest, AFloatRowSumIsSplitOnlyWhenItMayRoundDifferently) {
  // Exact: the sum stays in each thread, in order; nothing else to split.
  std::string Exact = plan(perRow(RowSum));
  EXPECT_TRUE(refusedFor(Exact, "reassociate=true allows it")) << Exact;
  EXPECT_EQ(plan(perRow(RowSum), /*Reassociate=*/true), "S combined 1 lane0 1");
}

TEST(RowThreadsTest, ExactReductionsAndElementwiseLoopsAreSplit) {
  // A maximum is exact; the row is then scaled by it, element by element.
  EXPECT_EQ(plan(perRow("  float mx = -INFINITY;\n"
                        "  for (int j = 0; j < n; ++j)\n"
                        "    mx = fmaxf(mx, x[row * n + j]);\n"
                        "  for (int j = 0; j < n; ++j)\n"
                        "    y[row * n + j] = x[row * n + j] / mx;\n")),
            "SS combined 1 lane0 0");
  // An integer sum is exact too.
  EXPECT_EQ(plan(perRow("  int c = 0;\n"
                        "  for (int j = 0; j < n; ++j)\n"
                        "    c += x[row * n + j] > 0.0f;\n"
                        "  y[row] = c;\n")),
            "S combined 1 lane0 1");
}

TEST(RowThreadsTest, WhatTiesWorkToOneThreadIsRefused) {
  // A running sum stored at every element carries more than a reduction:
  // the loop runs in every thread, and nothing is left to split.
  std::string Running = plan(perRow("  float s = 0.0f;\n"
                                    "  for (int j = 0; j < n; ++j) {\n"
                                    "    s += x[row * n + j];\n"
                                    "    y[row * n + j] = s;\n  }\n"),
                             true);
  EXPECT_TRUE(refusedFor(Running, "carries more than a reduction")) << Running;
  // A written pointer that is not restrict.
  std::string Alias =
      plan(perRow("  for (int j = 0; j < n; ++j)\n"
                  "    y[row * n + j] = 2.0f * x[row * n + j];\n",
                  "const float *x, float *y, int m, int n"));
  EXPECT_TRUE(refusedFor(Alias, "__restrict__")) << Alias;
  // Shared memory and barriers belong to the block.
  std::string Shared = plan(perRow("  __shared__ float t[32];\n"
                                   "  t[threadIdx.x % 32] = x[row];\n"
                                   "  for (int j = 0; j < n; ++j)\n"
                                   "    y[row * n + j] = t[0];\n"));
  EXPECT_TRUE(refusedFor(Shared, "shared memory")) << Shared;
  // threadIdx outside the row's index.
  std::string Lane = plan(perRow("  for (int j = 0; j < n; ++j)\n"
                                 "    y[row * n + j] = x[row * n + j] + "
                                 "threadIdx.x;\n"));
  EXPECT_TRUE(refusedFor(Lane, "threadIdx")) << Lane;
}
