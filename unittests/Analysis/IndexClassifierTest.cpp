//===- IndexClassifierTest.cpp - Per-thread index classes -----------------===//

#include "AnalyzedSource.h"

using namespace kopt;

namespace {

/// Parses a kernel `k` whose body is Body and returns the class of the index
/// of its first global access.
IndexClass classOf(const std::string &Body,
                   const std::string &Params = "float *p, int n") {
  AnalyzedSource Src("__global__ void k(" + Params + ") {\n" + Body + "\n}\n");
  const KernelInfo *K = Src.Parsed ? Src.kernel() : nullptr;
  if (!K || K->Accesses.empty()) {
    ADD_FAILURE() << "no access in: " << Body;
    return {};
  }
  return K->Accesses[0].Class;
}

IndexClass make(IndexClass::Kind K, std::optional<int64_t> Stride) {
  IndexClass C;
  C.K = K;
  C.Stride = Stride;
  return C;
}

TEST(IndexClassifierTest, ThreadIndexIsContiguous) {
  EXPECT_EQ(classOf("p[threadIdx.x] = 0;"), make(IndexClass::Contiguous, 1));
  EXPECT_EQ(classOf("int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                    "p[i] = 0;"),
            make(IndexClass::Contiguous, 1));
  EXPECT_EQ(classOf("p[blockIdx.x * n + threadIdx.x + 3] = 0;"),
            make(IndexClass::Contiguous, 1));
}

TEST(IndexClassifierTest, ConstantMultiplesAreStrided) {
  EXPECT_EQ(classOf("p[2 * threadIdx.x] = 0;"), make(IndexClass::Strided, 2));
  EXPECT_EQ(classOf("p[threadIdx.x << 3] = 0;"), make(IndexClass::Strided, 8));
  EXPECT_EQ(classOf("p[(threadIdx.x + 1) * 4 - 4] = 0;"),
            make(IndexClass::Strided, 4));
}

TEST(IndexClassifierTest, RuntimeMultiplesAreStridedWithoutStride) {
  EXPECT_EQ(classOf("p[threadIdx.x * n] = 0;"),
            make(IndexClass::Strided, std::nullopt));
}

TEST(IndexClassifierTest, BlockValuesAreUniform) {
  EXPECT_EQ(classOf("p[blockIdx.x * n] = 0;"), make(IndexClass::Uniform, 0));
  EXPECT_EQ(classOf("p[n - 1] = 0;"), make(IndexClass::Uniform, 0));
  EXPECT_EQ(classOf("const int row = blockIdx.y;\np[row * n] = 0;"),
            make(IndexClass::Uniform, 0));
}

TEST(IndexClassifierTest, LoopVariablesKeepTheirStartClass) {
  // A block-stride loop: every thread advances by the same step.
  EXPECT_EQ(classOf("for (int j = threadIdx.x; j < n; j += blockDim.x)\n"
                    "  p[blockIdx.x * n + j] = 0;"),
            make(IndexClass::Contiguous, 1));
  // A counted loop from 0 is uniform.
  EXPECT_EQ(classOf("for (int k = 0; k < 4; ++k) p[k] = 0;"),
            make(IndexClass::Uniform, 0));
}

TEST(IndexClassifierTest, DataDependentAndOtherDimensionsAreUnknown) {
  EXPECT_EQ(classOf("p[threadIdx.y] = 0;").K, IndexClass::Unknown);
  EXPECT_EQ(classOf("p[q[threadIdx.x]] = 0;", "float *p, int *q").K,
            IndexClass::Unknown);
  EXPECT_EQ(classOf("p[threadIdx.x * threadIdx.x] = 0;").K,
            IndexClass::Unknown);
  EXPECT_EQ(classOf("p[threadIdx.x / 2] = 0;").K, IndexClass::Unknown);
}

TEST(IndexClassifierTest, RemaindersWithinAWarpAreContiguous) {
  // Lanes of one warp: (t + 1) % 32 - t % 32 is 1 for t % 32 < 31.
  EXPECT_EQ(classOf("p[threadIdx.x % 32] = 0;"),
            make(IndexClass::Contiguous, 1));
  EXPECT_EQ(classOf("p[(threadIdx.x & 31) * 2 + (threadIdx.x >> 5) * 64] = 0;"),
            make(IndexClass::Strided, 2));
  // The warp's number times a run-time value is not affine.
  EXPECT_EQ(classOf("p[(threadIdx.x & 31) + (threadIdx.x >> 5) * n] = 0;").K,
            IndexClass::Unknown);
  EXPECT_EQ(classOf("p[threadIdx.x % 16] = 0;").K, IndexClass::Unknown);
}

TEST(IndexClassifierTest, ModifiedVariablesAreUnknown) {
  EXPECT_EQ(classOf("int i = threadIdx.x;\n i *= 2;\n p[i] = 0;").K,
            IndexClass::Unknown);
}

} // namespace
