// Softmax over the rows of an f32 matrix, the safe three-pass form: row
// maximum, sum of exp(x - max), then the normalized write. One block per
// row, shared-memory trees for both reductions.
#include <cuda_runtime.h>

__global__ void softmax_kernel(const float *__restrict__ x,
                               float *__restrict__ y, int cols) {
  __shared__ float partial[256];
  const int row = blockIdx.x;
  const int tid = threadIdx.x;

  float m = -INFINITY;
  for (int j = tid; j < cols; j += blockDim.x)
    m = fmaxf(m, x[row * cols + j]);
  partial[tid] = m;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s)
      partial[tid] = fmaxf(partial[tid], partial[tid + s]);
    __syncthreads();
  }
  const float row_max = partial[0];
  __syncthreads();

  float sum = 0.0f;
  for (int j = tid; j < cols; j += blockDim.x)
    sum += expf(x[row * cols + j] - row_max);
  partial[tid] = sum;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s)
      partial[tid] += partial[tid + s];
    __syncthreads();
  }
  const float row_sum = partial[0];

  for (int j = tid; j < cols; j += blockDim.x)
    y[row * cols + j] = expf(x[row * cols + j] - row_max) / row_sum;
}

extern "C" void launch_softmax(const float *x, float *y, int rows, int cols,
                               cudaStream_t stream) {
  softmax_kernel<<<rows, 256, 0, stream>>>(x, y, cols);
}
