// Broken: the grid is rounded down, so the last n % 256 elements are never
// written.
#include <cuda_runtime.h>

__global__ void axpby(const float *x, const float *y, float *out, float a,
                      float b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = a * x[i] + b * y[i];
}

extern "C" void launch_axpby(const float *x, const float *y, float *out,
                             float a, float b, int n, cudaStream_t stream) {
  if (n / 256 > 0)
    axpby<<<n / 256, 256, 0, stream>>>(x, y, out, a, b, n);
}
