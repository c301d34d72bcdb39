// reassociate=true gives each thread other elements; a thread's partial
// stored into a shared-memory tree reaches the result through the tree only
// where the tree covers the whole block. A tree from `B / 2` (llm.c's
// `block_size / 2`) does where every launch passes its block size as B; a
// tree from a constant where every launch runs that many threads. Elsewhere
// some threads' partials may be left out, and the loop is not vectorized.
// RUN: kopt-opt %s -passes='vectorize-loads{reassociate=true}' -Rpass=vectorize-loads -Rpass-missed=vectorize-loads -o %t.cu 2>&1 | FileCheck %s
// RUN: %if cuda-toolkit %{ %nvcc_check %t.cu %}
// REQUIRES: filecheck
#include <cuda_runtime.h>

#define BLOCK 256

// Every launch passes its block as block_size: vectorized.
// CHECK-DAG: partial-trees.cu:[[@LINE+5]]:3: remark: vectorized the block-stride loop: 'x' as float4
__global__ void sum_param(const float *x, float *out, int n,
                          int block_size) {
  extern __shared__ float buf[];
  float s = 0.0f;
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    s += x[(long)blockIdx.x * n + i];
  buf[threadIdx.x] = s;
  __syncthreads();
  for (int k = block_size / 2; k > 0; k >>= 1) {
    if (threadIdx.x < k)
      buf[threadIdx.x] += buf[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = buf[0];
}

// A launch passes half its block: the tree covers half the threads.
// CHECK-DAG: partial-trees.cu:[[@LINE+6]]:22: remark: block-stride loop not vectorized: vectorizing changes which elements each thread folds into 's', and at {{.*}} a thread's partial is used other than in their combine over the block
__global__ void sum_half(const float *x, float *out, int n, int width) {
  extern __shared__ float buf[];
  float s = 0.0f;
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    s += x[(long)blockIdx.x * n + i];
  buf[threadIdx.x] = s;
  __syncthreads();
  for (int k = width / 2; k > 0; k >>= 1) {
    if (threadIdx.x < k)
      buf[threadIdx.x] += buf[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = buf[0];
}

// A macro tree over BLOCK threads in launches of 2 * BLOCK.
// CHECK-DAG: partial-trees.cu:[[@LINE+6]]:22: remark: block-stride loop not vectorized: vectorizing changes which elements each thread folds into 's', and at {{.*}} a thread's partial is used other than in their combine over the block
__global__ void sum_macro_part(const float *x, float *out, int n) {
  __shared__ float buf[2 * BLOCK];
  float s = 0.0f;
  for (int i = threadIdx.x; i < n; i += blockDim.x)
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

// The same tree in launches of BLOCK: vectorized.
// CHECK-DAG: partial-trees.cu:[[@LINE+4]]:3: remark: vectorized the block-stride loop: 'x' as float4
__global__ void sum_macro(const float *x, float *out, int n) {
  __shared__ float buf[BLOCK];
  float s = 0.0f;
  for (int i = threadIdx.x; i < n; i += blockDim.x)
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

void launch(const float *x, float *out, int rows, int n, int bs) {
  sum_param<<<rows, bs, bs * sizeof(float)>>>(x, out, n, bs);
  sum_half<<<rows, bs, bs * sizeof(float)>>>(x, out, n, bs / 2);
  sum_macro_part<<<rows, 2 * BLOCK>>>(x, out, n);
  sum_macro<<<rows, BLOCK>>>(x, out, n);
}
