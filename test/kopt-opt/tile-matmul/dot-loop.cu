// tile-matmul on dot-product loops: transposed operands, a scalar epilogue
// that reads C, blockDim-based indices, an unsigned stride expression, and
// a double-precision product.
// RUN: kopt-opt %s -passes=tile-matmul -Rpass=tile-matmul -Rpass-missed=tile-matmul -o %t.cu 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: %strip_checks %t.cu | FileCheck %s
// RUN: %if cuda-toolkit %{ %nvcc_check %t.cu %}
// REQUIRES: filecheck
#include <cuda_runtime.h>

// C = alpha * A^T B^T + beta * C: A is K x M and B is N x K, so A walks M
// (stride 1) and B walks k (stride 1); the rows are on threadIdx.x.
// REMARK-DAG: dot-loop.cu:[[@LINE+16]]:7: remark: tiled the matrix product (dot-product loop) into 'gemm_tt_kopt_tiled'
// CHECK-LABEL: __global__ void __launch_bounds__(256) gemm_tt_kopt_tiled(
// CHECK: A[kopt_x * (long long)(1) + kopt_k * (long long)(M)]
// CHECK: B[kopt_x * (long long)(K) + kopt_k * (long long)(1)]
// CHECK: const unsigned int i = kopt_i;
// CHECK-NEXT: const unsigned int j = kopt_j;
// CHECK-NEXT: const float acc = kopt_acc[kopt_m][kopt_n];
// CHECK-NEXT: if (i < M && j < N)
// CHECK-NEXT: C[i * N + j] = alpha * acc + beta * C[i * N + j];
__global__ void gemm_tt(const float *A, const float *B, float *C, int M, int N,
                        int K, float alpha, float beta) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < M && j < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; k++)
      acc += A[k * M + i] * B[j * K + k];
    C[i * N + j] = alpha * acc + beta * C[i * N + j];
  }
}

// A double product with leading dimensions: C(i, j) = A[i * lda + k] *
// B[k * ldb + j], the factors in the other order.
// REMARK-DAG: dot-loop.cu:[[@LINE+11]]:5: remark: tiled the matrix product (dot-product loop) into 'dgemm_ld_kopt_tiled'
// CHECK-LABEL: dgemm_ld_kopt_tiled(
// CHECK: typedef double kopt_elem;
// CHECK: A[kopt_x * (long long)(lda) + kopt_k * (long long)(1)]
// CHECK: B[kopt_x * (long long)(1) + kopt_k * (long long)(ldb)]
__global__ void dgemm_ld(const double *A, const double *B, double *C, int M,
                         int N, int K, int lda, int ldb, int ldc) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  double sum = 0;
  for (int k = 0; k < K; ++k)
    sum = sum + B[k * ldb + col] * A[row * lda + k];
  if (row < M && col < N)
    C[row * ldc + col] = sum;
}

// An early return instead of a guard around the store: the copy stores
// where the return's condition is false.
// REMARK-DAG: dot-loop.cu:[[@LINE+11]]:5: remark: tiled the matrix product (dot-product loop) into 'early_kopt_tiled'
// CHECK-LABEL: early_kopt_tiled(
// CHECK: if (!(row >= M || N <= col))
// CHECK-NEXT: C[row * N + col] = acc;
__global__ void early(const float *A, const float *B, float *C, int M, int N, int K) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= M || N <= col)
    return;
  float acc = 0.0f;
  for (int k = 0; k < K; ++k)
    acc += A[row * K + k] * B[k * N + col];
  C[row * N + col] = acc;
}

// CHECK-LABEL: void launch(
// CHECK: if (kopt_matmul_tiles_fit((M), (N), (K), 128, 128,
// CHECK-NEXT: (A), (1), ((M)), sizeof(*(A)),
// CHECK-NEXT: (B), (1), ((K)), sizeof(*(B)),
// CHECK-NEXT: (C), ((N)), (1), sizeof(*(C))))
// CHECK-NEXT: gemm_tt_kopt_tiled<<<dim3((unsigned)(((N) + 127) / 128), (unsigned)(((M) + 127) / 128)), 256, 0, 0>>>(A, B, C, M, N, K, 2.0f, 0.5f);
// CHECK-NEXT: else
// CHECK-NEXT: gemm_tt<<<grid, block>>>(A, B, C, M, N, K, 2.0f, 0.5f);
void launch(const float *A, const float *B, float *C, int M, int N, int K) {
  dim3 block(16, 16);
  dim3 grid((M + 15) / 16, (N + 15) / 16);
  gemm_tt<<<grid, block>>>(A, B, C, M, N, K, 2.0f, 0.5f);
  early<<<dim3((N + 15) / 16, (M + 15) / 16), dim3(16, 16)>>>(A, B, C, M, N, K);
}

// CHECK-LABEL: void launch_d(
// CHECK: (A), ((lda)), (1), sizeof(*(A)),
// CHECK-NEXT: (B), ((ldb)), (1), sizeof(*(B)),
// CHECK-NEXT: (C), ((ldc)), (1), sizeof(*(C))))
void launch_d(const double *A, const double *B, double *C, int M, int N, int K,
              int lda, int ldb, int ldc, cudaStream_t s) {
  const int bx = 32, by = 8;
  dim3 grid((N + bx - 1) / bx, (M + by - 1) / by);
  dgemm_ld<<<grid, dim3(bx, by), 0, s>>>(A, B, C, M, N, K, lda, ldb, ldc);
}
