// Broken: writes far outside any allocation; the GPU faults with an illegal
// address, a sticky error that ends the CUDA context.
#include <cuda_runtime.h>

__global__ void axpby(const float *x, const float *y, float *out, float a,
                      float b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = a * x[i] + b * y[i];
  if (i == 0)
    out[(size_t)1 << 40] = 1.0f;
}

extern "C" void launch_axpby(const float *x, const float *y, float *out,
                             float a, float b, int n, cudaStream_t stream) {
  axpby<<<(n + 255) / 256, 256, 0, stream>>>(x, y, out, a, b, n);
}
