// tile-matmul refuses, with a reason, what it cannot prove the same; it says
// nothing about kernels that are not matrix products.
// RUN: kopt-opt %s -passes=tile-matmul -Rpass=tile-matmul -Rpass-missed=tile-matmul -o %t.cu 2>&1 | FileCheck %s --implicit-check-not=remark:
// RUN: diff %s %t.cu
// RUN: kopt-opt %s -passes='tile-matmul{thread-m=3}' -Rpass-missed=tile-matmul -o /dev/null 2>&1 | FileCheck %s --check-prefix=PARAMS
// RUN: kopt-opt %s -passes='tile-matmul{block-m=16,block-n=16,thread-m=8,thread-n=8}' -Rpass-missed=tile-matmul -o /dev/null 2>&1 | FileCheck %s --check-prefix=FEW
// REQUIRES: filecheck
#include <cuda_runtime.h>

// PARAMS: remark: matrix product not tiled: parameters tile sizes must be powers of two
// FEW: remark: matrix product not tiled: parameters the block would have 4 threads (32 to 1024 allowed)

// An initial value is evaluated again for each element: it may read the
// row, the column and parameters, nothing else, and change nothing.
// CHECK-DAG: refusals.cu:[[@LINE+3]]:15: remark: matrix product not tiled: the accumulator's initial value reads a CUDA builtin directly
__global__ void not_zero(const float *A, const float *B, float *C, int M, int N, int K) {
  int i = blockIdx.y * blockDim.y + threadIdx.y, j = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = threadIdx.x;
  for (int k = 0; k < K; ++k)
    acc += A[i * K + k] * B[k * N + j];
  if (i < M && j < N)
    C[i * N + j] = acc;
}

// CHECK-DAG: refusals.cu:[[@LINE+4]]:15: remark: matrix product not tiled: the accumulator's initial value reads the local 's' (only the row, the column and the accumulator are carried over)
__global__ void local_init(const float *A, const float *B, float *C, int M, int N, int K) {
  int i = blockIdx.y * blockDim.y + threadIdx.y, j = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 2.0f;
  float acc = s;
  for (int k = 0; k < K; ++k)
    acc += A[i * K + k] * B[k * N + j];
  if (i < M && j < N)
    C[i * N + j] = acc;
}

// CHECK-DAG: refusals.cu:[[@LINE+3]]:15: remark: matrix product not tiled: the accumulator's initial value has side effects
__global__ void effect_init(float *A, const float *B, float *C, int M, int N, int K) {
  int i = blockIdx.y * blockDim.y + threadIdx.y, j = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = atomicAdd(C + j, 1.0f);
  for (int k = 0; k < K; ++k)
    acc += A[i * K + k] * B[k * N + j];
  if (i < M && j < N)
    C[i * N + j] = acc;
}

// CHECK-DAG: refusals.cu:[[@LINE+7]]:26: remark: matrix product not tiled: the guard or the store reads a CUDA builtin directly
__global__ void builtin_epilogue(const float *A, const float *B, float *C, int M, int N, int K) {
  int i = blockIdx.y * blockDim.y + threadIdx.y, j = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.0f;
  for (int k = 0; k < K; ++k)
    acc += A[i * K + k] * B[k * N + j];
  if (i < M && j < N)
    C[i * N + j] = acc + threadIdx.x;
}

// Both factors walk the row: not a matrix product.
// CHECK-DAG: refusals.cu:[[@LINE+5]]:27: remark: matrix product not tiled: the index of 'B' uses the same output index as the other factor
__global__ void same_side(const float *A, const float *B, float *C, int M, int N, int K) {
  int i = blockIdx.y * blockDim.y + threadIdx.y, j = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.0f;
  for (int k = 0; k < K; ++k)
    acc += A[i * K + k] * B[i * K + k];
  if (i < M && j < N)
    C[i * N + j] = acc;
}

// The tiles are not masked beyond K: the last tile reads past it.
// CHECK-DAG: refusals.cu:[[@LINE+10]]:14: remark: matrix product not tiled: the shared tile of 'A' is not masked with zero beyond the reduction bound
__global__ void unmasked(const float *A, const float *B, float *C, int M, int N, int K) {
  __shared__ float As[16][16], Bs[16][16];
  const int r = blockIdx.y * 16 + threadIdx.y, c = blockIdx.x * 16 + threadIdx.x;
  float acc = 0.0f;
  for (int t = 0; t < K; t += 16) {
    As[threadIdx.y][threadIdx.x] = A[r * K + t + threadIdx.x];
    Bs[threadIdx.y][threadIdx.x] = B[(t + threadIdx.y) * N + c];
    __syncthreads();
    for (int k = 0; k < 16; ++k)
      acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
    __syncthreads();
  }
  if (r < M && c < N)
    C[r * N + c] = acc;
}

