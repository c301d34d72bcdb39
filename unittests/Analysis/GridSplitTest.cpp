//===- GridSplitTest.cpp - A grid-stride kernel on a larger grid ----------===//

#include "kopt/Analysis/GridSplit.h"

#include "AnalyzedSource.h"

using namespace kopt;

namespace {

/// A grid-stride kernel over (x, y, n) with the loop header Head and body
/// Body, y __restrict__ unless Restrict is false.
std::string gridStride(const std::string &Body,
                       const std::string &Head =
                           "(int i = blockIdx.x * blockDim.x + threadIdx.x; "
                           "i < n; i += blockDim.x * gridDim.x)",
                       const std::string &Params =
                           "const float *__restrict__ x, float *__restrict__ "
                           "y, int n") {
  return "__global__ void k(" + Params + ") {\n  for " + Head + " {\n" + Body +
         "  }\n}\n";
}

/// "index i (32 bits) < n, writes y", or "refused: message".
std::string plan(const std::string &Source) {
  AnalyzedSource S(Source);
  const KernelInfo *K = S.kernel();
  if (!K)
    return "no kernel";
  Decision<GridSplitPlan> D = planGridSplit(*K, S.ctx());
  if (const Refusal *R = std::get_if<Refusal>(&D))
    return "refused: " + R->Message;
  const GridSplitPlan &P = std::get<GridSplitPlan>(D);
  std::string Out = "index " + P.Index->getNameAsString() + " (" +
                    std::to_string(P.IndexBits) + " bits) < " +
                    P.Bound->getNameAsString() + ", writes";
  for (const clang::ParmVarDecl *W : P.Written)
    Out += " " + W->getNameAsString();
  return Out;
}

bool refusedFor(const std::string &Answer, const std::string &Why) {
  return Answer.rfind("refused: ", 0) == 0 &&
         Answer.find(Why) != std::string::npos;
}

} // namespace

TEST(GridSplitTest, GridStrideLoopsAsRealCodeWritesThem) {
  EXPECT_EQ(plan(gridStride("    y[i] = 2.0f * x[i];\n")),
            "index i (32 bits) < n, writes y");
  // The stride through a local, operands swapped, a 64-bit counter.
  EXPECT_EQ(plan("__global__ void k(const float *__restrict__ x, "
                 "float *__restrict__ y, int n) {\n"
                 "  const int stride = gridDim.x * blockDim.x;\n"
                 "  for (long long i = threadIdx.x + blockIdx.x * blockDim.x; "
                 "i < n; i += stride)\n"
                 "    y[i] = x[i] + x[n - 1 - i];\n}\n"),
            "index i (64 bits) < n, writes y");
}

TEST(GridSplitTest, WhatDependsOnTheGridIsRefused) {
  // Carried from one iteration to the next.
  std::string Carried =
      plan("__global__ void k(const float *__restrict__ x, "
           "float *__restrict__ y, int n) {\n  float s = 0;\n"
           "  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; "
           "i += blockDim.x * gridDim.x) {\n    s += x[i];\n    y[i] = s;\n"
           "  }\n}\n");
  EXPECT_TRUE(refusedFor(Carried, "state carried")) << Carried;
  // threadIdx read in the body tells threads apart.
  std::string Thread = plan(gridStride("    y[i] = x[i] + threadIdx.x;\n"));
  EXPECT_TRUE(refusedFor(Thread, "threadIdx")) << Thread;
  // A written pointer read at another index than it is written (a store at
  // a fixed offset alone is fine: its iteration alone touches it), or
  // written and not restrict.
  EXPECT_EQ(plan(gridStride("    y[i + 1] = x[i];\n")),
            "index i (32 bits) < n, writes y");
  std::string Shifted = plan(gridStride("    y[i] = 2.0f * y[i + 1];\n"));
  EXPECT_TRUE(refusedFor(Shifted, "two different offsets")) << Shifted;
  std::string Alias = plan(gridStride("    y[i] = x[i];\n",
                                      "(int i = blockIdx.x * blockDim.x + "
                                      "threadIdx.x; i < n; i += blockDim.x * "
                                      "gridDim.x)",
                                      "const float *x, float *y, int n"));
  EXPECT_TRUE(refusedFor(Alias, "__restrict__")) << Alias;
  // Leaving early, and a barrier.
  EXPECT_TRUE(refusedFor(
      plan(gridStride("    if (x[i] < 0) break;\n    y[i] = x[i];\n")),
      "leaves the loop early"));
  std::string Barrier =
      plan(gridStride("    y[i] = x[i];\n    __syncthreads();\n"));
  EXPECT_TRUE(refusedFor(Barrier, "__syncthreads()")) << Barrier;
}
