// warp-reduce on trees whose block size is known only at run time (llm.c's
// dev/cuda kernels: `for (int stride = block_size / 2; stride >= 1; stride
// /= 2) { __syncthreads(); if (tid < stride) ...; }` in a kernel launched
// with a variable block size). The rewrite runs under a check of the block
// (a 1-D power of two of at least 32 threads) and of the start variable
// (equal to blockDim.x); the else branch keeps the original tree.
// RUN: kopt-opt %s -passes='warp-reduce{check-resources=false}' -Rpass=warp-reduce -Rpass-missed=warp-reduce -o %t.cu 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: %strip_checks %t.cu | FileCheck %s
// RUN: %if cuda-toolkit %{ %nvcc_check %t.cu %}
// RUN: kopt-opt %t.cu -passes='warp-reduce{check-resources=false}' -o %t.again.cu
// RUN: cmp %t.cu %t.again.cu
// With reassociate=true the float sum becomes shuffles too, under the check.
// RUN: kopt-opt %s -passes='warp-reduce{reassociate=true}' -o - | %strip_checks | FileCheck %s --check-prefix=REASSOC
// REQUIRES: filecheck
// REMARK-DAG: run-time.cu:[[@LINE+46]]:3: remark: moved the last five rounds of the shared-memory tree over 'shared' (+, float) into warp 0 as __shfl_down_sync, for blocks of a power of two of at least 32 threads, 1-D, where 'block_size' equals blockDim.x (checked at run time; other blocks run the original tree): each lane adds
// REMARK-DAG: run-time.cu:[[@LINE+64]]:3: remark: replaced the shared-memory tree over 'partial' (fmaxf, float) with __shfl_xor_sync warp reductions and one slot per warp, for blocks of a power of two of at least 32 threads, 1-D (checked at run time; other blocks run the original tree)
// REMARK-DAG: run-time.cu:[[@LINE+77]]:3: remark: replaced the shared-memory tree over 'partial' (+, int) with __shfl_xor_sync warp reductions and one slot per warp, for blocks of 256 threads, where 'block_size' equals blockDim.x (checked at run time; other blocks run the original tree)
// REMARK-DAG: run-time.cu:[[@LINE+90]]:3: remark: tree not rewritten: the launch at [[@LINE+120]]:3 uses 48 threads: the rewrite needs a power of two
// REMARK-DAG: run-time.cu:[[@LINE+104]]:3: remark: tree not rewritten: the tree starts from 'b / 2', which is not a kernel parameter or a local the same in every thread of a block
// CHECK-LABEL: __global__ void sum_rows(
// CHECK:         if ((blockDim.x & (blockDim.x - 1)) == 0 && blockDim.x >= 32 && blockDim.y == 1 && blockDim.z == 1 && static_cast<long long>(block_size) == static_cast<long long>(blockDim.x)) {
// CHECK:           for (int kopt_s = blockDim.x / 2; kopt_s > 16; kopt_s >>= 1) {
// CHECK:             kopt_wr += __shfl_down_sync(0xffffffffu, kopt_wr, kopt_o);
// CHECK:           __syncthreads();
// CHECK-NEXT:    } else {
// CHECK-NEXT:      shared[tid] = sum;
// CHECK-NEXT:      __syncthreads();
// CHECK-NEXT:      for (int stride = block_size / 2; stride >= 1; stride /= 2) {
// CHECK-NEXT:        __syncthreads();
// CHECK-NEXT:        if (tid < stride) {
// CHECK-NEXT:          shared[tid] += shared[tid + stride];
// CHECK-NEXT:        }
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    if (tid == 0)
// CHECK-LABEL: __global__ void max_rows(
// CHECK:         if ((blockDim.x & (blockDim.x - 1)) == 0 && blockDim.x >= 32 && blockDim.y == 1 && blockDim.z == 1) {
// CHECK:             kopt_wr = fmaxf(kopt_wr, __shfl_xor_sync(0xffffffffu, kopt_wr, kopt_o));
// CHECK:         } else {
// CHECK-NEXT:      partial[threadIdx.x] = m;
// CHECK-LABEL: __global__ void sum_fixed(
// CHECK:         if (static_cast<long long>(block_size) == static_cast<long long>(blockDim.x)) {
// CHECK-LABEL: __global__ void misfit(
// CHECK-NOT:     kopt_wr
// CHECK-LABEL: void launch(
// REASSOC-LABEL: __global__ void sum_rows(
// REASSOC:         if ((blockDim.x & (blockDim.x - 1)) == 0 && blockDim.x >= 32 && blockDim.y == 1 && blockDim.z == 1 && static_cast<long long>(block_size) == static_cast<long long>(blockDim.x)) {
// REASSOC-NEXT:      // kopt warp-reduce (+): shuffles in each warp, then over the warp slots
#include <cuda_runtime.h>

