// timer-read through a macro alias (#define TICK clock64) and a PTX string
// split in two literals.
#include <cuda_runtime.h>
#define TICK clock64
__global__ void axpby_kernel(const float *x, const float *y, float *out,
                             float a, float b, int n, long long *t) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  long long s = TICK();
  if (i < n) out[i] = a * x[i] + b * y[i];
  unsigned long long g;
  asm volatile("mov.u64 %0, %%global" "timer;" : "=l"(g));
  if (i == 0 && t) *t = TICK() - s + (long long)g;
}
extern "C" void launch_axpby(const float *x, const float *y, float *out,
                             float a, float b, int n, cudaStream_t stream) {
  axpby_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x, y, out, a, b, n, nullptr);
}
