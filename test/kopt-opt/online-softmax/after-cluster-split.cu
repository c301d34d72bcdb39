// online-softmax after cluster-split: the cluster's blocks each take a part
// of every loop, bounded by kopt_cluster_part (a function of its arguments
// alone, so the same value in both loops); each thread's rescaled sum is
// then its partial, combined across the cluster as before.
// RUN: kopt-opt %s -passes='cluster-split{reassociate=true},online-softmax{reassociate=true}' -Rpass=online-softmax -o %t.cu 2>&1 | FileCheck %s
// RUN: FileCheck --check-prefix=OUT %s < %t.cu
// RUN: %if cuda-toolkit %{ %nvcc_check %t.cu %}
// REQUIRES: filecheck
#include <cuda_runtime.h>

// Both kernels fold: the original (kept for launches cluster-split does
// not take) and its cluster copy.
// CHECK: remark: the sum of exponentials of 'in[j]' less 'row_max' comes from a running maximum and sum the loop at {{[0-9]+}}:3 keeps (online softmax)
// CHECK: remark: the sum of exponentials of 'in[j]' less 'row_max' comes from a running maximum and sum the loop at {{[0-9]+}}:3 keeps (online softmax)
__global__ void softmax_rows(const float *__restrict__ x,
                             float *__restrict__ y, int cols) {
  __shared__ float red[256];
  const float *in = x + (long long)blockIdx.x * cols;
  float *out = y + (long long)blockIdx.x * cols;
  float m = -INFINITY;
  for (int j = threadIdx.x; j < cols; j += blockDim.x)
    m = fmaxf(m, in[j]);
  red[threadIdx.x] = m;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + s]);
    __syncthreads();
  }
  const float row_max = red[0];
  __syncthreads();
  float sum = 0.0f;
  for (int j = threadIdx.x; j < cols; j += blockDim.x)
    sum += expf(in[j] - row_max);
  red[threadIdx.x] = sum;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      red[threadIdx.x] += red[threadIdx.x + s];
    __syncthreads();
  }
  const float row_sum = red[0];
  for (int j = threadIdx.x; j < cols; j += blockDim.x)
    out[j] = expf(in[j] - row_max) / row_sum;
}

extern "C" void launch(const float *x, float *y, int rows, int cols,
                       cudaStream_t stream) {
  softmax_rows<<<rows, 256, 0, stream>>>(x, y, cols);
}
// OUT-LABEL: softmax_rows_kopt_cluster(
// OUT:      float kopt_sm_m = -3.40282347e+38f;
// OUT-NEXT: float kopt_sm_s = 0.0f;
// OUT-NEXT: for (int j = static_cast<int>(kopt_cluster_part(cols, kopt_rank, 8u, blockDim.x) +
// OUT:        kopt_sm_s = kopt_sm_s * expf(kopt_sm_m - kopt_sm_n) + expf(kopt_sm_e - kopt_sm_n);
// OUT:      m = kopt_cluster_combine<8u>(
// OUT:      if (kopt_sm_s != 0.0f) {
// OUT-NEXT:   sum += kopt_sm_s * expf(kopt_sm_m - row_max);
// OUT-NEXT: }
// OUT:      sum = kopt_cluster_combine<8u>(
