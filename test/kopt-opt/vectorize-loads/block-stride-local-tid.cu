// A block-stride loop that starts at a local copy of threadIdx.x, as many
// row kernels are written.
// RUN: kopt-opt %s -passes=vectorize-loads -Rpass=vectorize-loads -o %t.cu 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: %strip_checks %t.cu | FileCheck %s
// RUN: %if cuda-toolkit %{ %nvcc_check %t.cu %}
// REQUIRES: filecheck

// REMARK: remark: vectorized the block-stride loop: 'x' as float4 (4 x float), 'y' as float4 (4 x float)
// CHECK: for (int kopt_v = tid; kopt_v < kopt_n / 4; kopt_v += blockDim.x) {
// CHECK: for (int j = kopt_n / 4 * 4 + tid; j < kopt_n; j += blockDim.x)
__global__ void scale_rows(const float *__restrict__ x, float *__restrict__ y,
                           int cols) {
  const int tid = threadIdx.x;
  const int row = blockIdx.x;
  for (int j = tid; j < cols; j += blockDim.x)
    y[row * cols + j] = 2.0f * x[row * cols + j];
}
