//===- ReReadLoopsTest.cpp - Loops that read elements read before ---------===//

#include "kopt/Analysis/ReReadLoops.h"

#include "AnalyzedSource.h"

using namespace kopt;

namespace {

/// The re-read groups of kernel `k` (SameIterations unless said): "A->B"
/// per group as the loops' lines, or the first refusal.
std::string groups(const std::string &Source,
                   ReReadShapes Shapes = ReReadShapes::SameIterations) {
  AnalyzedSource S(Source);
  const KernelInfo *K = S.kernel();
  if (!K)
    return "no kernel";
  ReReadLoops Found = findReReadLoops(*K, S.ctx(), Shapes);
  std::string Out;
  for (const ReReadGroup &G : Found.Groups)
    for (const clang::ForStmt *B : G.Bs)
      Out += (Out.empty() ? "" : " ") +
             std::to_string(lineCol(G.A->getBeginLoc(), S.ctx()).Line) + "->" +
             std::to_string(lineCol(B->getBeginLoc(), S.ctx()).Line);
  if (Out.empty() && !Found.Refusals.empty())
    return "refused: " + Found.Refusals.front().Message;
  return Out.empty() ? "none" : Out;
}

/// A kernel whose two loops over x have the header Head.
std::string twoLoops(const std::string &Before, const std::string &Head) {
  return Before +
         "__global__ void k(const float *__restrict__ x, float *y, "
         "int n) {\n"
         "  float a = 0, b = 0;\n"
         "  for " +
         Head +
         " a += x[i];\n"
         "  for " +
         Head +
         " b += x[i] * a;\n"
         "  y[threadIdx.x] = b;\n}\n";
}

const char *Part =
    "static __device__ __attribute__((const)) int part(int n, int r) {\n"
    "  return n / 8 * r;\n}\n"
    // On one line, as the loops' positions below assume; not pure: it
    // reads a global.
    "__device__ int g_scale; static __device__ int impure(int n) { "
    "return n * g_scale; }\n";

} // namespace

TEST(ReReadLoopsTest, BlockStrideLoopsReadTheSameElements) {
  EXPECT_EQ(groups(twoLoops("", "(int i = threadIdx.x; i < n; i += "
                                "blockDim.x)"),
                   ReReadShapes::BlockStride),
            "3->4");
}

TEST(ReReadLoopsTest, SameIterationsTakesPureCallsInStartsAndBounds) {
  // cluster-split's shape: a part of the range from a function of its
  // arguments alone, the same in both loops.
  EXPECT_EQ(groups(twoLoops(Part, "(int i = part(n, blockIdx.x % 8) + "
                                  "threadIdx.x; i < part(n, blockIdx.x % 8 + "
                                  "1); i += blockDim.x)")),
            "7->8");
  // Not without the attribute: the call may differ between the loops.
  EXPECT_NE(groups(twoLoops(Part, "(int i = impure(n) + threadIdx.x; i < n; "
                                  "i += blockDim.x)"))
                .find("the loop at 7:3 has a start or step that reads "
                      "'impure(n)'"),
            std::string::npos);
  // A bound that is no value of the kernel's: refused, and said so.
  EXPECT_NE(groups(twoLoops(Part, "(int i = threadIdx.x; i < impure(n); i += "
                                  "blockDim.x)"))
                .find("which is not one value for the whole kernel"),
            std::string::npos);
}

TEST(ReReadLoopsTest, TemplateValueParametersAreOneValueAnInstance) {
  std::string T =
      "template <int BLOCK>\n"
      "__global__ void k(const float *__restrict__ x, float *y, int n) {\n"
      "  float a = 0, b = 0;\n"
      "  for (int i = threadIdx.x; i < n; i += BLOCK) a += x[i];\n"
      "  for (int i = threadIdx.x; i < n; i += BLOCK) b += x[i] * a;\n"
      "  y[threadIdx.x] = b;\n}\n"
      "template __global__ void k<128>(const float *__restrict__, float *, "
      "int);\n";
  EXPECT_EQ(groups(T), "4->5");
}

TEST(ReReadLoopsTest, DifferentBoundsAreNotTheSameIterations) {
  std::string Src =
      "__global__ void k(const float *__restrict__ x, float *y, int n, int m) "
      "{\n"
      "  float a = 0, b = 0;\n"
      "  for (int i = threadIdx.x; i < n; i += blockDim.x) a += x[i];\n"
      "  for (int i = threadIdx.x; i < m; i += blockDim.x) b += x[i] * a;\n"
      "  y[threadIdx.x] = b;\n}\n";
  EXPECT_NE(groups(Src).find("have different bounds"), std::string::npos);
}
