//===- HostCodeTest.cpp - The host side's fingerprint ---------------------===//
#include "kopt/Search/HostCode.h"

#include <gtest/gtest.h>

using namespace kopt::search;

namespace {

const char *Original = R"(#include <cuda_runtime.h>
constexpr int T = 16;
__global__ void k(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { x[i] *= 2; }
}
__device__ float twice(float v) { return 2 * v; }
__host__ __device__ float half(float v) { return v / 2; }
extern "C" void launch(float *x, int n, cudaStream_t s) {
  k<<<(n + 255) / 256, 256, 0, s>>>(x, n);
}
)";

} // namespace

TEST(HostCodeTest, DeviceOnlyDefinitionsAndCommentsDoNotCount) {
  std::string Other = R"(#include <cuda_runtime.h>
// a comment
constexpr int T = 16;
__global__ void __launch_bounds__(256) k(float *__restrict__ x, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += 1) x[i] *= 2;
}
__device__ float twice(float v) { return v + v; }
__host__ __device__ float half(float v) { return v / 2; }
extern "C" void launch(float *x, int n, cudaStream_t s) {
  k<<<(n + 255) / 256,   256, 0, s>>>(x, n);
}
)";
  EXPECT_EQ(hostFingerprint(Original), hostFingerprint(Other));
}

TEST(HostCodeTest, ALauncherThatChangesIsAnotherProgram) {
  std::string Half = Original;
  Half.replace(Half.find("(n + 255) / 256"), 15, "(n / 2 + 255) / 256");
  EXPECT_NE(hostFingerprint(Original), hostFingerprint(Half));
}

TEST(HostCodeTest, HostDeviceFunctionsAndDeclarationsCount) {
  std::string Other = Original;
  Other.replace(Other.find("return v / 2"), 12, "return v * 0.5f");
  EXPECT_NE(hostFingerprint(Original), hostFingerprint(Other));
  Other = Original;
  Other.replace(Other.find("T = 16"), 6, "T = 32");
  EXPECT_NE(hostFingerprint(Original), hostFingerprint(Other));
}

TEST(HostCodeTest, KeepsTheHostCode) {
  std::string F = hostFingerprint(Original);
  EXPECT_NE(F.find("launch"), std::string::npos);
  EXPECT_EQ(F.find("blockIdx"), std::string::npos);
  EXPECT_EQ(F.find("twice"), std::string::npos);
  EXPECT_NE(F.find("half"), std::string::npos);
}
