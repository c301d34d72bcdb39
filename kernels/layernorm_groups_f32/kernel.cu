// Layer norm of each of `groups` groups of n f32 elements (mean and
// variance over the whole group, no affine): one block per group, three
// block-stride passes over it, each sum finished by a shared-memory tree.
#include <cuda_runtime.h>

__global__ void layernorm_groups(const float *x, float *y, int n, float eps) {
  __shared__ float buf[256];
  const float *in = x + (long long)blockIdx.x * n;
  float *out = y + (long long)blockIdx.x * n;

  float s = 0.0f;
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    s += in[i];
  buf[threadIdx.x] = s;
  __syncthreads();
  for (int st = blockDim.x / 2; st > 0; st /= 2) {
    if (threadIdx.x < st)
      buf[threadIdx.x] += buf[threadIdx.x + st];
    __syncthreads();
  }
  const float mean = buf[0] / n;
  __syncthreads();

  float v = 0.0f;
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    float d = in[i] - mean;
    v += d * d;
  }
  buf[threadIdx.x] = v;
  __syncthreads();
  for (int st = blockDim.x / 2; st > 0; st /= 2) {
    if (threadIdx.x < st)
      buf[threadIdx.x] += buf[threadIdx.x + st];
    __syncthreads();
  }
  const float rstd = rsqrtf(buf[0] / n + eps);

  for (int i = threadIdx.x; i < n; i += blockDim.x)
    out[i] = (in[i] - mean) * rstd;
}

extern "C" void launch_layernorm_groups(const float *x, float *y, int groups,
                                        int n, float eps,
                                        cudaStream_t stream) {
  layernorm_groups<<<groups, 256, 0, stream>>>(x, y, n, eps);
}
