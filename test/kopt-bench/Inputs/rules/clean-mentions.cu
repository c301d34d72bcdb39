// Mentions clock64(), printf( and cublasSgemm only in comments and strings,
// qualifies its parameters differently (const, __restrict__) and prints on
// the host: none of that breaks a rule.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void axpby(const float *__restrict__ x, const float *__restrict__ y,
                      float *__restrict__ out, float a, float b, int n) {
  // clock64(); printf("x"); cublasSgemm(...)
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = a * x[i] + b * y[i];
}

extern "C" void launch_axpby(const float *__restrict__ x,
                             const float *__restrict__ y,
                             float *__restrict__ out, const float a,
                             const float b, const int n,
                             cudaStream_t stream) {
  const char *note = "clock64() %globaltimer cublasSgemm";
  (void)note;
  if (n < 0)
    std::printf("negative n\n");
  axpby<<<(n + 255) / 256, 256, 0, stream>>>(x, y, out, a, b, n);
}
