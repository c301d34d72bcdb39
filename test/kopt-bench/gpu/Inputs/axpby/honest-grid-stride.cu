// Honest: a grid-stride loop over a fixed grid.
#include <cuda_runtime.h>

namespace {
__global__ void axpby(const float *x, const float *y, float *out, float a,
                      float b, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += gridDim.x * blockDim.x)
    out[i] = a * x[i] + b * y[i];
}
} // namespace

extern "C" void launch_axpby(const float *x, const float *y, float *out,
                             float a, float b, int n, cudaStream_t stream) {
  int blocks = (n + 255) / 256;
  if (blocks > 132 * 16)
    blocks = 132 * 16;
  axpby<<<blocks, 256, 0, stream>>>(x, y, out, a, b, n);
}
