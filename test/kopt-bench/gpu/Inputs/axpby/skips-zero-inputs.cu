// Cheat: skips the work when the inputs look like zeros (the first element
// of each). Against zero-filled test inputs it would be "correct" and fast;
// kopt-bench never uses zeros, so it has to compute and gains nothing.
#include <cuda_runtime.h>

__global__ void axpby(const float *x, const float *y, float *out, float a,
                      float b, int n) {
  if (x[0] == 0.0f && y[0] == 0.0f)
    return;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = a * x[i] + b * y[i];
}

extern "C" void launch_axpby(const float *x, const float *y, float *out,
                             float a, float b, int n, cudaStream_t stream) {
  axpby<<<(n + 255) / 256, 256, 0, stream>>>(x, y, out, a, b, n);
}
