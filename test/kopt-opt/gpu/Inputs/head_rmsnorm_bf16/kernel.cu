// Per-head RMSNorm (as in QK-norm): each row is one attention head of 64
// bf16 values. Written like the row RMSNorm of kernels/rmsnorm_bf16, with
// its 256-thread block: three warps of four never find an element.
#include <cuda_bf16.h>

constexpr int kHeadDim = 64;

__global__ void head_rmsnorm_kernel(const __nv_bfloat16 *__restrict__ x,
                                    const __nv_bfloat16 *__restrict__ w,
                                    __nv_bfloat16 *__restrict__ out, int dim,
                                    float eps) {
  __shared__ float partial[256];
  const int row = blockIdx.x;
  float sum = 0.0f;
  for (int j = threadIdx.x; j < dim; j += blockDim.x) {
    float v = __bfloat162float(x[row * dim + j]);
    sum += v * v;
  }
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  const float rstd = rsqrtf(partial[0] / dim + eps);
  for (int j = threadIdx.x; j < dim; j += blockDim.x) {
    float v = __bfloat162float(x[row * dim + j]);
    out[row * dim + j] = __float2bfloat16(v * rstd * __bfloat162float(w[j]));
  }
}

extern "C" void launch_head_rmsnorm(const __nv_bfloat16 *x,
                                    const __nv_bfloat16 *w,
                                    __nv_bfloat16 *out, float eps, int rows,
                                    cudaStream_t stream) {
  head_rmsnorm_kernel<<<rows, 256, 0, stream>>>(x, w, out, kHeadDim, eps);
}
