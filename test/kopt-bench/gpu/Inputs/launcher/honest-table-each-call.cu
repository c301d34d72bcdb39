// Honest: copies a small coefficient table from pageable host memory to a
// __constant__ on every call (cudaMemcpyToSymbolAsync on the given
// stream), then launches.
#include "../contain/axpby_body.h"

namespace {
__constant__ float Table[2];

__global__ void scaled(const float *x, const float *y, float *out, float a,
                       float b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = Table[0] * (a * x[i]) + Table[1] * (b * y[i]);
}
} // namespace

extern "C" void launch_axpby(const float *x, const float *y, float *out,
                             float a, float b, int n, cudaStream_t stream) {
  static const float Host[2] = {1.0f, 1.0f};
  cudaMemcpyToSymbolAsync(Table, Host, sizeof(Host), 0,
                          cudaMemcpyHostToDevice, stream);
  scaled<<<(n + 255) / 256, 256, 0, stream>>>(x, y, out, a, b, n);
}
