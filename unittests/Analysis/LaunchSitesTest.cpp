//===- LaunchSitesTest.cpp - Block sizes the launches fix -----------------===//

#include "kopt/Analysis/KernelInfo.h"

#include "../ParseHelper.h"
#include "../TestHelpers.h"

#include "clang/Frontend/ASTUnit.h"

using namespace kopt;

namespace {

/// Kernels whose loops step by a name for the block size, each launched so
/// that the name is, or is not, blockDim.x. One parse for all cases.
const char *Source = R"(
#define BLOCK 256
__global__ void macro(float *y, int n) {
  for (int i = threadIdx.x; i < n; i += BLOCK) y[i] = 0;
}
__global__ void macro_other(float *y, int n) {
  for (int i = threadIdx.x; i < n; i += BLOCK) y[i] = 0;
}
__global__ void macro_two(float *y, int n) {
  for (int i = threadIdx.x; i < n; i += BLOCK) y[i] = 0;
}
__global__ void param(float *y, int n, int bs) {
  for (int i = threadIdx.x; i < n; i += bs) y[i] = 0;
}
__global__ void param_other(float *y, int n, int bs) {
  for (int i = threadIdx.x; i < n; i += bs) y[i] = 0;
}
__global__ void param_effects(float *y, int n, int bs) {
  for (int i = threadIdx.x; i < n; i += bs) y[i] = 0;
}
__global__ void local_copy(float *y, int n) {
  int bs = blockDim.x;
  for (int i = threadIdx.x; i < n; i += bs) y[i] = 0;
}
__global__ void small_step(float *y, int n) {
  for (int i = threadIdx.x; i < n; i += 4) y[i] = 0;
}
__global__ void grid_macro(float *y, int n) {
  for (int i = blockIdx.x * BLOCK + threadIdx.x; i < n; i += BLOCK * gridDim.x)
    y[i] = 0;
}
__global__ void grid_macro_other(float *y, int n) {
  for (int i = threadIdx.x + BLOCK * blockIdx.x; i < n; i += gridDim.x * BLOCK)
    y[i] = 0;
}
__global__ void grid_mixed(float *y, int n) {
  for (int i = blockIdx.x * BLOCK + threadIdx.x; i < n; i += 128 * gridDim.x)
    y[i] = 0;
}
__global__ void unlaunched(float *y, int n) {
  for (int i = threadIdx.x; i < n; i += BLOCK) y[i] = 0;
}
void launch(float *y, int n, int threads) {
  macro<<<4, BLOCK>>>(y, n);
  macro_other<<<4, 512>>>(y, n);
  macro_two<<<4, 256>>>(y, n);
  macro_two<<<4, 128>>>(y, n);
  param<<<4, threads>>>(y, n, threads);
  param<<<4, 64>>>(y, n, 64);
  param_other<<<4, threads>>>(y, n, threads / 2);
  param_effects<<<4, threads>>>(y, n++, threads);
  local_copy<<<4, threads>>>(y, n);
  small_step<<<4, 4>>>(y, n);
  grid_macro<<<8, BLOCK>>>(y, n);
  grid_macro_other<<<8, 128>>>(y, n);
  grid_mixed<<<8, 256>>>(y, n);
}
)";

struct Parsed {
  ParsedSource Source;
  ProgramInfo Info;
};

Parsed &parsed() {
  static Parsed *P = [] {
    llvm::Expected<ParsedSource> S =
        testFrontend().parse("/virtual/launches.cu", Source);
    EXPECT_TRUE(static_cast<bool>(S)) << messageOf(S.takeError());
    auto *R = new Parsed{std::move(*S), {}};
    R->Info = analyzeProgram(R->Source, "sm_90");
    return R;
  }();
  return *P;
}

const KernelInfo &kernel(llvm::StringRef Name) {
  const KernelInfo *K = parsed().Info.kernel(Name);
  EXPECT_NE(K, nullptr) << Name.str();
  return *K;
}

