// Softmax over a few very long rows, the safe three-pass form written as a
// first version is: one block a row, a block-stride loop for the maximum,
// one for the sum of exp(x - max), one for the normalized write, each
// reduction finished by a shared-memory tree.
#include <cuda_runtime.h>

__global__ void softmax_rows(const float *x, float *y, int cols) {
  __shared__ float red[256];
  const float *in = x + (long long)blockIdx.x * cols;
  float *out = y + (long long)blockIdx.x * cols;

  float m = -INFINITY;
  for (int j = threadIdx.x; j < cols; j += blockDim.x)
    m = fmaxf(m, in[j]);
  red[threadIdx.x] = m;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + s]);
    __syncthreads();
  }
  const float row_max = red[0];
  __syncthreads();

  float sum = 0.0f;
  for (int j = threadIdx.x; j < cols; j += blockDim.x)
    sum += expf(in[j] - row_max);
  red[threadIdx.x] = sum;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      red[threadIdx.x] += red[threadIdx.x + s];
    __syncthreads();
  }
  const float row_sum = red[0];

  for (int j = threadIdx.x; j < cols; j += blockDim.x)
    out[j] = expf(in[j] - row_max) / row_sum;
}

extern "C" void launch_softmax_rows(const float *x, float *y, int rows,
                                    int cols, cudaStream_t stream) {
  softmax_rows<<<rows, 256, 0, stream>>>(x, y, cols);
}