// llm.c's shape: block_size a parameter, the barrier first in each round.
__global__ void sum_rows(float *out, const float *inp, int C, int block_size) {
  extern __shared__ float shared[];
  int tid = threadIdx.x;
  const float *x = inp + blockIdx.x * C;
  float sum = 0.0f;
  for (int i = tid; i < C; i += block_size)
    sum += x[i];
  shared[tid] = sum;
  __syncthreads();
  for (int stride = block_size / 2; stride >= 1; stride /= 2) {
    __syncthreads();
    if (tid < stride) {
      shared[tid] += shared[tid + stride];
    }
  }
  if (tid == 0)
    out[blockIdx.x] = shared[0];
}

// A local copy of blockDim.x: only the block is checked.
__global__ void max_rows(float *out, const float *inp, int C) {
  __shared__ float partial[1024];
  int bs = blockDim.x;
  float m = -1e30f;
  for (int i = threadIdx.x; i < C; i += bs)
    m = fmaxf(m, inp[blockIdx.x * C + i]);
  partial[threadIdx.x] = m;
  __syncthreads();
  for (int s = bs / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      partial[threadIdx.x] = fmaxf(partial[threadIdx.x], partial[threadIdx.x + s]);
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = partial[0];
}

// Launched with a constant 256: only block_size == blockDim.x is checked.
__global__ void sum_fixed(int *out, const int *inp, int block_size) {
  __shared__ int partial[256];
  partial[threadIdx.x] = inp[blockIdx.x * 256 + threadIdx.x];
  __syncthreads();
  for (int s = block_size / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = partial[0];
}

// One launch with 48 threads: never a fit, refused.
__global__ void misfit(int *out, const int *inp) {
  __shared__ int partial[1024];
  partial[threadIdx.x] = inp[blockIdx.x * blockDim.x + threadIdx.x];
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = partial[0];
}

// A start that differs between threads: refused.
__global__ void per_thread(int *out, const int *inp) {
  __shared__ int partial[1024];
  int b = threadIdx.x | 32;
  partial[threadIdx.x] = inp[blockIdx.x * blockDim.x + threadIdx.x];
  __syncthreads();
  for (int s = b / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = partial[0];
}

void launch(float *fo, const float *fi, int *io, const int *ii, int rows,
            int C, int threads) {
  sum_rows<<<rows, threads, threads * sizeof(float)>>>(fo, fi, C, threads);
  max_rows<<<rows, threads>>>(fo, fi, C);
  sum_fixed<<<rows, 256>>>(io, ii, 256);
  misfit<<<rows, threads>>>(io, ii);
  misfit<<<rows, 48>>>(io, ii);
  per_thread<<<rows, threads>>>(io, ii);
}

// No launch in the file, or a launch through a pointer: the block size is
// unknown here, so the rewrite checks it at run time too.
// REMARK-DAG: run-time.cu:[[@LINE+5]]:3: remark: replaced the shared-memory tree over 'a' (+, int) with __shfl_xor_sync warp reductions and one slot per warp, for blocks of a power of two of at least 32 threads, 1-D (checked at run time; other blocks run the original tree)
__global__ void __launch_bounds__(256) bounds_only(int *p) {
  __shared__ int a[256];
  a[threadIdx.x] = p[threadIdx.x];
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      a[threadIdx.x] += a[threadIdx.x + s];
    __syncthreads();
  }
  p[0] = a[0];
}

// REMARK-DAG: run-time.cu:[[@LINE+5]]:3: remark: replaced the shared-memory tree over 'a' (+, int) with __shfl_xor_sync warp reductions and one slot per warp, for blocks of a power of two of at least 32 threads, 1-D (checked at run time; other blocks run the original tree)
__global__ void by_pointer(int *p) {
  __shared__ int a[256];
  a[threadIdx.x] = p[threadIdx.x];
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      a[threadIdx.x] += a[threadIdx.x + s];
    __syncthreads();
  }
  p[0] = a[0];
}

void (*by_pointer_ref)(int *) = by_pointer;