/// The kind of Name's last loop and why it is not block-stride.
std::pair<LoopInfo::Kind, std::string> loopOf(llvm::StringRef Name) {
  const KernelInfo &K = kernel(Name);
  EXPECT_FALSE(K.Loops.empty());
  const LoopInfo &L = K.Loops.back();
  std::string Why = L.K == LoopInfo::Counted
                        ? whyStepIsNotBlockSize(parsed().Info, K, L)
                        : "";
  return {L.K, Why};
}

TEST(LaunchSites, ConstantStepIsTheLaunchedBlock) {
  EXPECT_EQ(loopOf("macro").first, LoopInfo::BlockStride);
  EXPECT_TRUE(kernel("macro").Loops.back().StepIsBlockSize);
  auto [Kind, Why] = loopOf("macro_other");
  EXPECT_EQ(Kind, LoopInfo::Counted);
  EXPECT_NE(Why.find("every launch runs 512 threads in x"), std::string::npos)
      << Why;
  std::tie(Kind, Why) = loopOf("macro_two");
  EXPECT_EQ(Kind, LoopInfo::Counted);
  EXPECT_NE(Why.find("blocks of 256 and 128"), std::string::npos) << Why;
  std::tie(Kind, Why) = loopOf("unlaunched");
  EXPECT_EQ(Kind, LoopInfo::Counted);
  EXPECT_NE(Why.find("no launch of 'unlaunched'"), std::string::npos) << Why;
  std::tie(Kind, Why) = loopOf("small_step");
  EXPECT_EQ(Kind, LoopInfo::Counted);
  EXPECT_NE(Why.find("less than a warp"), std::string::npos) << Why;
}

TEST(LaunchSites, ParameterStepPassedTheBlock) {
  EXPECT_EQ(loopOf("param").first, LoopInfo::BlockStride);
  auto [Kind, Why] = loopOf("param_other");
  EXPECT_EQ(Kind, LoopInfo::Counted);
  EXPECT_NE(Why.find("does not pass the value of its 1-D block 'threads'"),
            std::string::npos)
      << Why;
  // `n++` in the arguments: not taken for the same value.
  EXPECT_EQ(loopOf("param_effects").first, LoopInfo::Counted);
}

TEST(LaunchSites, LocalCopyOfBlockDim) {
  EXPECT_EQ(loopOf("local_copy").first, LoopInfo::BlockStride);
  EXPECT_FALSE(kernel("local_copy").Loops.back().StepIsBlockSize);
}

TEST(LaunchSites, GridStrideWithConstantBlock) {
  const KernelInfo &K = kernel("grid_macro");
  EXPECT_EQ(K.LaunchedBlockX, 256);
  EXPECT_EQ(loopOf("grid_macro").first, LoopInfo::GridStride);
  EXPECT_TRUE(K.Loops.back().StepIsBlockSize);
  // Operands in the other order; launched with 128 threads.
  auto [Kind, Why] = loopOf("grid_macro_other");
  EXPECT_EQ(Kind, LoopInfo::Counted);
  EXPECT_EQ(kernel("grid_macro_other").Loops.back().GridStartConstBlock, 256);
  EXPECT_NE(Why.find("a grid-stride loop only where 256 is blockDim.x, and "
                     "every launch runs 128 threads in x"),
            std::string::npos)
      << Why;
  // The start and the stride name different block sizes.
  EXPECT_EQ(loopOf("grid_mixed").first, LoopInfo::Counted);
  EXPECT_FALSE(kernel("grid_mixed").Loops.back().GridStartConstBlock);
  // Launches of two sizes: no one block.
  EXPECT_FALSE(kernel("macro_two").LaunchedBlockX);
}

TEST(LaunchSites, BlockPassedToParameter) {
  std::optional<std::string> Why =
      blockPassedToParameter(parsed().Info, kernel("param"));
  ASSERT_TRUE(Why.has_value());
  EXPECT_NE(Why->find("passes its block size to 'bs'"), std::string::npos)
      << *Why;
  // `threads / 2` is not the block; n is no block size.
  EXPECT_FALSE(blockPassedToParameter(parsed().Info, kernel("param_other")));
  EXPECT_FALSE(blockPassedToParameter(parsed().Info, kernel("macro")));
}

} // namespace
