//===- PartialCombineTest.cpp - Partials that only their combine reads ----===//

#include "kopt/Analysis/PartialCombine.h"

#include "AnalyzedSource.h"

using namespace kopt;

namespace {

/// Helpers every case may call: a block reduction (it waits at a barrier),
/// a warp reduction, and a scan (shuffles up).
const char *Helpers = R"(
__device__ float warpSum(float v) {
  for (int o = 16; o > 0; o >>= 1)
    v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}
__device__ float blockSum(float v, float *buf) {
  buf[threadIdx.x] = v;
  __syncthreads();
  float t = 0;
  for (int i = 0; i < blockDim.x; ++i)
    t += buf[i];
  __syncthreads();
  return t;
}
__device__ float warpScan(float v) {
  for (int o = 1; o < 32; o <<= 1)
    v += __shfl_up_sync(0xffffffffu, v, o);
  return v;
}
)";

/// The verdict on the first for loop of kernel `k`, whose body is Body:
/// "" when accepted, else the refusal's message.
std::string verdict(const std::string &Body, PartialScope Scope = {}) {
  AnalyzedSource Src(std::string(Helpers) +
                     "__global__ void k(const float *x, float *y, int n) {\n"
                     "  __shared__ float buf[256];\n"
                     "  const int t = threadIdx.x;\n" +
                     Body + "\n}\n");
  if (!Src.Parsed)
    return "not parsed";
  const KernelInfo *K = Src.kernel();
  std::vector<const clang::ForStmt *> Loops = Src.all<clang::ForStmt>();
  EXPECT_FALSE(Loops.empty());
  if (!K || Loops.empty())
    return "no loop";
  std::optional<Refusal> Why =
      checkPartialsCombined(K->Decl, Loops.front(), Scope, Src.ctx());
  return Why ? Why->Message : "";
}

const char *RowSum = "float s = 0;\n"
                     "for (int j = t; j < n; j += blockDim.x)\n"
                     "  s += x[blockIdx.x * n + j];\n";
const char *Tree = "__syncthreads();\n"
                   "for (int st = blockDim.x / 2; st > 0; st >>= 1) {\n"
                   "  if (t < st) buf[t] += buf[t + st];\n"
                   "  __syncthreads();\n"
                   "}\n";

std::string rowSum(const std::string &After, PartialScope Scope = {}) {
  return verdict(RowSum + After, Scope);
}

TEST(PartialCombineTest, NoCarriedStateIsNothingToCheck) {
  EXPECT_EQ(verdict("for (int j = t; j < n; j += blockDim.x) y[j] = x[j];"),
            "");
}

TEST(PartialCombineTest, SharedMemoryTreeOfTheSameOperation) {
  EXPECT_EQ(rowSum("buf[t] = s;\n" + std::string(Tree) +
                   "if (t == 0) y[blockIdx.x] = buf[0];"),
            "");
  // A maximum tree over partial sums depends on who summed what.
  std::string Max = verdict(
      "float s = 0;\nfor (int j = t; j < n; j += blockDim.x) s += x[j];\n"
      "buf[t] = s;\n__syncthreads();\n"
      "for (int st = blockDim.x / 2; st > 0; st >>= 1) {\n"
      "  if (t < st) buf[t] = fmaxf(buf[t], buf[t + st]);\n"
      "  __syncthreads();\n}\n");
  EXPECT_NE(Max.find("a thread's partial is used other than in their "
                     "combine over the block"),
            std::string::npos)
      << Max;
}

TEST(PartialCombineTest, PartialReadAgainAfterItsTree) {
  std::string Why = rowSum("buf[t] = s;\n" + std::string(Tree) +
                           "y[blockIdx.x * blockDim.x + t] = s;");
  EXPECT_NE(Why.find("'y[blockIdx.x * blockDim.x + t] = s'"), std::string::npos)
      << Why;
}

TEST(PartialCombineTest, StoredPartialsAreRefused) {
  std::string Why = rowSum("y[blockIdx.x * blockDim.x + t] = s;");
  EXPECT_NE(Why.find("vectorizing changes which elements each thread folds "
                     "into 's'"),
            std::string::npos)
      << Why;
}

TEST(PartialCombineTest, RunningSumsAreNotAccumulators) {
  std::string Why = verdict("float s = 0;\n"
                            "for (int j = t; j < n; j += blockDim.x) {\n"
                            "  s += x[j];\n  y[j] = s;\n}\n");
  EXPECT_NE(Why.find("carries state other than partial sums"),
            std::string::npos)
      << Why;
}

