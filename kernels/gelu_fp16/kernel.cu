// y = gelu(x) with the tanh approximation, fp16 in and out, in a grid-stride
// loop over a fixed grid: a common first version of an activation kernel.
#include <cuda_fp16.h>

__global__ void gelu_tanh(const __half *__restrict__ x, __half *__restrict__ y,
                          int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x) {
    float v = __half2float(x[i]);
    float t = tanhf(0.7978845608f * (v + 0.044715f * v * v * v));
    y[i] = __float2half(0.5f * v * (1.0f + t));
  }
}

extern "C" void launch_gelu(const __half *x, __half *y, int n,
                            cudaStream_t stream) {
  gelu_tanh<<<1024, 256, 0, stream>>>(x, y, n);
}
