// warp-reduce on trees that start from a constant written whole (`for (int
// s = 128; ...)`, a literal or a macro), which cover 2 * 128 threads: where
// every launch runs that many the tree is the canonical one, where launches
// are not known `(2 * 128) == blockDim.x` is checked at run time, and a
// tree that covers part of the block, or a start held in a local, is
// refused with a remark. vectorize-loads{reassociate=true} takes a thread's
// partial into such a tree as its combine over the block only where every
// launch runs the tree's number of threads (else the tree may leave some
// threads' partials out).
// RUN: kopt-opt %s -passes='warp-reduce{check-resources=false}' -Rpass=warp-reduce -Rpass-missed=warp-reduce -o %t.cu 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: %strip_checks %t.cu | FileCheck %s
// RUN: %if cuda-toolkit %{ %nvcc_check %t.cu %}
// RUN: kopt-opt %t.cu -passes='warp-reduce{check-resources=false}' -o %t.again.cu
// RUN: cmp %t.cu %t.again.cu
// RUN: kopt-opt %s -passes='vectorize-loads{reassociate=true}' -Rpass=vectorize-loads -Rpass-missed=vectorize-loads -o /dev/null 2>&1 | FileCheck %s --check-prefix=VEC
// REQUIRES: filecheck
// REMARK-DAG: literal-start.cu:[[@LINE+31]]:3: remark: moved the last five rounds of the shared-memory tree over 'buf' (+, float) into warp 0 as __shfl_down_sync, for blocks of 256 threads: each lane adds
// REMARK-DAG: literal-start.cu:[[@LINE+48]]:3: remark: replaced the shared-memory tree over 'buf' (fmaxf, float) with __shfl_xor_sync warp reductions and one slot per warp, for blocks of a power of two of at least 32 threads, 1-D, where '2 * 64' (128) equals blockDim.x (checked at run time; other blocks run the original tree)
// REMARK-DAG: literal-start.cu:[[@LINE+64]]:3: remark: tree not rewritten: the tree starts from '32' (64 threads), but every launch runs blocks of 256 threads: the tree covers another number of threads than the block has
// REMARK-DAG: literal-start.cu:[[@LINE+81]]:3: remark: tree not rewritten: the tree loop is not 'for (int s = blockDim.x / 2; s > 0; s >>= 1)' (or 'B / 2' with B a parameter, a local that is never changed or a constant, or a constant like '128')
// VEC-DAG: literal-start.cu:[[@LINE+23]]:3: remark: vectorized the block-stride loop: 'x' as float4
// VEC-DAG: literal-start.cu:[[@LINE+42]]:22: remark: block-stride loop not vectorized: vectorizing changes which elements each thread folds into 'm', and at {{.*}} a thread's partial is used other than in their combine over the block
// VEC-DAG: literal-start.cu:[[@LINE+58]]:22: remark: block-stride loop not vectorized: vectorizing changes which elements each thread folds into 's', and at {{.*}} a thread's partial is used other than in their combine over the block
// CHECK-LABEL: __global__ void sum_literal(
// CHECK-NOT:     if (
// CHECK:         for (int kopt_s = blockDim.x / 2; kopt_s > 16; kopt_s >>= 1) {
// CHECK:           kopt_wr += __shfl_down_sync(0xffffffffu, kopt_wr, kopt_o);
// CHECK-LABEL: __global__ void max_literal(
// CHECK:         if ((blockDim.x & (blockDim.x - 1)) == 0 && blockDim.x >= 32 && blockDim.y == 1 && blockDim.z == 1 && (2 * 64) == blockDim.x) {
// CHECK:             kopt_wr = fmaxf(kopt_wr, __shfl_xor_sync(0xffffffffu, kopt_wr, kopt_o));
// CHECK:         } else {
// CHECK:           for (int s = 64; s > 0; s /= 2) {
// CHECK-LABEL: __global__ void sum_head(
// CHECK-NOT:     kopt_wr
// CHECK-LABEL: __global__ void sum_local(
// CHECK-NOT:     kopt_wr
// CHECK-LABEL: void launch(
#include <cuda_runtime.h>

// A literal start, and every launch runs 256 threads: no check.
__global__ void sum_literal(const float *x, float *out, int n) {
  __shared__ float buf[256];
  float s = 0.f;
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    s += x[(long)blockIdx.x * n + i];
  buf[threadIdx.x] = s;
  __syncthreads();
  for (unsigned k = 128; k > 0; k >>= 1) {
    if (threadIdx.x < k)
      buf[threadIdx.x] += buf[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = buf[0];
}

// A literal start, and a launch whose block is a variable: checked at run
// time.
__global__ void max_literal(const float *x, float *out, int n) {
  __shared__ float buf[128];
  float m = -1e30f;
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    m = fmaxf(m, x[(long)blockIdx.x * n + i]);
  buf[threadIdx.x] = m;
  __syncthreads();
  for (int s = 64; s > 0; s /= 2) {
    if (threadIdx.x < s)
      buf[threadIdx.x] = fmaxf(buf[threadIdx.x], buf[threadIdx.x + s]);
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = buf[0];
}

// The tree covers the first 64 threads of blocks of 256: refused.
__global__ void sum_head(const float *x, float *out, int n) {
  __shared__ float buf[256];
  float s = 0.f;
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    s += x[(long)blockIdx.x * n + i];
  buf[threadIdx.x] = s;
  __syncthreads();
  for (int k = 32; k > 0; k >>= 1) {
    if (threadIdx.x < k)
      buf[threadIdx.x] += buf[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = buf[0];
}

// A start held in a local: not a constant the tree can be sized by.
__global__ void sum_local(const float *x, float *out, int n) {
  __shared__ float buf[256];
  int half = 128;
  float s = 0.f;
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    s += x[(long)blockIdx.x * n + i];
  buf[threadIdx.x] = s;
  __syncthreads();
  for (int k = half; k > 0; k >>= 1) {
    if (threadIdx.x < k)
      buf[threadIdx.x] += buf[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = buf[0];
}

void launch(const float *x, float *out, int rows, int n, int threads) {
  sum_literal<<<rows, 256>>>(x, out, n);
  max_literal<<<rows, threads>>>(x, out, n);
  sum_head<<<rows, 256>>>(x, out, n);
  sum_local<<<rows, 256>>>(x, out, n);
}
