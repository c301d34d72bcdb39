#include "scale_config.h"
#include <cuda_runtime.h>

__global__ void scale(const float *in, float *out, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = s * in[i];
}

void run_scale(const float *in, float *out, int n, cudaStream_t stream) {
  scale<<<(n + SCALE_BLOCK - 1) / SCALE_BLOCK, SCALE_BLOCK, 0, stream>>>(
      in, out, 2.0f, n);
}
