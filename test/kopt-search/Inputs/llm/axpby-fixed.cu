// The repair: the semicolon is back, and two elements per thread.
#include <cuda_runtime.h>

__global__ void axpby_kernel(const float *x, const float *y, float *out,
                             float a, float b, int n) {
  int i = 2 * (blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n)
    out[i] = a * x[i] + b * y[i];
  if (i + 1 < n)
    out[i + 1] = a * x[i + 1] + b * y[i + 1];
}

extern "C" void launch_axpby(const float *x, const float *y, float *out,
                             float a, float b, int n, cudaStream_t stream) {
  axpby_kernel<<<(n + 511) / 512, 256, 0, stream>>>(x, y, out, a, b, n);
}
