// One kernel whose launcher takes its pointers from the caller: -O adds a
// copy `scale_kopt_restrict`, whose remarks count for `scale`.
#include <cuda_runtime.h>

__global__ void scale(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = 2.0f * x[i];
}

void scale_forward(const float *x, float *y, int n) {
  scale<<<(n + 255) / 256, 256>>>(x, y, n);
}
