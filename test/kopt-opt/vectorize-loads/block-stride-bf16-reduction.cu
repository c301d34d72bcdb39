// A bf16 row reduction: the block-stride loop carries a partial sum, so it
// is vectorized only with reassociate=true.
// RUN: kopt-opt %s -passes=vectorize-loads -Rpass-missed=vectorize-loads -o %t.default.cu 2>&1 | FileCheck %s --check-prefix=MISSED
// RUN: diff %s %t.default.cu
// RUN: kopt-opt %s -passes='vectorize-loads{reassociate=true}' -Rpass=vectorize-loads -o %t.cu 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: FileCheck %s < %t.cu
// RUN: %if cuda-toolkit %{ %nvcc_check %t.cu %}
// REQUIRES: filecheck

// MISSED: remark: block-stride loop not vectorized: the loop carries 'sum' from one element to the next; vectorizing changes which thread accumulates which elements (reassociate=true allows it) [-Rpass-missed=vectorize-loads]
// REMARK: remark: vectorized the block-stride loop: 'x' as uint4 (8 x __nv_bfloat16)

// CHECK: if (reinterpret_cast<unsigned long long>(x + (row * cols)) % 16 == 0) {
// CHECK-NEXT: for (int kopt_v = threadIdx.x; kopt_v < kopt_n / 8; kopt_v += blockDim.x) {
// CHECK-NEXT: const uint4 kopt_vec_x = reinterpret_cast<const uint4 *>(x + (row * cols))[kopt_v];
// CHECK: sum += __bfloat162float(reinterpret_cast<const __nv_bfloat16 *>(&kopt_vec_x)[kopt_e]);
// CHECK: for (int j = kopt_n / 8 * 8 + threadIdx.x; j < kopt_n; j += blockDim.x)
// CHECK-NEXT: sum += __bfloat162float(x[row * cols + j]);
#include <cuda_bf16.h>

// One block per row: each thread sums a strided slice, then a shared-memory
// tree combines the partial sums.
__global__ void row_sum_bf16(const __nv_bfloat16 *__restrict__ x,
                             float *__restrict__ out, int cols) {
  __shared__ float partial[256];
  const int row = blockIdx.x;
  float sum = 0.0f;
  for (int j = threadIdx.x; j < cols; j += blockDim.x)
    sum += __bfloat162float(x[row * cols + j]);
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

extern "C" void launch_row_sum(const __nv_bfloat16 *x, float *out, int rows,
                               int cols, cudaStream_t stream) {
  row_sum_bf16<<<rows, 256, 0, stream>>>(x, out, cols);
}
