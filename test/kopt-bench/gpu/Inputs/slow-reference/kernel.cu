// A reference that takes milliseconds on a few thousand elements (a long
// dependent chain per element): recomputing it costs more than reading its
// outputs back, so the reference cache's `auto` policy keeps them.
#include <cuda_runtime.h>

__global__ void chain_kernel(const float *x, float *out, int n, int steps) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float v = x[i];
  for (int k = 0; k < steps; ++k)
    v = v * 0.9999999f + 1e-7f;
  out[i] = v;
}

extern "C" void launch_chain(const float *x, float *out, int n, int steps,
                             cudaStream_t stream) {
  chain_kernel<<<(n + 127) / 128, 128, 0, stream>>>(x, out, n, steps);
}
