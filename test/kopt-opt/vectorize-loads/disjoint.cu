// Loops through plain pointers: the rewritten loop runs where the stored
// range overlaps no loaded one, checked at run time beside the alignment
// (LLVM's loop versioning), each range `bound` elements from the pointer's
// base in its own element size; the original loop runs otherwise. The GPU
// side (overlapping ranges get the original's results):
// test/kopt-opt/gpu/disjoint-ranges.test.
// RUN: kopt-opt %s -passes=vectorize-loads -Rpass=vectorize-loads -o %t.cu 2>&1 | FileCheck %s
// RUN: FileCheck %s --check-prefix=OUT < %t.cu
// RUN: %if cuda-toolkit %{ %nvcc_check %t.cu %}
// REQUIRES: filecheck
#include <cuda_bf16.h>

// CHECK-DAG: disjoint.cu:[[@LINE+2]]:3: remark: vectorized the grid-stride loop: 'x' as float4 (4 x float), 'y' as float4 (4 x float); where 'y' overlaps 'x' other than in place the original loop runs (checked at run time) [-Rpass=vectorize-loads]
__global__ void scale(const float *x, float *y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    y[i] = 2.0f * x[i];
}
// OUT-LABEL: __global__ void scale(
// OUT: // the original loop runs when a pointer is not aligned or a stored
// OUT-NEXT: // range overlaps a loaded one.
// OUT-NEXT: const auto kopt_n = n;
// OUT-NEXT: if (reinterpret_cast<unsigned long long>(x) % 16 == 0 &&
// OUT-NEXT: reinterpret_cast<unsigned long long>(y) % 16 == 0 &&
// OUT-NEXT: (reinterpret_cast<unsigned long long>(y) + kopt_n * 4ull <= reinterpret_cast<unsigned long long>(x) ||
// OUT-NEXT: reinterpret_cast<unsigned long long>(x) + kopt_n * 4ull <= reinterpret_cast<unsigned long long>(y) ||
// OUT-NEXT: reinterpret_cast<unsigned long long>(y) == reinterpret_cast<unsigned long long>(x))) {
// OUT: } else {
// OUT-NEXT: for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)

// A row of a block-stride loop, bf16 stored and float loaded: each range
// starts at the row and has its own element size; a pair of __restrict__
// pointers needs no check, nor does a pointer with itself (in place).
// CHECK-DAG: disjoint.cu:[[@LINE+4]]:3: remark: vectorized the block-stride loop: 'x' as float4 (4 x float), 'scale' as float4 (4 x float), 'y' as uint2 (4 x __nv_bfloat16), 'acc' as float4 (4 x float); where 'y' overlaps 'x' or 'y' overlaps 'acc' or 'acc' overlaps 'x' the original loop runs (checked at run time) [-Rpass=vectorize-loads]
__global__ void row_convert(const float *x, const float *__restrict__ scale,
                            __nv_bfloat16 *y, float *acc, int n) {
  const int row = blockIdx.x;
  for (int j = threadIdx.x; j < n; j += blockDim.x) {
    y[row * n + j] = __float2bfloat16(x[row * n + j] * scale[j]);
    acc[row * n + j] += x[row * n + j];
  }
}
// OUT-LABEL: __global__ void row_convert(
// OUT: reinterpret_cast<unsigned long long>(acc + (row * n)) % 16 == 0 &&
// OUT-NEXT: (reinterpret_cast<unsigned long long>(y + (row * n)) + kopt_n * 2ull <= reinterpret_cast<unsigned long long>(x + (row * n)) ||
// OUT-NEXT: reinterpret_cast<unsigned long long>(x + (row * n)) + kopt_n * 4ull <= reinterpret_cast<unsigned long long>(y + (row * n))) &&
// OUT-NEXT: (reinterpret_cast<unsigned long long>(y + (row * n)) + kopt_n * 2ull <= reinterpret_cast<unsigned long long>(acc + (row * n)) ||
// OUT-NEXT: reinterpret_cast<unsigned long long>(acc + (row * n)) + kopt_n * 4ull <= reinterpret_cast<unsigned long long>(y + (row * n))) &&
// OUT-NEXT: (reinterpret_cast<unsigned long long>(acc + (row * n)) + kopt_n * 4ull <= reinterpret_cast<unsigned long long>(x + (row * n)) ||
// OUT-NEXT: reinterpret_cast<unsigned long long>(x + (row * n)) + kopt_n * 4ull <= reinterpret_cast<unsigned long long>(acc + (row * n)))) {
// OUT-NOT: {{^ +}}(reinterpret_cast<unsigned long long>(scale) +

// Only __restrict__ pointers: no range check.
// CHECK-DAG: disjoint.cu:[[@LINE+2]]:3: remark: vectorized the grid-stride loop: 'x' as float4 (4 x float), 'y' as float4 (4 x float) [-Rpass=vectorize-loads]
__global__ void scale_restrict(const float *__restrict__ x, float *__restrict__ y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    y[i] = 2.0f * x[i];
}
// OUT-LABEL: __global__ void scale_restrict(
// OUT: // the original loop runs when a pointer is not aligned.
// OUT-NEXT: const auto kopt_n = n;
// OUT-NEXT: if (reinterpret_cast<unsigned long long>(x) % 16 == 0 &&
// OUT-NEXT: reinterpret_cast<unsigned long long>(y) % 16 == 0) {
