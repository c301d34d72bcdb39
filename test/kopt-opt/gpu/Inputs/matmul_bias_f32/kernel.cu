// out = inp weight^T + bias, as llm.c's dev/cuda matmul_forward_kernel1
// writes it: one output element a thread, the accumulator starting at the
// bias (or zero without one), the rows reached through local pointers, the
// grid from a helper in a header.
#include <cuda_runtime.h>

#include "common.h"

__global__ void matmul_bias(float *out, const float *inp, const float *weight,
                            const float *bias, int BT, int C, int OC) {
  int bt = blockIdx.x * blockDim.x + threadIdx.x;
  int oc = blockIdx.y * blockDim.y + threadIdx.y;
  if (bt < BT && oc < OC) {
    float val = (bias != NULL) ? bias[oc] : 0.0f;
    const float *wrow = weight + oc * C;
    const float *inp_bt = inp + bt * C;
    for (int i = 0; i < C; i++) {
      val += inp_bt[i] * wrow[i];
    }
    out[bt * OC + oc] = val;
  }
}

extern "C" void launch_matmul_bias(float *out, const float *inp,
                                   const float *weight, const float *bias,
                                   int BT, int C, int OC,
                                   cudaStream_t stream) {
  dim3 block(16, 16);
  dim3 grid(ceil_div(BT, 16), ceil_div(OC, 16));
  matmul_bias<<<grid, block, 0, stream>>>(out, inp, weight, bias, BT, C, OC);
}
