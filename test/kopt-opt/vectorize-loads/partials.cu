// reassociate=true gives each thread other elements, so every thread's
// partial sum changes: a loop is vectorized only where its partials reach
// the kernel's results through their combine (PartialCombine.h).
// RUN: kopt-opt %s -passes='vectorize-loads{reassociate=true}' -Rpass=vectorize-loads -Rpass-missed=vectorize-loads -o %t.cu 2>&1 | FileCheck %s
// RUN: FileCheck %s --check-prefix=OUT < %t.cu
// RUN: %if cuda-toolkit %{ %nvcc_check -I%S %t.cu %}
// After warp-reduce, which copies the partial into its own variable:
// RUN: kopt-opt %kernels/rowsum_bf16/kernel.cu -passes='warp-reduce{reassociate=true},vectorize-loads{reassociate=true}' -Rpass=vectorize-loads -o /dev/null 2>&1 | FileCheck %s --check-prefix=AFTER-WARP
// AFTER-WARP: kernel.cu:{{[0-9]+}}:3: remark: vectorized the block-stride loop: 'x' as uint4 (8 x __nv_bfloat16)
// REQUIRES: filecheck
#include <cuda_runtime.h>
#include "Inputs/reduce.h"

// A running sum per thread (a scan's first stage) is not a partial.
// CHECK-DAG: partials.cu:[[@LINE+6]]:24: remark: block-stride loop not vectorized: the loop carries state other than partial sums, maxima and minima: the loop reads the partial value of 's' (at 's'), which another thread's share would change
__global__ void running(const float *x, float *out, int n) {
  const int row = blockIdx.x;
  float s = 0.0f;
  for (int c = threadIdx.x; c < n; c += blockDim.x) {
    s += x[row * n + c];
    out[row * n + c] = s;
  }
}

// The partials themselves written out (a two-stage reduction's first stage).
// CHECK-DAG: partials.cu:[[@LINE+6]]:{{[0-9]+}}: remark: block-stride loop not vectorized: vectorizing changes which elements each thread folds into 's', and at [[@LINE+6]]:{{[0-9]+}} ('parts[blockIdx.x * blockDim.x + threadIdx.x] = s') a thread's partial is used other than in their combine over the block
__global__ void stored(const float *x, float *parts, int n) {
  const float *row = x + (long long)blockIdx.x * n;
  float s = 0.0f;
  for (int c = threadIdx.x; c < n; c += blockDim.x)
    s += row[c];
  parts[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

// Warp shuffles, then the warps' totals through shared memory.
// CHECK-DAG: partials.cu:[[@LINE+7]]:3: remark: vectorized the block-stride loop: 'x' as float4
// OUT: void shuffled(
// OUT: float4
__global__ void shuffled(const float *x, float *out, int n) {
  extern __shared__ float smem[];
  float *warps = smem;
  float s = 0.0f;
  for (int c = threadIdx.x; c < n; c += blockDim.x)
    s += x[blockIdx.x * n + c];
  for (int o = 16; o > 0; o >>= 1)
    s += __shfl_down_sync(0xffffffffu, s, o);
  if (threadIdx.x % 32 == 0)
    warps[threadIdx.x / 32] = s;
  __syncthreads();
  if (threadIdx.x == 0) {
    float t = 0.0f;
    for (int w = 0; w < blockDim.x / 32; ++w)
      t += warps[w];
    out[blockIdx.x] = t;
  }
}

// A grid-stride loop: a block reduction known by its name, then one atomic
// for the whole grid.
// CHECK-DAG: partials.cu:[[@LINE+3]]:3: remark: vectorized the grid-stride loop: 'x' as float4
__global__ void total(const float *x, float *out, int n) {
  float s = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
    s += x[i] * x[i];
  float b = blockReduceSum(s);
  if (threadIdx.x == 0)
    atomicAdd(out, b);
}

// The same with each block's total written out: which elements a block
// folds changes too.
// CHECK-DAG: partials.cu:[[@LINE+8]]:{{[0-9]+}}: remark: grid-stride loop not vectorized: vectorizing changes which elements each thread folds into 's', and at [[@LINE+8]]:{{[0-9]+}} ('out[blockIdx.x] = b') a block's total is used other than in their combine over the grid (an atomic into one address, directly or after warp shuffles)
__global__ void perBlock(const float *x, float *out, int n) {
  float s = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
    s += x[i];
  float b = blockReduceSum(s);
  if (threadIdx.x == 0)
    out[blockIdx.x] = b;
}

extern "C" void launch(const float *x, float *a, float *b, int rows, int n,
                       cudaStream_t st) {
  running<<<rows, 256, 0, st>>>(x, a, n);
  stored<<<rows, 256, 0, st>>>(x, a, n);
  shuffled<<<rows, 256, 8 * sizeof(float), st>>>(x, b, n);
  total<<<64, 256, 0, st>>>(x, b, n);
  perBlock<<<64, 256, 0, st>>>(x, a, n);
}
