// Cheat: the entry takes double scalars.
#include <cuda_runtime.h>

__global__ void axpby_kernel(const float *x, const float *y, float *out,
                             double a, double b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = a * x[i] + b * y[i];
}

extern "C" void launch_axpby(const float *x, const float *y, float *out,
                             double a, double b, int n, cudaStream_t stream) {
  axpby_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x, y, out, a, b, n);
}
