// Broken: computes the right answer but clobbers its input x afterwards.
#include <cuda_runtime.h>

__global__ void axpby(float *x, const float *y, float *out, float a, float b,
                      int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    out[i] = a * x[i] + b * y[i];
    x[i] = 0.0f;
  }
}

extern "C" void launch_axpby(const float *x, const float *y, float *out,
                             float a, float b, int n, cudaStream_t stream) {
  axpby<<<(n + 255) / 256, 256, 0, stream>>>(const_cast<float *>(x), y, out,
                                             a, b, n);
}
