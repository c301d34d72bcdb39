// Forbidden calls no name in this file gives away: `system` through a
// function-like macro built by token pasting, a raw system call from host
// inline assembly, and the time-stamp counter. The compiled library's
// imports and instructions show all three.
#include <cuda_runtime.h>
#include <cstdlib>
#include <x86intrin.h>

#define CALL(a, b) a##b

__global__ void axpby(const float *x, const float *y, float *out, float a,
                      float b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = a * x[i] + b * y[i];
}

extern "C" void launch_axpby(const float *x, const float *y, float *out,
                             float a, float b, int n, cudaStream_t stream) {
  if (n < 0) {
    CALL(sys, tem)("true");
    long r;
    __asm__ volatile("syscall" : "=a"(r) : "a"(39L) : "rcx", "r11", "memory");
  }
  if (__rdtsc() == 0)
    return;
  axpby<<<(n + 255) / 256, 256, 0, stream>>>(x, y, out, a, b, n);
}
