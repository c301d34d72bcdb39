// The launch's grid written with a rounding-up helper, as llm.c writes it
// (`dim3 grid(ceil_div(B * T, s), ...)`): a helper in this file whose body
// is one `return` of its integer parameters is read as that expression, so
// the coverage proof goes through. A helper in an included header too
// (kopt parses headers in a preamble without function bodies, then reads
// such a helper's text alone); one whose text does not parse alone (it
// calls another helper of its header) is not read: the remark says what
// could not be proved.
// RUN: kopt-opt %s -passes=tile-matmul -Rpass=tile-matmul -Rpass-missed=tile-matmul -o %t.cu 2>&1 | FileCheck %s
// RUN: %if cuda-toolkit %{ %nvcc_check -I%S %t.cu %}
// REQUIRES: filecheck
#include <cuda_runtime.h>
#include "Inputs/ceil_div.h"

template <class T> __host__ __device__ T ceil_div(T dividend, T divisor) {
  return (dividend + divisor - 1) / divisor;
}

// CHECK-DAG: helper-launch.cu:[[@LINE+8]]:7: remark: tiled the matrix product (dot-product loop) into 'mm_kopt_tiled'
__global__ void mm(float *out, const float *A, const float *B, int M, int N,
                   int K) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < M && j < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; k++)
      acc += A[i * K + k] * B[j * K + k];
    out[i * N + j] = acc;
  }
}

// CHECK-DAG: helper-launch.cu:[[@LINE+8]]:7: remark: tiled the matrix product (dot-product loop) into 'mm_h_kopt_tiled'
__global__ void mm_h(float *out, const float *A, const float *B, int M, int N,
                     int K) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < M && j < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; k++)
      acc += A[i * K + k] * B[j * K + k];
    out[i * N + j] = acc;
  }
}

// CHECK-DAG: helper-launch.cu:[[@LINE+8]]:7: remark: matrix product not tiled: cannot prove that the launch at {{[0-9]+}}:3 covers every 'i' below 'M'
__global__ void mm_c(float *out, const float *A, const float *B, int M, int N,
                     int K) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < M && j < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; k++)
      acc += A[i * K + k] * B[j * K + k];
    out[i * N + j] = acc;
  }
}

void launch(float *out, const float *A, const float *B, int b, int t, int N,
            int K, const int s) {
  dim3 grid(ceil_div(b * t, s), ceil_div(N, s));
  dim3 block(s, s);
  mm<<<grid, block>>>(out, A, B, b * t, N, K);
  dim3 grid_h(ceil_div_h(b * t, s), ceil_div_h(N, s));
  mm_h<<<grid_h, block>>>(out, A, B, b * t, N, K);
  dim3 grid_c(ceil_div_calls(b * t, s), ceil_div_calls(N, s));
  mm_c<<<grid_c, block>>>(out, A, B, b * t, N, K);
}
