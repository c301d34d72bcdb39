// RMSNorm over the rows of a bf16 matrix: out = x / sqrt(mean(x^2) + eps) * w.
// One block per row: a block-stride loop for the sum of squares, a
// shared-memory tree to combine it, then a second pass over the row.
#include <cuda_bf16.h>

__global__ void rmsnorm_kernel(const __nv_bfloat16 *__restrict__ x,
                               const __nv_bfloat16 *__restrict__ w,
                               __nv_bfloat16 *__restrict__ out, int hidden,
                               float eps) {
  __shared__ float partial[256];
  const int row = blockIdx.x;
  float sum = 0.0f;
  for (int j = threadIdx.x; j < hidden; j += blockDim.x) {
    float v = __bfloat162float(x[row * hidden + j]);
    sum += v * v;
  }
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  const float rstd = rsqrtf(partial[0] / hidden + eps);
  for (int j = threadIdx.x; j < hidden; j += blockDim.x) {
    float v = __bfloat162float(x[row * hidden + j]);
    out[row * hidden + j] = __float2bfloat16(v * rstd * __bfloat162float(w[j]));
  }
}

extern "C" void launch_rmsnorm(const __nv_bfloat16 *x, const __nv_bfloat16 *w,
                               __nv_bfloat16 *out, float eps, int rows,
                               int hidden, cudaStream_t stream) {
  rmsnorm_kernel<<<rows, 256, 0, stream>>>(x, w, out, hidden, eps);
}
