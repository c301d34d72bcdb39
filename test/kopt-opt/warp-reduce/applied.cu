// warp-reduce replaces shared-memory trees with warp shuffles: max/min and
// integer sums always, floating-point sums with reassociate=true (by
// default they keep their order: in-order.cu).
// RUN: kopt-opt %s --nvcc=%S/Inputs/fake-nvcc.py -passes=warp-reduce -Rpass=warp-reduce -Rpass-missed=warp-reduce -o %t.default.cu 2>&1 | FileCheck %s --check-prefix=DEFAULT
// RUN: %if cuda-toolkit %{ %nvcc_check %t.default.cu %}
// RUN: kopt-opt %s -passes='warp-reduce{reassociate=true}' -Rpass=warp-reduce -Rpass-missed=warp-reduce -o %t.cu 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: %strip_checks %t.cu | FileCheck %s
// RUN: %if cuda-toolkit %{ %nvcc_check %t.cu %}
// A second run finds no tree left.
// RUN: kopt-opt %t.cu -passes='warp-reduce{reassociate=true}' -Rpass=warp-reduce -Rpass-missed=warp-reduce -o %t.again.cu 2>&1 | count 0
// RUN: diff %t.cu %t.again.cu
// REQUIRES: filecheck
#include <cuda_runtime.h>

// The row sum: a float sum, so only with reassociate=true.
// DEFAULT-DAG: applied.cu:[[@LINE+32]]:3: remark: moved the last five rounds of the shared-memory tree over 'partial' (+, float) into warp 0 as __shfl_down_sync, for blocks of 256 threads: each lane adds the pair the tree adds, in the same order (exact; reassociate=true rewrites the whole tree); ptxas: 'row_sum' 32 -> 32 registers [-Rpass=warp-reduce]
// REMARK-DAG: applied.cu:[[@LINE+31]]:3: remark: replaced the shared-memory tree over 'partial' (+, float) with __shfl_xor_sync warp reductions and one slot per warp, for blocks of 256 threads; the floating-point sum is reassociated [-Rpass=warp-reduce]
// CHECK-LABEL: __global__ void row_sum(
// CHECK:        sum += x[row * cols + j];
// CHECK-NEXT:   {
// CHECK-NEXT:     // kopt warp-reduce (+): shuffles in each warp, then over the warp slots
// CHECK-NEXT:     float kopt_wr = sum;
// CHECK-NEXT:     for (int kopt_o = 16; kopt_o > 0; kopt_o >>= 1)
// CHECK-NEXT:       kopt_wr += __shfl_xor_sync(0xffffffffu, kopt_wr, kopt_o);
// CHECK-NEXT:     if (threadIdx.x % 32 == 0)
// CHECK-NEXT:       partial[threadIdx.x / 32] = kopt_wr;
// CHECK-NEXT:     __syncthreads();
// CHECK-NEXT:     if (threadIdx.x < 32) {
// CHECK-NEXT:       if (threadIdx.x < blockDim.x / 32)
// CHECK-NEXT:         kopt_wr = partial[threadIdx.x];
// CHECK-NEXT:       for (int kopt_o = blockDim.x / 64; kopt_o > 0; kopt_o >>= 1)
// CHECK-NEXT:         kopt_wr += __shfl_xor_sync(0xffffffffu, kopt_wr, kopt_o);
// CHECK-NEXT:       if (threadIdx.x == 0)
// CHECK-NEXT:         partial[0] = kopt_wr;
// CHECK-NEXT:     }
// CHECK-NEXT:     __syncthreads();
// CHECK-NEXT:   }
// CHECK-NEXT:   if (threadIdx.x == 0)
// CHECK-NEXT:     out[row] = partial[0];
__global__ void row_sum(const float *x, float *out, int cols) {
  __shared__ float partial[256];
  const int row = blockIdx.x;
  float sum = 0.0f;
  for (int j = threadIdx.x; j < cols; j += blockDim.x)
    sum += x[row * cols + j];
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[row] = partial[0];
}

