// register-cache{serial-loops=true}: loops each thread runs whole (a thread
// a row or a position, as thread-per-block makes them) keep the elements the
// first loop loads in registers for the second, N a thread, with the run-time
// check `n <= N`. Off by default: such loops are left alone, with a remark.
// RUN: kopt-opt %s -passes='register-cache{serial-loops=true,check-resources=false}' -Rpass=register-cache -Rpass-missed=register-cache -o %t.cu 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: %strip_checks %t.cu | FileCheck %s
// RUN: %if cuda-toolkit %{ %nvcc_check %t.cu %}
// RUN: kopt-opt %t.cu -passes='register-cache{serial-loops=true,check-resources=false}' -o %t.again.cu
// RUN: cmp %t.cu %t.again.cu
// RUN: kopt-opt %s -passes='register-cache{check-resources=false}' -Rpass=register-cache -Rpass-missed=register-cache -o %t.off.cu 2>&1 | FileCheck %s --check-prefix=OFF
// RUN: cmp %s %t.off.cu
// REQUIRES: filecheck
#include <cuda_runtime.h>

// A thread a position of an NCHW tensor: the sum of squares over the
// channels, then the normalized write reads them again. 128-thread blocks:
// auto caches 64 registers' worth.
// REMARK-DAG: serial.cu:[[@LINE+7]]:3: remark: kept 'x[base + (long long)c * hw]' in registers for the loop at [[@LINE+12]]:3: 64 elements per thread (auto: 64 registers for 128-thread blocks); 'f' above 64 takes the original loops [-Rpass=register-cache]
// OFF: serial.cu:[[@LINE+12]]:35: remark: registers not used as a cache: 'x[base + (long long)c * hw]' is read again at [[@LINE+12]]:35, but the loop at [[@LINE+6]]:3 does not start at threadIdx.x (each thread runs it whole: serial-loops=true caches such loops) [-Rpass-missed=register-cache]
__global__ void channels(const float *__restrict__ x, float *__restrict__ y,
                         int f, int hw, int positions) {
  const int pos = blockIdx.x * blockDim.x + threadIdx.x;
  const long long base = (long long)(pos / hw) * f * hw + pos % hw;
  float s = 0.0f;
  for (int c = 0; c < f; ++c) {
    float v = x[base + (long long)c * hw];
    s += v * v;
  }
  const float r = rsqrtf(s / f + 1e-5f);
  for (int c = 0; c < f; ++c)
    y[base + (long long)c * hw] = x[base + (long long)c * hw] * r;
}

// CHECK-LABEL: __global__ void channels(
// CHECK: float kopt_cache_x[64];
// CHECK-NEXT: const bool kopt_cached = f <= 64;
// CHECK-NEXT: if (kopt_cached) {
// CHECK-NEXT: #pragma unroll
// CHECK-NEXT: for (int kopt_k = 0; kopt_k < 64; ++kopt_k) {
// CHECK-NEXT: int c = kopt_k;
// CHECK-NEXT: if (c < f) {
// CHECK-NEXT: kopt_cache_x[kopt_k] = x[base + (long long)c * hw];

// A serial first loop and a block-stride second one divide the elements
// differently: a thread does not hold what it reads again.
// REMARK-DAG: serial.cu:[[@LINE+9]]:22: remark: registers not used as a cache: 'x[row * n + j]' is read again at [[@LINE+9]]:22, but the loops at [[@LINE+5]]:3 and [[@LINE+8]]:3 divide their iterations differently [-Rpass-missed=register-cache]
__global__ void mixed(const float *__restrict__ x, float *__restrict__ y,
                      int n) {
  const int row = blockIdx.x;
  float m = 0.0f;
  for (int j = 0; j < n; ++j)
    m = fmaxf(m, x[row * n + j]);
  __syncthreads();
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    y[row * n + j] = x[row * n + j] / m;
}

void run(const float *x, float *y, int f, int hw, int b, int n) {
  channels<<<(b * hw + 127) / 128, 128>>>(x, y, f, hw, b * hw);
  mixed<<<b, 128>>>(x, y, n);
}
