// A grid-stride loop whose head is a macro, as Caffe, PyTorch's older
// kernels and libraries derived from them write elementwise kernels
// (CUDA_KERNEL_LOOP(i, n) followed by the body): the macro's invocation and
// the body are replaced, the vector loop's head printed from the AST, and
// the original loop (the macro as written) kept for unaligned or
// overlapping pointers. A body inside the macro's arguments, or a macro
// that expands to more than the loop's head, is refused.
// RUN: kopt-opt %s -passes=vectorize-loads -Rpass=vectorize-loads -Rpass-missed=vectorize-loads -o %t.cu 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: %strip_checks %t.cu | FileCheck %s
// RUN: kopt-opt %t.cu -passes=vectorize-loads -o %t2.cu && diff %t.cu %t2.cu
// RUN: %if cuda-toolkit %{ %nvcc_check %t.cu %}
// REQUIRES: filecheck
#include <cuda_runtime.h>

#define CUDA_KERNEL_LOOP(i, n)                                                 \
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n);                 \
       i += blockDim.x * gridDim.x)

// REMARK-DAG: grid-stride-macro.cu:[[@LINE+3]]:3: remark: vectorized the grid-stride loop: 'x' as float4 (4 x float), 'y' as float4 (4 x float)
__global__ void scale(const int n, const float *__restrict__ x, float alpha,
                      float *__restrict__ y) {
  CUDA_KERNEL_LOOP(index, n) { y[index] = x[index] * alpha; }
}
// CHECK-LABEL: void scale(
// CHECK: const auto kopt_n = (n);
// CHECK: for (int kopt_v = blockIdx.x * blockDim.x + threadIdx.x; kopt_v < kopt_n / 4; kopt_v += blockDim.x * gridDim.x) {
// CHECK: for (int index = kopt_n / 4 * 4 + blockIdx.x * blockDim.x + threadIdx.x; index < kopt_n; index += blockDim.x * gridDim.x) { y[index] = x[index] * alpha; }
// CHECK: } else {
// CHECK-NEXT: CUDA_KERNEL_LOOP(index, n) { y[index] = x[index] * alpha; }

// Without braces, the body a statement of its own line.
// REMARK-DAG: grid-stride-macro.cu:[[@LINE+3]]:3: remark: vectorized the grid-stride loop: 'x' as float4 (4 x float), 'y' as float4 (4 x float)
__global__ void relu(const int n, const float *__restrict__ x,
                     float *__restrict__ y) {
  CUDA_KERNEL_LOOP(i, n)
    y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}
// CHECK-LABEL: void relu(
// CHECK: for (int i = kopt_n / 4 * 4 + blockIdx.x * blockDim.x + threadIdx.x; i < kopt_n; i += blockDim.x * gridDim.x)
// CHECK-NEXT: y[i] = x[i] > 0.0f ? x[i] : 0.0f;
// CHECK: } else {
// CHECK-NEXT: CUDA_KERNEL_LOOP(i, n)
// CHECK-NEXT: y[i] = x[i] > 0.0f ? x[i] : 0.0f;

// The body is an argument of the macro: its text is the macro's.
#define FOR_EACH(i, n, body)                                                   \
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n);                 \
       i += blockDim.x * gridDim.x)                                            \
    body
// REMARK-DAG: grid-stride-macro.cu:[[@LINE+3]]:3: remark: grid-stride loop not vectorized: it is written in a macro
__global__ void copy_arg(const int n, const float *__restrict__ x,
                         float *__restrict__ y) {
  FOR_EACH(i, n, { y[i] = x[i]; })
}

// The macro's expansion holds more than the loop's head.
#define NOTE_THEN_LOOP(i, n)                                                   \
  (void)0;                                                                     \
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n);                 \
       i += blockDim.x * gridDim.x)
__global__ void after_note(const int n, const float *__restrict__ x,
                           float *__restrict__ y) {
// REMARK-DAG: grid-stride-macro.cu:[[@LINE+1]]:3: remark: grid-stride loop not vectorized: it is written in a macro
  NOTE_THEN_LOOP(i, n) { y[i] = x[i]; }
}

void launch(int n, const float *x, float *y) {
  scale<<<256, 256>>>(n, x, 2.0f, y);
  relu<<<256, 256>>>(n, x, y);
  copy_arg<<<256, 256>>>(n, x, y);
  after_note<<<256, 256>>>(n, x, y);
}
