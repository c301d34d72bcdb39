// Broken: each block publishes b*y for its chunk in a global scratch array
// and then reads the chunk of a block half a grid away, with no grid-wide
// barrier; that block usually has not run yet, so the value read is stale.
#include <cuda_runtime.h>

__device__ float Scratch[1 << 25];

__global__ void axpby(const float *x, const float *y, float *out, float a,
                      float b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    Scratch[i] = b * y[i];
  __threadfence();
  int other = (blockIdx.x + gridDim.x / 2) % gridDim.x;
  int j = other * blockDim.x + threadIdx.x;
  if (j < n)
    out[j] = a * x[j] + Scratch[j];
}

extern "C" void launch_axpby(const float *x, const float *y, float *out,
                             float a, float b, int n, cudaStream_t stream) {
  axpby<<<(n + 255) / 256, 256, 0, stream>>>(x, y, out, a, b, n);
}