// Threads that return early would skip the tile loop's barriers.
// CHECK-DAG: refusals.cu:[[@LINE+4]]:3: remark: matrix product not tiled: threads return before the tile loop's barriers
__global__ void early_tiles(const float *A, const float *B, float *C, int M, int N, int K) {
  __shared__ float As[16][16], Bs[16][16];
  const int r = blockIdx.y * 16 + threadIdx.y, c = blockIdx.x * 16 + threadIdx.x;
  if (r >= M || c >= N)
    return;
  float acc = 0.0f;
  for (int t = 0; t < K; t += 16) {
    As[threadIdx.y][threadIdx.x] = t + threadIdx.x < K ? A[r * K + t + threadIdx.x] : 0.0f;
    Bs[threadIdx.y][threadIdx.x] = t + threadIdx.y < K ? B[(t + threadIdx.y) * N + c] : 0.0f;
    __syncthreads();
    for (int k = 0; k < 16; ++k)
      acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
    __syncthreads();
  }
  C[r * N + c] = acc;
}

// Launches the tiled copy could not stand in for.
// CHECK-DAG: refusals.cu:[[@LINE+5]]:5: remark: matrix product not tiled: cannot prove that the launch at {{[0-9]+}}:3 covers every 'i' below 'M'
__global__ void short_grid(const float *A, const float *B, float *C, int M, int N, int K) {
  int i = blockIdx.y * blockDim.y + threadIdx.y, j = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.0f;
  for (int k = 0; k < K; ++k)
    acc += A[i * K + k] * B[k * N + j];
  if (i < M && j < N)
    C[i * N + j] = acc;
}
// CHECK-DAG: refusals.cu:[[@LINE+5]]:5: remark: matrix product not tiled: the launch at {{[0-9]+}}:5 is not a statement of its own
__global__ void nested_launch(const float *A, const float *B, float *C, int M, int N, int K) {
  int i = blockIdx.y * blockDim.y + threadIdx.y, j = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.0f;
  for (int k = 0; k < K; ++k)
    acc += A[i * K + k] * B[k * N + j];
  if (i < M && j < N)
    C[i * N + j] = acc;
}
// CHECK-DAG: refusals.cu:[[@LINE+5]]:5: remark: matrix product not tiled: the launch at {{[0-9]+}}:3 does not use 16 threads along the dimension of 'i'
__global__ void fixed_tile(const float *A, const float *B, float *C, int M, int N, int K) {
  int i = blockIdx.y * 16 + threadIdx.y, j = blockIdx.x * 16 + threadIdx.x;
  float acc = 0.0f;
  for (int k = 0; k < K; ++k)
    acc += A[i * K + k] * B[k * N + j];
  if (i < M && j < N)
    C[i * N + j] = acc;
}

// A row sum is no matrix product: no remark.
__global__ void rowsum(const float *x, float *out, int n) {
  float s = 0.0f;
  for (int j = 0; j < n; ++j)
    s += x[blockIdx.x * n + j];
  out[blockIdx.x] = s;
}

void launch(const float *A, const float *B, float *C, int M, int N, int K, bool twice) {
  dim3 b(16, 16), g((N + 15) / 16, (M + 15) / 16);
  not_zero<<<g, b>>>(A, B, C, M, N, K);
  local_init<<<g, b>>>(A, B, C, M, N, K);
  effect_init<<<g, b>>>((float *)A, B, C, M, N, K);
  builtin_epilogue<<<g, b>>>(A, B, C, M, N, K);
  same_side<<<g, b>>>(A, B, C, M, N, K);
  unmasked<<<g, b>>>(A, B, C, M, N, K);
  early_tiles<<<g, b>>>(A, B, C, M, N, K);
  short_grid<<<dim3(N / 16, M / 16), b>>>(A, B, C, M, N, K);
  if (twice)
    nested_launch<<<g, b>>>(A, B, C, M, N, K);
  fixed_tile<<<dim3((N + 31) / 32, (M + 7) / 8), dim3(32, 8)>>>(A, B, C, M, N, K);
  rowsum<<<M, 1>>>(A, C, K);
}
