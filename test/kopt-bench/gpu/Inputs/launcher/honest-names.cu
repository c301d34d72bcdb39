// Honest: an event called `fork` that orders its two kernels, locals called
// `system` and `kill`. Names of C library functions, no calls of them.
#include "../contain/axpby_body.h"

namespace {
__global__ void half(const float *x, const float *y, float *out, float a,
                     float b, int begin, int end) {
  int i = begin + blockIdx.x * blockDim.x + threadIdx.x;
  if (i < end)
    out[i] = a * x[i] + b * y[i];
}
} // namespace

extern "C" void launch_axpby(const float *x, const float *y, float *out,
                             float a, float b, int n, cudaStream_t stream) {
  static cudaEvent_t fork = nullptr;
  if (!fork)
    cudaEventCreateWithFlags(&fork, cudaEventDisableTiming);
  int system = 256, middle = n / 2;
  int kill = (middle + system - 1) / system;
  half<<<kill > 0 ? kill : 1, system, 0, stream>>>(x, y, out, a, b, 0, middle);
  cudaEventRecord(fork, stream);
  cudaStreamWaitEvent(stream, fork, 0);
  half<<<(n - middle + system - 1) / system, system, 0, stream>>>(
      x, y, out, a, b, middle, n);
}
