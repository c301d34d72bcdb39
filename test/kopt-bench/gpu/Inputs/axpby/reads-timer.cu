// Cheat: reads the SM clock (a kernel that times itself).
#include <cuda_runtime.h>

__global__ void axpby(const float *x, const float *y, float *out, float a,
                      float b, int n, long long *cycles) {
  long long start = clock64();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = a * x[i] + b * y[i];
  if (i == 0)
    *cycles = clock64() - start;
}

extern "C" void launch_axpby(const float *x, const float *y, float *out,
                             float a, float b, int n, cudaStream_t stream) {
  static long long *Cycles = nullptr;
  if (!Cycles)
    cudaMalloc(&Cycles, sizeof(long long));
  axpby<<<(n + 255) / 256, 256, 0, stream>>>(x, y, out, a, b, n, Cycles);
}