// A maximum through a local `tid`, in the `A[t] = fmaxf(A[t], A[t + s])`
// form: exact, so no parameter is needed. Launched with a dim3 block.
// DEFAULT-DAG: applied.cu:[[@LINE+15]]:3: remark: replaced the shared-memory tree over 'best' (fmaxf, float) with __shfl_xor_sync warp reductions and one slot per warp, for blocks of 128 threads [-Rpass=warp-reduce]
// CHECK-LABEL: __global__ void row_max(
// CHECK:        float kopt_wr = m;
// CHECK-NEXT:   for (int kopt_o = 16; kopt_o > 0; kopt_o >>= 1)
// CHECK-NEXT:     kopt_wr = fmaxf(kopt_wr, __shfl_xor_sync(0xffffffffu, kopt_wr, kopt_o));
// CHECK:          best[0] = kopt_wr;
// CHECK:        out[blockIdx.x] = best[0];
__global__ void row_max(const float *x, float *out, int cols) {
  __shared__ float best[128];
  const int tid = threadIdx.x;
  float m = -INFINITY;
  for (int j = tid; j < cols; j += blockDim.x)
    m = fmaxf(m, x[blockIdx.x * cols + j]);
  best[tid] = m;
  __syncthreads();
  for (int s = blockDim.x >> 1; s > 0; s /= 2) {
    if (tid < s)
      best[tid] = fmaxf(best[tid + s], best[tid]);
    __syncthreads();
  }
  out[blockIdx.x] = best[0];
}

// An integer sum written `A[t] = A[t] + A[t + s]` and an integer minimum:
// exact. Two launches with different power-of-two blocks.
// DEFAULT-DAG: applied.cu:[[@LINE+13]]:3: remark: replaced the shared-memory tree over 'cnt' (+, int) with __shfl_xor_sync warp reductions and one slot per warp, for blocks of 64, 1024 threads [-Rpass=warp-reduce]
// DEFAULT-DAG: applied.cu:[[@LINE+19]]:3: remark: replaced the shared-memory tree over 'lo' (min, unsigned int) with __shfl_xor_sync warp reductions and one slot per warp, for blocks of 64, 1024 threads [-Rpass=warp-reduce]
// CHECK-LABEL: __global__ void count_and_min(
// CHECK:      int kopt_wr = (x[threadIdx.x] > 0) + (x[threadIdx.x] > 1);
// CHECK:      kopt_wr += __shfl_xor_sync(0xffffffffu, kopt_wr, kopt_o);
// CHECK:      unsigned int kopt_wr = u[threadIdx.x];
// CHECK:      kopt_wr = min(kopt_wr, __shfl_xor_sync(0xffffffffu, kopt_wr, kopt_o));
__global__ void count_and_min(const float *x, const unsigned *u, int *n,
                              unsigned *m) {
  __shared__ int cnt[1024];
  __shared__ unsigned lo[1024];
  cnt[threadIdx.x] = (x[threadIdx.x] > 0) + (x[threadIdx.x] > 1);
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      cnt[threadIdx.x] = cnt[threadIdx.x] + cnt[threadIdx.x + s];
    __syncthreads();
  }
  lo[threadIdx.x] = u[threadIdx.x];
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      lo[threadIdx.x] = min(lo[threadIdx.x], lo[threadIdx.x + s]);
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    *n = cnt[0];
    *m = lo[0];
  }
}

