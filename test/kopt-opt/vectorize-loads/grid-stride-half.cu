// A grid-stride fp16 loop with __restrict__ pointers: 8 halves per uint4.
// RUN: kopt-opt %s -passes=vectorize-loads -Rpass=vectorize-loads -o %t.cu 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: FileCheck %s < %t.cu
// RUN: %if cuda-toolkit %{ %nvcc_check %t.cu %}
// RUN: kopt-opt %s -passes='vectorize-loads{width=4}' | FileCheck %s --check-prefix=WIDTH4
// REQUIRES: filecheck

// REMARK: grid-stride-half.cu:[[@LINE+21]]:3: remark: vectorized the grid-stride loop: 'x' as uint4 (8 x __half), 'y' as uint4 (8 x __half) [-Rpass=vectorize-loads]

// CHECK: const auto kopt_n = n;
// CHECK: if (reinterpret_cast<unsigned long long>(x) % 16 == 0 &&
// CHECK-NEXT: reinterpret_cast<unsigned long long>(y) % 16 == 0) {
// CHECK-NEXT: for (int kopt_v = blockIdx.x * blockDim.x + threadIdx.x; kopt_v < kopt_n / 8; kopt_v += blockDim.x * gridDim.x) {
// CHECK-NEXT: const uint4 kopt_vec_x = reinterpret_cast<const uint4 *>(x)[kopt_v];
// CHECK-NEXT: uint4 kopt_vec_y;
// CHECK: float v = __half2float(reinterpret_cast<const __half *>(&kopt_vec_x)[kopt_e]);
// CHECK: reinterpret_cast<__half *>(&kopt_vec_y)[kopt_e] = __float2half(
// CHECK: reinterpret_cast<uint4 *>(y)[kopt_v] = kopt_vec_y;
// CHECK: for (int i = kopt_n / 8 * 8 + blockIdx.x * blockDim.x + threadIdx.x; i < kopt_n; i += blockDim.x * gridDim.x) {
// CHECK: } else {
// CHECK-NEXT: for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;

// WIDTH4: uint2 kopt_vec_y;
// WIDTH4: % 8 == 0
#include <cuda_fp16.h>

__global__ void gelu_tanh(const __half *__restrict__ x, __half *__restrict__ y,
                          int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x) {
    float v = __half2float(x[i]);
    float t = tanhf(0.7978845608f * (v + 0.044715f * v * v * v));
    y[i] = __float2half(0.5f * v * (1.0f + t));
  }
}

extern "C" void launch_gelu(const __half *x, __half *y, int n,
                            cudaStream_t stream) {
  gelu_tanh<<<1024, 256, 0, stream>>>(x, y, n);
}
