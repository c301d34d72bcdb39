// warp-reduce on trees whose loop stops above a warp and ends in the last
// rounds run by one warp without barriers (NVIDIA's reduction #5 and the
// code that copies it): a helper over a volatile pointer, the rounds inline
// on a volatile alias with __syncwarp between them, an fmaxf tree, and a
// loop under `#pragma unroll`. The rounds go with the tree. Refused with a
// remark: a tail that skips a round, rounds out of order, a tail that
// combines unlike the loop, and launches of fewer threads than the tail
// reads.
// RUN: kopt-opt %s -passes='warp-reduce{check-resources=false}' -Rpass=warp-reduce -Rpass-missed=warp-reduce -o %t.cu 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: %strip_checks %t.cu | FileCheck %s
// RUN: %if cuda-toolkit %{ %nvcc_check %t.cu %}
// RUN: kopt-opt %t.cu -passes='warp-reduce{check-resources=false}' -o %t.again.cu
// RUN: cmp %t.cu %t.again.cu
// REQUIRES: filecheck
#include <cuda_runtime.h>

__device__ void warpReduce(volatile float *sdata, unsigned int tid) {
  sdata[tid] += sdata[tid + 32];
  sdata[tid] += sdata[tid + 16];
  sdata[tid] += sdata[tid + 8];
  sdata[tid] += sdata[tid + 4];
  sdata[tid] += sdata[tid + 2];
  sdata[tid] += sdata[tid + 1];
}

// REMARK-DAG: warp-tail.cu:[[@LINE+13]]:3: remark: moved the last five rounds of the shared-memory tree over 'sdata' (+, float) into warp 0 as __shfl_down_sync, for blocks of 256 threads; the tree's last 6 rounds, at line [[@LINE+18]] after its loop (one warp without barriers: a race since Volta unless __syncwarp orders them), go with it
// CHECK-LABEL: void reduce5(
// CHECK: for (int kopt_s = blockDim.x / 2; kopt_s > 16; kopt_s >>= 1)
// CHECK-NOT: warpReduce(sdata
// CHECK: out[blockIdx.x] = sdata[0];
__global__ void reduce5(const float *in, float *out, int n) {
  __shared__ float sdata[256];
  unsigned int tid = threadIdx.x;
  float acc = 0.0f;
  for (int i = tid; i < n; i += blockDim.x)
    acc += in[blockIdx.x * n + i];
  sdata[tid] = acc;
  __syncthreads();
  for (unsigned int s = blockDim.x / 2; s > 32; s >>= 1) {
    if (tid < s)
      sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid < 32)
    warpReduce(sdata, tid);
  if (tid == 0)
    out[blockIdx.x] = sdata[0];
}

// REMARK-DAG: warp-tail.cu:[[@LINE+11]]:3: remark: replaced the shared-memory tree over 'smax' (fmaxf, float) with __shfl_xor_sync warp reductions and one slot per warp, for blocks of a power of two of at least 64 threads, 1-D (checked at run time; other blocks run the original tree); the tree's last 6 rounds
// CHECK-LABEL: void rowmax_inline(
// CHECK: blockDim.x >= 64
// CHECK: __shfl_xor_sync
__global__ void rowmax_inline(const float *in, float *out, int n) {
  __shared__ float smax[1024];
  float m = -INFINITY;
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    m = fmaxf(m, in[blockIdx.x * n + i]);
  smax[threadIdx.x] = m;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 32; s /= 2) {
    if (threadIdx.x < s)
      smax[threadIdx.x] = fmaxf(smax[threadIdx.x], smax[threadIdx.x + s]);
    __syncthreads();
  }
  if (threadIdx.x < 32) {
    volatile float *v = smax;
    v[threadIdx.x] = fmaxf(v[threadIdx.x], v[threadIdx.x + 32]);
    __syncwarp();
    v[threadIdx.x] = fmaxf(v[threadIdx.x], v[threadIdx.x + 16]);
    __syncwarp();
    v[threadIdx.x] = fmaxf(v[threadIdx.x], v[threadIdx.x + 8]);
    __syncwarp();
    v[threadIdx.x] = fmaxf(v[threadIdx.x], v[threadIdx.x + 4]);
    __syncwarp();
    v[threadIdx.x] = fmaxf(v[threadIdx.x], v[threadIdx.x + 2]);
    __syncwarp();
    v[threadIdx.x] = fmaxf(v[threadIdx.x], v[threadIdx.x + 1]);
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = smax[0];
}

