// Fused SwiGLU gate + NVFP4 quantization (the activation between an MoE's
// two expert GEMMs): each row of x holds gate then up, h = 16 hb elements
// each; y = silu(gate) * up in f32 is quantized to NVFP4 without rounding to
// bf16 first. One thread per 16-element output block.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cstring>

// NVFP4: blocks of 16 consecutive elements share one scale. The block's
// scale is global_scale * amax / 6 (6 is the largest e2m1 value), stored as
// fp8 e4m3 (round to nearest even, saturating at 448); the elements are
// multiplied by global_scale / that stored scale and rounded to e2m1
// {0, 0.5, 1, 1.5, 2, 3, 4, 6} with a sign bit, two codes per byte, the
// even element in the low nibble.

// e2m1 code of v: round to nearest, ties to the even code, saturating at 6.
// The thresholds are the midpoints between neighbours; at a midpoint the
// comparison (<= or <) sends it to the neighbour whose code is even. (Also
// a host function, so test/kernels can check it on every midpoint.)
__host__ __device__ unsigned char float_to_e2m1(float v) {
  // The sign bit, not v < 0: -0.0 and negatives that round to zero keep it.
  unsigned int bits;
  memcpy(&bits, &v, sizeof bits);
  unsigned char sign = (bits >> 31) ? 0x8 : 0x0;
  float a = fabsf(v);
  unsigned char code;
  if (a <= 0.25f)
    code = 0; // 0.0
  else if (a < 0.75f)
    code = 1; // 0.5
  else if (a <= 1.25f)
    code = 2; // 1.0
  else if (a < 1.75f)
    code = 3; // 1.5
  else if (a <= 2.5f)
    code = 4; // 2.0
  else if (a < 3.5f)
    code = 5; // 3.0
  else if (a <= 5.0f)
    code = 6; // 4.0
  else
    code = 7; // 6.0, also everything above it
  return sign | code;
}

// Quantizes the 16 values of one block: writes 8 bytes of codes to q and the
// e4m3 scale to *sf.
__device__ void quantize_block16(const float *v, float global_scale,
                                 unsigned char *q, unsigned char *sf) {
  float amax = 0.0f;
  for (int e = 0; e < 16; ++e)
    amax = fmaxf(amax, fabsf(v[e]));
  __nv_fp8_storage_t s8 =
      __nv_cvt_float_to_fp8(global_scale * (amax / 6.0f), __NV_SATFINITE,
                            __NV_E4M3);
  float s = __half2float(__half(__nv_cvt_fp8_to_halfraw(s8, __NV_E4M3)));
  float mul = s != 0.0f ? global_scale / s : 0.0f;
  for (int e = 0; e < 16; e += 2)
    q[e / 2] = float_to_e2m1(v[e] * mul) | (float_to_e2m1(v[e + 1] * mul) << 4);
  *sf = s8;
}

__global__ void silu_mul_fp4quant_kernel(const __nv_bfloat16 *x,
                                         unsigned char *q, unsigned char *sf,
                                         float global_scale, int rows,
                                         int hb) {
  int b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b < rows * hb) {
    const int h = hb * 16;
    const int row = b / hb;
    const int col = (b % hb) * 16;
    float v[16];
    for (int e = 0; e < 16; ++e) {
      float g = __bfloat162float(x[row * 2 * h + col + e]);
      float u = __bfloat162float(x[row * 2 * h + h + col + e]);
      v[e] = g / (1.0f + expf(-g)) * u;
    }
    quantize_block16(v, global_scale, q + b * 8, sf + b);
  }
}

// e experts x t tokens rows; hb: 16-element blocks per output row.
extern "C" void launch_silu_mul_fp4quant(const __nv_bfloat16 *x,
                                         unsigned char *q, unsigned char *sf,
                                         float global_scale, int e, int t,
                                         int hb, cudaStream_t stream) {
  const int rows = e * t;
  const int block = 256;
  const int grid = (rows * hb + block - 1) / block;
  silu_mul_fp4quant_kernel<<<grid, block, 0, stream>>>(x, q, sf, global_scale,
                                                       rows, hb);
}
