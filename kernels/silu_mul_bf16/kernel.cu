// SwiGLU gate: out = silu(gate) * up over n bf16 elements, one element per
// thread, computed in f32 and rounded once to bf16.
#include <cuda_bf16.h>

__global__ void silu_mul_kernel(const __nv_bfloat16 *gate,
                                const __nv_bfloat16 *up, __nv_bfloat16 *out,
                                int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float g = __bfloat162float(gate[i]);
    float u = __bfloat162float(up[i]);
    out[i] = __float2bfloat16(g / (1.0f + expf(-g)) * u);
  }
}

extern "C" void launch_silu_mul(const __nv_bfloat16 *gate,
                                const __nv_bfloat16 *up, __nv_bfloat16 *out,
                                int n, cudaStream_t stream) {
  const int block = 256;
  const int grid = (n + block - 1) / block;
  silu_mul_kernel<<<grid, block, 0, stream>>>(gate, up, out, n);
}