#define BLOCK 128
// REMARK-DAG: warp-tail.cu:[[@LINE+9]]:3: remark: moved the last five rounds of the shared-memory tree over 'part' (+, float) into warp 0 as __shfl_down_sync, for blocks of 128 threads: each lane adds
// CHECK-LABEL: void rowsum_unrolled(
// CHECK-NOT: #pragma unroll
// CHECK: kopt_s > 16
__global__ void rowsum_unrolled(const float *in, float *out, int n) {
  __shared__ float part[BLOCK];
  part[threadIdx.x] = in[blockIdx.x * BLOCK + threadIdx.x];
  __syncthreads();
#pragma unroll
  for (int s = BLOCK / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      part[threadIdx.x] += part[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = part[0];
}

__device__ void skipsRound(volatile float *sdata, int tid) {
  sdata[tid] += sdata[tid + 32];
  sdata[tid] += sdata[tid + 8];
  sdata[tid] += sdata[tid + 4];
  sdata[tid] += sdata[tid + 2];
  sdata[tid] += sdata[tid + 1];
}

// REMARK-DAG: warp-tail.cu:[[@LINE+6]]:3: remark: tree not rewritten: the tree loop stops above 32, and the statement after it is not the last rounds in one warp ('if (t < 32) f(A, t);' with f doing 'A[t] += A[t + 32]' down to 'A[t] += A[t + 1]', or those rounds inline) [-Rpass-missed=warp-reduce]
__global__ void skipped_round(const float *in, float *out) {
  __shared__ float sdata[256];
  unsigned int tid = threadIdx.x;
  sdata[tid] = in[blockIdx.x * 256 + tid];
  __syncthreads();
  for (unsigned int s = blockDim.x / 2; s > 32; s >>= 1) {
    if (tid < s)
      sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid < 32)
    skipsRound(sdata, tid);
  if (tid == 0)
    out[blockIdx.x] = sdata[0];
}

// REMARK-DAG: warp-tail.cu:[[@LINE+6]]:3: remark: tree not rewritten: the tree loop stops above 32, and the statement after
__global__ void max_tail_of_sum(const float *in, float *out) {
  __shared__ float sdata[256];
  unsigned int tid = threadIdx.x;
  sdata[tid] = in[blockIdx.x * 256 + tid];
  __syncthreads();
  for (unsigned int s = blockDim.x / 2; s > 32; s >>= 1) {
    if (tid < s)
      sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid < 32) {
    sdata[tid] = fmaxf(sdata[tid], sdata[tid + 32]);
    sdata[tid] = fmaxf(sdata[tid], sdata[tid + 16]);
    sdata[tid] = fmaxf(sdata[tid], sdata[tid + 8]);
    sdata[tid] = fmaxf(sdata[tid], sdata[tid + 4]);
    sdata[tid] = fmaxf(sdata[tid], sdata[tid + 2]);
    sdata[tid] = fmaxf(sdata[tid], sdata[tid + 1]);
  }
  if (tid == 0)
    out[blockIdx.x] = sdata[0];
}

// REMARK-DAG: warp-tail.cu:[[@LINE+6]]:3: remark: tree not rewritten: a launch runs blocks of 32 threads, and the rounds after the tree's loop read A[t + 32]: slots those blocks never wrote [-Rpass-missed=warp-reduce]
__global__ void small_blocks(const float *in, float *out) {
  __shared__ float sdata[64];
  unsigned int tid = threadIdx.x;
  sdata[tid] = in[blockIdx.x * 32 + tid];
  __syncthreads();
  for (unsigned int s = blockDim.x / 2; s > 32; s >>= 1) {
    if (tid < s)
      sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid < 32)
    warpReduce(sdata, tid);
  if (tid == 0)
    out[blockIdx.x] = sdata[0];
}

void launch(const float *in, float *out, int rows, int n) {
  reduce5<<<rows, 256>>>(in, out, n);
  rowsum_unrolled<<<rows, BLOCK>>>(in, out, n);
  skipped_round<<<rows, 256>>>(in, out);
  max_tail_of_sum<<<rows, 256>>>(in, out);
  small_blocks<<<rows, 32>>>(in, out);
}

void launch_any(const float *in, float *out, int rows, int n, int threads) {
  rowmax_inline<<<rows, threads>>>(in, out, n);
}
