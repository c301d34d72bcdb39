// The axpby shape: one element per thread behind `if (i < n)`. The kernel
// gets 4 elements per thread and the launcher's grid is divided by 4.
// RUN: kopt-opt %s -passes=vectorize-loads -Rpass=vectorize-loads -o %t.cu 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: %strip_checks %t.cu | FileCheck %s
// RUN: %if cuda-toolkit %{ %nvcc_check %t.cu %}
// REQUIRES: filecheck
#include <cuda_runtime.h>

// REMARK: one-per-thread.cu:[[@LINE+1]]:17: remark: vectorized one-element-per-thread kernel: 'x' as float4 (4 x float), 'y' as float4 (4 x float), 'out' as float4 (4 x float); grid divided by 4 at the launch at [[@LINE+26]]:3 [-Rpass=vectorize-loads]
__global__ void axpby(const float *x, const float *y, float *out, float a,
                      float b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    out[i] = a * x[i] + b * y[i];
  }
}
// CHECK-LABEL: __global__ void axpby(
// CHECK: const int kopt_g = blockIdx.x * blockDim.x + threadIdx.x;
// CHECK-NEXT: const auto kopt_n = n;
// CHECK: if (kopt_g < kopt_n / 4) {
// CHECK-DAG: const float4 kopt_vec_x = reinterpret_cast<const float4 *>(x)[kopt_g];
// CHECK-DAG: const float4 kopt_vec_y = reinterpret_cast<const float4 *>(y)[kopt_g];
// CHECK-DAG: float4 kopt_vec_out;
// CHECK: reinterpret_cast<float *>(&kopt_vec_out)[kopt_e] = a * reinterpret_cast<const float *>(&kopt_vec_x)[kopt_e] + b * reinterpret_cast<const float *>(&kopt_vec_y)[kopt_e];
// CHECK: reinterpret_cast<float4 *>(out)[kopt_g] = kopt_vec_out;
// CHECK-NEXT: } else if (kopt_g == kopt_n / 4) {
// CHECK-NEXT: for (int i = kopt_n / 4 * 4; i < kopt_n; ++i) {
// CHECK-NEXT: out[i] = a * x[i] + b * y[i];
// CHECK: } else {
// CHECK-NEXT: for (int i = kopt_g; i < kopt_n; i += blockDim.x * gridDim.x) {

void launch(const float *x, const float *y, float *out, float a, float b,
            int n, cudaStream_t s) {
  int grid = (n + 255) / 256;
  axpby<<<grid, 256, 0, s>>>(x, y, out, a, b, n);
}
// CHECK-LABEL: void launch(
// CHECK: axpby<<<((grid) + 4 - 1) / 4, 256, 0, s>>>(x, y, out, a, b, n);
