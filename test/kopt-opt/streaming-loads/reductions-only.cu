// streaming-loads{reductions-only=true} (what -O runs) streams only kernels
// whose every global store runs in one thread of a block: reductions.
// RUN: kopt-opt %s -passes='streaming-loads{reductions-only=true}' -Rpass=streaming-loads -Rpass-missed=streaming-loads -o %t.cu 2>&1 | FileCheck %s
// RUN: %if cuda-toolkit %{ %nvcc_check %t.cu %}
// Without the parameter, the first two are streamed (warp_rows not: its
// index is not contiguous across threads).
// RUN: kopt-opt %s -passes=streaming-loads -Rpass=streaming-loads -o /dev/null 2>&1 | FileCheck %s --check-prefix=ALL
// REQUIRES: filecheck
#include <cuda_bf16.h>

// A row sum: thread 0 (through a local) writes the block's one result.
// CHECK-DAG: reductions-only.cu:[[@LINE+8]]:29: remark: load of 'x' streamed with __ldcs (evict-first): each element is read once [-Rpass=streaming-loads]
// ALL-DAG: reductions-only.cu:[[@LINE+7]]:29: remark: load of 'x' streamed
__global__ void row_sum(const __nv_bfloat16 *x, float *out, int cols) {
  __shared__ float partial[256];
  const int row = blockIdx.x;
  const int t = threadIdx.x;
  float sum = 0.0f;
  for (int j = t; j < cols; j += blockDim.x)
    sum += __bfloat162float(x[row * cols + j]);
  partial[t] = sum;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (t < s)
      partial[t] += partial[t + s];
    __syncthreads();
  }
  if (0 == t)
    out[row] = partial[0];
}

// A row scaled in place of a copy: it writes as much as it reads.
// CHECK-DAG: reductions-only.cu:[[@LINE+2]]:17: remark: loads not streamed: the store to 'y[row * cols + j]' at [[@LINE+5]]:5 is not under 'if (threadIdx.x == 0)': the kernel writes as it reads (reductions-only=true streams reductions) [-Rpass-missed=streaming-loads]
// ALL-DAG: reductions-only.cu:[[@LINE+5]]:13: remark: load of 'x' streamed
__global__ void scale_rows(const float *x, float *y, int cols, float a) {
  const int row = blockIdx.x;
  for (int j = threadIdx.x; j < cols; j += blockDim.x)
    y[row * cols + j] =
        a * x[row * cols + j];
}

// One thread per warp writes (lane 0): not one per block.
// CHECK-DAG: reductions-only.cu:[[@LINE+1]]:17: remark: loads not streamed: the store to 'out[row]' at [[@LINE+10]]:5 is not under 'if (threadIdx.x == 0)'
__global__ void warp_rows(const float *x, float *out, int cols) {
  const int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  float s = 0.0f;
  for (int j = lane; j < cols; j += 32)
    s += x[row * cols + j];
  for (int o = 16; o > 0; o >>= 1)
    s += __shfl_xor_sync(0xffffffffu, s, o);
  if (lane == 0)
    out[row] = s;
}
