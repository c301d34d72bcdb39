// Honest: coefficients in __constant__ memory, copied there with
// cudaMemcpyToSymbolAsync on the first call only (from pageable host
// memory); later calls use them.
#include "../contain/axpby_body.h"

namespace {
__constant__ float Coefficients[2];

__global__ void scaled(const float *x, const float *y, float *out, float a,
                       float b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = Coefficients[0] * (a * x[i]) + Coefficients[1] * (b * y[i]);
}
} // namespace

extern "C" void launch_axpby(const float *x, const float *y, float *out,
                             float a, float b, int n, cudaStream_t stream) {
  static bool Ready = false;
  if (!Ready) {
    static const float Host[2] = {1.0f, 1.0f};
    cudaMemcpyToSymbolAsync(Coefficients, Host, sizeof(Host), 0,
                            cudaMemcpyHostToDevice, stream);
    Ready = true;
  }
  scaled<<<(n + 255) / 256, 256, 0, stream>>>(x, y, out, a, b, n);
}
