// warp-reduce on trees whose size is written as a constant: a macro or a
// constexpr (`for (int s = BLOCK / 2; ...)`), as real code writes a block
// size it also launches with, or a template parameter. Where every launch
// runs that many threads the tree is the canonical one; where launches are
// not known, the rewrite checks `BLOCK == blockDim.x` at run time; a tree
// that covers part of the block, or a size that is not a power of two, is
// refused with a remark.
// RUN: kopt-opt %s -passes='warp-reduce{check-resources=false}' -Rpass=warp-reduce -Rpass-missed=warp-reduce -o %t.cu 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: %strip_checks %t.cu | FileCheck %s
// RUN: %if cuda-toolkit %{ %nvcc_check %t.cu %}
// RUN: kopt-opt %t.cu -passes='warp-reduce{check-resources=false}' -o %t.again.cu
// RUN: cmp %t.cu %t.again.cu
// REQUIRES: filecheck
// REMARK-DAG: constant-size.cu:[[@LINE+38]]:3: remark: moved the last five rounds of the shared-memory tree over 'buf' (+, float) into warp 0 as __shfl_down_sync, for blocks of 256 threads: each lane adds
// REMARK-DAG: constant-size.cu:[[@LINE+54]]:3: remark: replaced the shared-memory tree over 'buf' (fmaxf, float) with __shfl_xor_sync warp reductions and one slot per warp, for blocks of a power of two of at least 32 threads, 1-D, where 'kThreads' (128) equals blockDim.x (checked at run time; other blocks run the original tree)
// REMARK-DAG: constant-size.cu:[[@LINE+71]]:3: remark: replaced the shared-memory tree over 'buf' (+, int) with __shfl_xor_sync warp reductions and one slot per warp, for blocks of 128 threads (in count_template<128>)
// REMARK-DAG: constant-size.cu:[[@LINE+70]]:3: remark: replaced the shared-memory tree over 'buf' (+, int) with __shfl_xor_sync warp reductions and one slot per warp, for blocks of 256 threads (in count_template<256>)
// REMARK-DAG: constant-size.cu:[[@LINE+83]]:3: remark: tree not rewritten: the tree starts from 'HEAD / 2' (64 threads), but every launch runs blocks of 256 threads: the tree covers another number of threads than the block has
// REMARK-DAG: constant-size.cu:[[@LINE+96]]:3: remark: tree not rewritten: the tree starts from 'ODD / 2' (96 threads), not a power of two of 32 to 1024
// CHECK-LABEL: __global__ void sum_macro(
// CHECK-NOT:     if (
// CHECK:         for (int kopt_s = blockDim.x / 2; kopt_s > 16; kopt_s >>= 1) {
// CHECK:           kopt_wr += __shfl_down_sync(0xffffffffu, kopt_wr, kopt_o);
// CHECK-LABEL: __global__ void max_constexpr(
// CHECK:         if ((blockDim.x & (blockDim.x - 1)) == 0 && blockDim.x >= 32 && blockDim.y == 1 && blockDim.z == 1 && (kThreads) == blockDim.x) {
// CHECK:             kopt_wr = fmaxf(kopt_wr, __shfl_xor_sync(0xffffffffu, kopt_wr, kopt_o));
// CHECK:         } else {
// CHECK-NEXT:      buf[threadIdx.x] = m;
// CHECK-LABEL: __global__ void count_template(
// CHECK-NEXT:    static_assert(((B) == (128)) ||
// CHECK:           int kopt_wr = c;
// CHECK-LABEL: __global__ void head(
// CHECK-NOT:     kopt_wr
// CHECK-LABEL: __global__ void odd(
// CHECK-NOT:     kopt_wr
// CHECK-LABEL: void launch(
#include <cuda_runtime.h>

#define BLOCK 256
#define HEAD 64
#define ODD 96
constexpr int kThreads = 128;

// A macro, and every launch runs BLOCK threads: no check.
__global__ void sum_macro(const float *x, float *out, int n) {
  __shared__ float buf[BLOCK];
  float s = 0.f;
  for (int i = threadIdx.x; i < n; i += BLOCK)
    s += x[(long)blockIdx.x * n + i];
  buf[threadIdx.x] = s;
  __syncthreads();
  for (int k = BLOCK / 2; k > 0; k >>= 1) {
    if (threadIdx.x < k)
      buf[threadIdx.x] += buf[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = buf[0];
}

// A constexpr, and a launch whose block is a variable: checked at run time.
__global__ void max_constexpr(const float *x, float *out, int n) {
  __shared__ float buf[kThreads];
  float m = -1e30f;
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    m = fmaxf(m, x[(long)blockIdx.x * n + i]);
  buf[threadIdx.x] = m;
  __syncthreads();
  for (int s = kThreads / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      buf[threadIdx.x] = fmaxf(buf[threadIdx.x], buf[threadIdx.x + s]);
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = buf[0];
}

// A template argument: each instantiation launches B threads.
template <int B>
__global__ void count_template(const int *x, int *out, int n) {
  __shared__ int buf[B];
  int c = 0;
  for (int i = threadIdx.x; i < n; i += B)
    c += x[(long)blockIdx.x * n + i] > 0;
  buf[threadIdx.x] = c;
  __syncthreads();
  for (int s = B / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      buf[threadIdx.x] += buf[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = buf[0];
}

// The tree covers the first 64 threads of blocks of 256: refused.
__global__ void head(const int *x, int *out) {
  __shared__ int buf[BLOCK];
  buf[threadIdx.x] = x[blockIdx.x * BLOCK + threadIdx.x];
  __syncthreads();
  for (int s = HEAD / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      buf[threadIdx.x] += buf[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = buf[0];
}

// Not a power of two (the launch's block is not known): refused.
__global__ void odd(const int *x, int *out) {
  __shared__ int buf[ODD];
  buf[threadIdx.x] = x[blockIdx.x * ODD + threadIdx.x];
  __syncthreads();
  for (int s = ODD / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      buf[threadIdx.x] += buf[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = buf[0];
}

void launch(const float *x, const int *xi, float *out, int *outi, int rows,
            int n, int threads) {
  sum_macro<<<rows, BLOCK>>>(x, out, n);
  max_constexpr<<<rows, threads>>>(x, out, n);
  count_template<128><<<rows, 128>>>(xi, outi, n);
  count_template<256><<<rows, 256>>>(xi, outi, n);
  head<<<rows, BLOCK>>>(xi, outi);
  odd<<<rows, threads>>>(xi, outi);
}
