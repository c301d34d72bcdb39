// y = A x for a row-major m x n f32 matrix: one warp per row, each lane
// strides over the columns, then a shuffle reduction across the warp.
#include <cuda_runtime.h>

__global__ void matvec_kernel(const float *A, const float *x, float *y, int m,
                              int n) {
  const int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int lane = threadIdx.x % 32;
  if (warp >= m)
    return;
  float sum = 0.0f;
  for (int j = lane; j < n; j += 32)
    sum += A[warp * n + j] * x[j];
  for (int offset = 16; offset > 0; offset /= 2)
    sum += __shfl_down_sync(0xffffffffu, sum, offset);
  if (lane == 0)
    y[warp] = sum;
}

extern "C" void launch_matvec(const float *A, const float *x, float *y, int m,
                              int n, cudaStream_t stream) {
  const int block = 256; // 8 rows per block
  const int rows_per_block = block / 32;
  const int grid = (m + rows_per_block - 1) / rows_per_block;
  matvec_kernel<<<grid, block, 0, stream>>>(A, x, y, m, n);
}
