// warp-reduce on interleaved trees (NVIDIA's reductions #1 and #2, as
// beginners write a block sum): neighbours combine first, which is the
// order of __shfl_down_sync with offsets 1, 2, ..., 16 and then over the
// warp slots, so the rewrite is exact for floating-point sums too (no
// reassociate, no in-order tail). Forms: t % (2 * s), (t & (2 * s - 1)),
// and the strided index i = 2 * s * t; a constant block (BLOCK) needs no
// run-time check where every launch runs it. A step that pairs other
// threads, or an index bound other than the block, is refused.
// RUN: kopt-opt %s -passes=warp-reduce -Rpass=warp-reduce -Rpass-missed=warp-reduce -o %t.cu 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: %strip_checks %t.cu | FileCheck %s
// RUN: %if cuda-toolkit %{ %nvcc_check %t.cu %}
// RUN: kopt-opt %t.cu -passes=warp-reduce -o %t.again.cu
// RUN: cmp %t.cu %t.again.cu
// REQUIRES: filecheck
#include <cuda_runtime.h>

// REMARK-DAG: interleaved.cu:[[@LINE+10]]:3: remark: replaced the interleaved shared-memory tree over 'sdata' (+, float) with __shfl_down_sync warp reductions and one slot per warp, for blocks of 256 threads: offsets 1, 2, 4, ... combine the pairs the tree combines, in its order (exact)
// CHECK-LABEL: void reduce1(
// CHECK: for (int kopt_o = 1; kopt_o < 32; kopt_o <<= 1)
// CHECK-NEXT: kopt_wr += __shfl_down_sync(0xffffffffu, kopt_wr, kopt_o);
// CHECK: for (int kopt_o = 1; kopt_o < blockDim.x / 32; kopt_o <<= 1)
__global__ void reduce1(const float *in, float *out) {
  __shared__ float sdata[256];
  unsigned int tid = threadIdx.x;
  sdata[tid] = in[blockIdx.x * blockDim.x + tid];
  __syncthreads();
  for (unsigned int s = 1; s < blockDim.x; s *= 2) {
    if (tid % (2 * s) == 0)
      sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0)
    out[blockIdx.x] = sdata[0];
}

// REMARK-DAG: interleaved.cu:[[@LINE+7]]:3: remark: replaced the interleaved shared-memory tree over 'smax' (fmaxf, float) with __shfl_down_sync warp reductions and one slot per warp, for blocks of a power of two of at least 32 threads, 1-D (checked at run time; other blocks run the original tree)
// CHECK-LABEL: void rowmax_mask(
// CHECK: if ((blockDim.x & (blockDim.x - 1)) == 0 && blockDim.x >= 32
__global__ void rowmax_mask(const float *in, float *out, int n) {
  extern __shared__ float smax[];
  smax[threadIdx.x] = in[blockIdx.x * n + threadIdx.x];
  __syncthreads();
  for (int s = 1; s < blockDim.x; s <<= 1) {
    if ((threadIdx.x & (2 * s - 1)) == 0)
      smax[threadIdx.x] = fmaxf(smax[threadIdx.x], smax[threadIdx.x + s]);
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = smax[0];
}

#define BLOCK 128
// REMARK-DAG: interleaved.cu:[[@LINE+8]]:3: remark: replaced the interleaved shared-memory tree over 'part' (+, double) with __shfl_down_sync warp reductions and one slot per warp, for blocks of 128 threads:
// CHECK-LABEL: void reduce2(
// CHECK-NOT: if ((BLOCK) == blockDim.x)
// CHECK: __shfl_down_sync
__global__ void reduce2(const double *in, double *out) {
  __shared__ double part[BLOCK];
  part[threadIdx.x] = in[blockIdx.x * BLOCK + threadIdx.x];
  __syncthreads();
  for (int s = 1; s < BLOCK; s = s * 2) {
    int index = 2 * s * threadIdx.x;
    if (index < BLOCK)
      part[index] = part[index] + part[index + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = part[0];
}

// REMARK-DAG: interleaved.cu:[[@LINE+5]]:3: remark: tree not rewritten: the interleaved tree's step is not 'if (t % (2 * s) == 0) A[t] = op(A[t], A[t + s]); __syncthreads();' or 'int i = 2 * s * t; if (i < blockDim.x) A[i] = op(A[i], A[i + s]); __syncthreads();' with t threadIdx.x [-Rpass-missed=warp-reduce]
__global__ void other_pairs(const float *in, float *out) {
  __shared__ float sdata[256];
  sdata[threadIdx.x] = in[blockIdx.x * 256 + threadIdx.x];
  __syncthreads();
  for (unsigned int s = 1; s < blockDim.x; s *= 2) {
    if (threadIdx.x % s == 0)
      sdata[threadIdx.x] += sdata[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = sdata[0];
}

// REMARK-DAG: interleaved.cu:[[@LINE+5]]:3: remark: tree not rewritten: the interleaved tree's step is not
__global__ void other_bound(const float *in, float *out, int n) {
  __shared__ float sdata[256];
  sdata[threadIdx.x] = in[blockIdx.x * 256 + threadIdx.x];
  __syncthreads();
  for (unsigned int s = 1; s < blockDim.x; s *= 2) {
    int i = 2 * s * threadIdx.x;
    if (i < n)
      sdata[i] += sdata[i + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = sdata[0];
}

void launch(const float *in, float *out, const double *din, double *dout,
            int rows, int n, int threads) {
  reduce1<<<rows, 256>>>(in, out);
  rowmax_mask<<<rows, threads, threads * sizeof(float)>>>(in, out, n);
  reduce2<<<rows, BLOCK>>>(din, dout);
  other_pairs<<<rows, 256>>>(in, out);
  other_bound<<<rows, 256>>>(in, out, n);
}
