// Broken: the bounds check is off by one, so one thread writes the element
// just past the end of out (too close for the hardware to fault).
#include <cuda_runtime.h>

__global__ void axpby(const float *x, const float *y, float *out, float a,
                      float b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = a * x[i] + b * y[i];
  else if (i == n)
    out[i] = 0.0f;
}

extern "C" void launch_axpby(const float *x, const float *y, float *out,
                             float a, float b, int n, cudaStream_t stream) {
  axpby<<<(n + 1 + 255) / 256, 256, 0, stream>>>(x, y, out, a, b, n);
}
