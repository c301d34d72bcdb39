// A driver entry-point lookup of a pointer query: allowed (restrict-const's
// run-time check does the same).
#include <cuda.h>
#include <cuda_runtime.h>

__global__ void axpby(const float *x, const float *y, float *out, float a,
                      float b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = a * x[i] + b * y[i];
}

extern "C" void launch_axpby(const float *x, const float *y, float *out,
                             float a, float b, int n, cudaStream_t stream) {
  void *Fn = nullptr;
  cudaDriverEntryPointQueryResult Q;
  cudaGetDriverEntryPoint("cuMemGetAddressRange", &Fn, cudaEnableDefault, &Q);
  axpby<<<(n + 255) / 256, 256, 0, stream>>>(x, y, out, a, b, n);
}
