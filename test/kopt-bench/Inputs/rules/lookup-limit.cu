// Driver entry-point lookups: one names a pointer query (allowed alone, as
// in restrict-const's run-time check), the other a device limit.
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
  cudaGetDriverEntryPoint("cuCtxSetLimit", &Fn, cudaEnableDefault, &Q);
  axpby<<<(n + 255) / 256, 256, 0, stream>>>(x, y, out, a, b, n);
}