// Softmax's two trees on one array, a maximum and then a sum, with the
// barrier between the read of the first total and the second tree's store.
// DEFAULT-DAG: applied.cu:[[@LINE+18]]:3: remark: replaced the shared-memory tree over 'partial' (fmaxf, float) with __shfl_xor_sync warp reductions and one slot per warp, for blocks of 256 threads [-Rpass=warp-reduce]
// DEFAULT-DAG: applied.cu:[[@LINE+29]]:3: remark: moved the last five rounds of the shared-memory tree over 'partial' (+, float) into warp 0 {{.*}}; ptxas: 'softmax' 32 -> 32 registers [-Rpass=warp-reduce]
// REMARK-DAG: applied.cu:[[@LINE+28]]:3: remark: replaced the shared-memory tree over 'partial' (+, float) {{.*}} [-Rpass=warp-reduce]
// CHECK-LABEL: __global__ void softmax(
// CHECK:        fmaxf(kopt_wr,
// CHECK:        const float row_max = partial[0];
// CHECK-NEXT:   __syncthreads();
// CHECK:        float kopt_wr = sum;
// CHECK:        const float row_sum = partial[0];
__global__ void softmax(const float *x, float *y, int cols) {
  __shared__ float partial[256];
  const int row = blockIdx.x;
  const int tid = threadIdx.x;
  float m = -INFINITY;
  for (int j = tid; j < cols; j += blockDim.x)
    m = fmaxf(m, x[row * cols + j]);
  partial[tid] = m;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s)
      partial[tid] = fmaxf(partial[tid], partial[tid + s]);
    __syncthreads();
  }
  const float row_max = partial[0];
  __syncthreads();
  float sum = 0.0f;
  for (int j = tid; j < cols; j += blockDim.x)
    sum += expf(x[row * cols + j] - row_max);
  partial[tid] = sum;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s)
      partial[tid] += partial[tid + s];
    __syncthreads();
  }
  const float row_sum = partial[0];
  for (int j = tid; j < cols; j += blockDim.x)
    y[row * cols + j] = expf(x[row * cols + j] - row_max) / row_sum;
}

// The tree in a __device__ helper that takes the array as a pointer: every
// caller is a kernel of this file, calls it in uniform control flow and
// passes a __shared__ array used only this way.
// REMARK-DAG: applied.cu:[[@LINE+10]]:3: remark: replaced the shared-memory tree over 'buf' (+, double) with __shfl_xor_sync warp reductions and one slot per warp, for blocks of 512 threads; the floating-point sum is reassociated [-Rpass=warp-reduce]
// DEFAULT-DAG: applied.cu:[[@LINE+9]]:3: remark: moved the last five rounds of the shared-memory tree over 'buf' (+, double) into warp 0 {{.*}}, for blocks of 512 threads: {{.*}}; ptxas: 'two_sums' 32 -> 32 registers [-Rpass=warp-reduce]
// CHECK-LABEL: __device__ double block_sum(
// CHECK:        double kopt_wr = v;
// CHECK:        double total = buf[0];
// CHECK-LABEL: __global__ void two_sums(
// CHECK:        a[blockIdx.x] = block_sum(x[threadIdx.x], partial) + partial[0];
__device__ double block_sum(double v, double *buf) {
  buf[threadIdx.x] = v;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      buf[threadIdx.x] += buf[threadIdx.x + s];
    __syncthreads();
  }
  double total = buf[0];
  __syncthreads();
  return total;
}

__global__ void two_sums(const double *x, double *a) {
  __shared__ double partial[512];
  a[blockIdx.x] = block_sum(x[threadIdx.x], partial) + partial[0];
  double second = block_sum(2 * x[threadIdx.x], partial);
  if (threadIdx.x == 0)
    a[blockIdx.x] += second;
}

void launch(const float *x, float *out, const unsigned *u, int *n,
            unsigned *m, const double *dx, double *da, int rows, int cols) {
  row_sum<<<rows, 256>>>(x, out, cols);
  dim3 block(128);
  row_max<<<rows, block>>>(x, out, cols);
  count_and_min<<<1, 1024>>>(x, u, n, m);
  count_and_min<<<1, 64>>>(x, u, n, m);
  softmax<<<rows, 256>>>(x, out, cols);
  two_sums<<<rows, 512>>>(dx, da);
}
