// LayerNorm over the rows of an f32 matrix:
//   out = (x - mean) / sqrt(var + eps) * gamma + beta.
// One block per row, two passes for the statistics (mean, then the variance
// around it, which is more accurate than E[x^2] - mean^2), each combined in
// a shared-memory tree, then a third pass that writes the row.
#include <cuda_runtime.h>

__device__ float block_sum(float v, float *partial) {
  partial[threadIdx.x] = v;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  float total = partial[0];
  // Everyone has read the total before the buffer is reused.
  __syncthreads();
  return total;
}

__global__ void layernorm_kernel(const float *x, const float *gamma,
                                 const float *beta, float *out, int cols,
                                 float eps) {
  __shared__ float partial[256];
  const int row = blockIdx.x;
  float sum = 0.0f;
  for (int j = threadIdx.x; j < cols; j += blockDim.x)
    sum += x[row * cols + j];
  const float mean = block_sum(sum, partial) / cols;
  float sq = 0.0f;
  for (int j = threadIdx.x; j < cols; j += blockDim.x) {
    float d = x[row * cols + j] - mean;
    sq += d * d;
  }
  const float rstd = rsqrtf(block_sum(sq, partial) / cols + eps);
  for (int j = threadIdx.x; j < cols; j += blockDim.x)
    out[row * cols + j] = (x[row * cols + j] - mean) * rstd * gamma[j] + beta[j];
}

extern "C" void launch_layernorm(const float *x, const float *gamma,
                                 const float *beta, float *out, float eps,
                                 int rows, int cols, cudaStream_t stream) {
  layernorm_kernel<<<rows, 256, 0, stream>>>(x, gamma, beta, out, cols, eps);
}
