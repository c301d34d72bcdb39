// An honest rewrite: 64 x 64 block tiles, each thread computes 4 x 4
// outputs from registers (columns tx + 16 j, rows ty + 16 i: no bank
// conflicts, coalesced stores); the same summation order as the original.
#include <cuda_runtime.h>

constexpr int BM = 64, BN = 64, BK = 16, TM = 4, TN = 4;

__global__ void __launch_bounds__(256)
    sgemm_tiled(const float *__restrict__ A, const float *__restrict__ B,
                float *__restrict__ C, int M, int N, int K) {
  __shared__ float As[BK][BM + 4];
  __shared__ float Bs[BK][BN];
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
  float acc[TM][TN] = {};
  for (int t = 0; t < K; t += BK) {
    for (int i = threadIdx.x; i < BM * BK; i += 256) {
      int m = i / BK, k = i % BK;
      int r = row0 + m, c = t + k;
      As[k][m] = (r < M && c < K) ? A[(size_t)r * K + c] : 0.0f;
    }
    for (int i = threadIdx.x; i < BK * BN; i += 256) {
      int k = i / BN, n = i % BN;
      int r = t + k, c = col0 + n;
      Bs[k][n] = (r < K && c < N) ? B[(size_t)r * N + c] : 0.0f;
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      float a[TM], b[TN];
#pragma unroll
      for (int i = 0; i < TM; ++i)
        a[i] = As[k][ty + 16 * i];
#pragma unroll
      for (int j = 0; j < TN; ++j)
        b[j] = Bs[k][tx + 16 * j];
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j)
          acc[i][j] += a[i] * b[j];
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) {
      int r = row0 + ty + 16 * i, c = col0 + tx + 16 * j;
      if (r < M && c < N)
        C[(size_t)r * N + c] = acc[i][j];
    }
}

extern "C" void launch_sgemm(const float *A, const float *B, float *C, int M,
                             int N, int K, cudaStream_t stream) {
  dim3 grid((N + BN - 1) / BN, (M + BM - 1) / BM);
  sgemm_tiled<<<grid, 256, 0, stream>>>(A, B, C, M, N, K);
}
