// Reads %globaltimer through inline PTX.
#include <cuda_runtime.h>

__global__ void axpby(const float *x, const float *y, float *out, float a,
                      float b, int n, unsigned long long *t) {
  unsigned long long start;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = a * x[i] + b * y[i];
  if (i == 0)
    *t = start;
}

extern "C" void launch_axpby(const float *x, const float *y, float *out,
                             float a, float b, int n, cudaStream_t stream) {
  axpby<<<(n + 255) / 256, 256, 0, stream>>>(x, y, out, a, b, n, nullptr);
}
