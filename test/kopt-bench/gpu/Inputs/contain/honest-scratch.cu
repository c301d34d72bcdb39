// Honest: two kernels through a scratch buffer it allocates on its first
// call and keeps (memory the judge did not allocate: the replay allocates
// its own), plus a memset and a device-to-device copy on the given stream.
#include "axpby_body.h"

namespace {
__global__ void scale(const float *x, float *t, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    t[i] = a * x[i];
}
__global__ void addScaled(const float *t, const float *y, float *out, float b,
                          int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = t[i] + b * y[i];
}
} // namespace

extern "C" void launch_axpby(const float *x, const float *y, float *out,
                             float a, float b, int n, cudaStream_t stream) {
  static float *Scratch = nullptr, *Copy = nullptr;
  static int Capacity = 0;
  if (n > Capacity) {
    // Grown without cudaFree (which may synchronize): kept for the process.
    cudaMalloc(&Scratch, size_t(n) * sizeof(float));
    cudaMalloc(&Copy, size_t(n) * sizeof(float));
    Capacity = n;
  }
  cudaMemsetAsync(Scratch, 0, size_t(n) * sizeof(float), stream);
  cudaMemcpyAsync(Copy, x, size_t(n) * sizeof(float), cudaMemcpyDeviceToDevice,
                  stream);
  int Blocks = (n + 255) / 256;
  scale<<<Blocks, 256, 0, stream>>>(Copy, Scratch, a, n);
  addScaled<<<Blocks, 256, 0, stream>>>(Scratch, y, out, b, n);
}
