// out[r] = sum of row r of a bf16 matrix, accumulated in f32: one block per
// row, a block-stride loop for the per-thread partial sums, then a
// shared-memory tree.
#include <cuda_bf16.h>

__global__ void row_sum_bf16(const __nv_bfloat16 *__restrict__ x,
                             float *__restrict__ out, int cols) {
  __shared__ float partial[256];
  const int row = blockIdx.x;
  float sum = 0.0f;
  for (int j = threadIdx.x; j < cols; j += blockDim.x)
    sum += __bfloat162float(x[row * cols + j]);
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[row] = partial[0];
}

extern "C" void launch_row_sum(const __nv_bfloat16 *x, float *out, int rows,
                               int cols, cudaStream_t stream) {
  row_sum_bf16<<<rows, 256, 0, stream>>>(x, out, cols);
}
