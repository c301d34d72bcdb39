// Honest host code whose names are libc's: an event called `fork` that
// the launcher records and waits for, locals called `system` and `kill`.
// Nothing here calls a forbidden function; the compiled library imports
// none, so only notes (host-api-source) are left.
#include <cuda_runtime.h>

__global__ void axpby(const float *x, const float *y, float *out, float a,
                      float b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = a * x[i] + b * y[i];
}

extern "C" void launch_axpby(const float *x, const float *y, float *out,
                             float a, float b, int n, cudaStream_t stream) {
  static cudaEvent_t fork = nullptr;
  if (!fork)
    cudaEventCreateWithFlags(&fork, cudaEventDisableTiming);
  int system = 256, kill = (n + system - 1) / system;
  axpby<<<kill, system, 0, stream>>>(x, y, out, a, b, n);
  cudaEventRecord(fork, stream);
  cudaStreamWaitEvent(stream, fork, 0);
}
