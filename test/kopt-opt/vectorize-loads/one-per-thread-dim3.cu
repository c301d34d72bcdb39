// A dim3 grid is divided in x; a single-statement guard; in-place update
// (the same pointer loaded and stored).
// RUN: kopt-opt %s -passes=vectorize-loads -o %t.cu
// RUN: %strip_checks %t.cu | FileCheck %s
// RUN: %if cuda-toolkit %{ %nvcc_check %t.cu %}
// REQUIRES: filecheck
#include <cuda_runtime.h>

__global__ void scale(float *v, float s, int n) {
  const int i = threadIdx.x + blockIdx.x * blockDim.x;
  if (i < n)
    v[i] *= s;
}
// CHECK: float4 kopt_vec_v = reinterpret_cast<const float4 *>(v)[kopt_g];
// CHECK: reinterpret_cast<float *>(&kopt_vec_v)[kopt_e] *= s;
// CHECK: reinterpret_cast<float4 *>(v)[kopt_g] = kopt_vec_v;
// CHECK: for (int i = kopt_n / 4 * 4; i < kopt_n; ++i)
// CHECK-NEXT: v[i] *= s;

void launch(float *v, float s, int n) {
  dim3 grid((n + 127) / 128);
  scale<<<grid, 128>>>(v, s, n);
}
// CHECK: scale<<<dim3(((grid).x + 4 - 1) / 4, (grid).y, (grid).z), 128>>>(v, s, n);
