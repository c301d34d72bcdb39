// Broken: accumulates into the output buffer in two passes, assuming it
// starts zeroed (it holds whatever was there; kopt-bench poisons it).
#include <cuda_runtime.h>

__global__ void accumulate(const float *v, float *out, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] += s * v[i];
}

extern "C" void launch_axpby(const float *x, const float *y, float *out,
                             float a, float b, int n, cudaStream_t stream) {
  accumulate<<<(n + 255) / 256, 256, 0, stream>>>(x, out, a, n);
  accumulate<<<(n + 255) / 256, 256, 0, stream>>>(y, out, b, n);
}