TEST(PartialCombineTest, WarpShufflesThenSharedMemory) {
  EXPECT_EQ(rowSum("for (int o = 16; o > 0; o >>= 1)\n"
                   "  s += __shfl_down_sync(0xffffffffu, s, o);\n"
                   "float *part = buf;\n"
                   "if (t % 32 == 0) part[t / 32] = s;\n"
                   "__syncthreads();\n"),
            "");
  // A warp's total written out is only the block's in blocks of one warp.
  std::string Out = "for (int o = 16; o > 0; o >>= 1)\n"
                    "  s += __shfl_xor_sync(0xffffffffu, s, o);\n"
                    "if (t == 0) y[blockIdx.x] = s;\n";
  EXPECT_NE(rowSum(Out).find("a warp's total is used"), std::string::npos);
  PartialScope OneWarp;
  OneWarp.OneWarpBlocks = true;
  EXPECT_EQ(rowSum(Out, OneWarp), "");
}

TEST(PartialCombineTest, CopiesAreFollowed) {
  // warp-reduce's rewrite of a tree copies the partial first.
  EXPECT_EQ(rowSum("float w = s;\n"
                   "for (int o = 16; o > 0; o >>= 1)\n"
                   "  w += __shfl_xor_sync(0xffffffffu, w, o);\n"
                   "if (t % 32 == 0) buf[t / 32] = w;\n"),
            "");
  std::string Why = rowSum("float w = s;\ny[blockIdx.x * 256 + t] = w;");
  EXPECT_NE(Why.find("a thread's partial"), std::string::npos) << Why;
}

TEST(PartialCombineTest, FunctionsThatReduce) {
  EXPECT_EQ(rowSum("s = blockSum(s, buf);\ny[blockIdx.x * 256 + t] = s;"), "");
  EXPECT_EQ(rowSum("y[blockIdx.x] = blockSum(s, buf) / n;"), "");
  // A warp's total from a helper, then stored by every lane.
  EXPECT_NE(rowSum("s = warpSum(s);\ny[blockIdx.x * 256 + t] = s;")
                .find("a warp's total"),
            std::string::npos);
  // A scan hands each lane its own prefix.
  EXPECT_NE(rowSum("s = warpScan(s);\nbuf[t] = s;").find("a thread's partial"),
            std::string::npos);
}

TEST(PartialCombineTest, AtomicsAtOneAddress) {
  EXPECT_EQ(rowSum("atomicAdd(&y[blockIdx.x], s);"), "");
  EXPECT_NE(rowSum("atomicAdd(&y[t], s);"), "");
  EXPECT_NE(rowSum("atomicMax((int *)y, (int)s);"), "");
}

TEST(PartialCombineTest, ValuesAssignedAfreshAreFree) {
  EXPECT_EQ(rowSum("buf[t] = s;\n" + std::string(Tree) +
                   "s = buf[0];\ny[blockIdx.x * 256 + t] = s;"),
            "");
  // Not in a branch: other threads keep their partials.
  EXPECT_NE(rowSum("buf[t] = s;\n" + std::string(Tree) +
                   "if (t == 0) s = buf[0];\ny[blockIdx.x * 256 + t] = s;"),
            "");
}

TEST(PartialCombineTest, GridStrideLoopsNeedOneAddressForTheGrid) {
  PartialScope Grid;
  Grid.Grid = true;
  std::string Loop = "float s = 0;\n"
                     "for (int j = blockIdx.x * blockDim.x + t; j < n;\n"
                     "     j += blockDim.x * gridDim.x)\n"
                     "  s += x[j];\n";
  EXPECT_EQ(verdict(Loop + "atomicAdd(y, s);", Grid), "");
  EXPECT_EQ(verdict(Loop + "float b = blockSum(s, buf);\n"
                           "if (t == 0) atomicAdd(&y[0], b);",
                    Grid),
            "");
  std::string PerBlock = verdict(Loop + "float b = blockSum(s, buf);\n"
                                        "if (t == 0) y[blockIdx.x] = b;",
                                 Grid);
  EXPECT_NE(PerBlock.find("('y[blockIdx.x] = b') a block's total is used "
                          "other than in their combine over the grid"),
            std::string::npos)
      << PerBlock;
  EXPECT_NE(verdict(Loop + "buf[t] = s;\n" + Tree, Grid), "");
}

} // namespace
