// Fused residual add + RMSNorm + NVFP4 quantization of a bf16 rows x hidden
// activation (hidden = 16 hb), one block per row:
//   1. residual = bf16(x + residual), written back; sum of its squares;
//   2. a shared-memory tree for the sum, rstd = rsqrt(mean + eps);
//   3. one thread per 16-element block re-reads the new residual, applies
//      rstd and the weight in f32 and quantizes the block to NVFP4.
// The normalized values are not rounded to bf16 before quantization.
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

__global__ void add_rmsnorm_fp4quant_kernel(
    const __nv_bfloat16 *x, __nv_bfloat16 *residual, const __nv_bfloat16 *w,
    unsigned char *q, unsigned char *sf, float eps, float global_scale,
    int hidden) {
  __shared__ float partial[256];
  const int row = blockIdx.x;
  const int tid = threadIdx.x;

  float sum = 0.0f;
  for (int j = tid; j < hidden; j += blockDim.x) {
    int i = row * hidden + j;
    __nv_bfloat16 r = __float2bfloat16(__bfloat162float(x[i]) +
                                       __bfloat162float(residual[i]));
    residual[i] = r;
    float v = __bfloat162float(r);
    sum += v * v;
  }
  partial[tid] = sum;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s)
      partial[tid] += partial[tid + s];
    __syncthreads();
  }
  const float rstd = rsqrtf(partial[0] / hidden + eps);

  // The residual written above by other threads of this block is visible
  // after the __syncthreads() of the reduction.
  const int nblocks = hidden / 16;
  for (int b = tid; b < nblocks; b += blockDim.x) {
    float v[16];
    for (int e = 0; e < 16; ++e) {
      int j = b * 16 + e;
      v[e] = __bfloat162float(residual[row * hidden + j]) * rstd *
             __bfloat162float(w[j]);
    }
    quantize_block16(v, global_scale, q + (row * nblocks + b) * 8,
                     sf + row * nblocks + b);
  }
}

// hb: 16-element blocks per row (hidden = 16 * hb).
extern "C" void launch_add_rmsnorm_fp4quant(
    const __nv_bfloat16 *x, __nv_bfloat16 *residual, const __nv_bfloat16 *w,
    unsigned char *q, unsigned char *sf, float eps, float global_scale,
    int rows, int hb, cudaStream_t stream) {
  add_rmsnorm_fp4quant_kernel<<<rows, 256, 0, stream>>>(
      x, residual, w, q, sf, eps, global_scale, hb * 16);
}
