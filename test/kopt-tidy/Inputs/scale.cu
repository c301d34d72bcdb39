// Two kernels for kopt-tidy's tests: every launch uses 128 threads.
#include <cuda_runtime.h>

__global__ void scale(const float *in, float *out, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = s * in[i];
}

__global__ void shift(const float *in, float *out, float d, int n) { // NOLINT(kopt-launch-bounds)
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i] + d;
}

void run(const float *in, float *out, int n, cudaStream_t stream) {
  scale<<<(n + 127) / 128, 128, 0, stream>>>(in, out, 2.0f, n);
  shift<<<(n + 127) / 128, 128, 0, stream>>>(in, out, 1.0f, n);
}
