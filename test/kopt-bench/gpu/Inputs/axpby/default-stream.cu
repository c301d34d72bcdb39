// Broken: ignores the stream it is given and launches on the legacy default
// stream, outside the evaluator's events.
#include <cuda_runtime.h>

__global__ void axpby(const float *x, const float *y, float *out, float a,
                      float b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = a * x[i] + b * y[i];
}

extern "C" void launch_axpby(const float *x, const float *y, float *out,
                             float a, float b, int n, cudaStream_t stream) {
  axpby<<<(n + 255) / 256, 256>>>(x, y, out, a, b, n);
}
