// fp4-intrinsics proves e2m1 helpers equal to __nv_cvt_float2_to_fp4x2 and
// packs their pairs into it: a branch chain on the sign bit (with the NaN
// sign repair), a chain on `v < 0` (with the -0.0 repair), a table loop.
// RUN: kopt-opt %s --arch=sm_100a -passes=fp4-intrinsics -Rpass=fp4-intrinsics -Rpass-missed=fp4-intrinsics -o %t.cu 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: %strip_checks %t.cu | FileCheck %s
// RUN: %if cuda-toolkit %{ %nvcc_check %t.cu %}
// RUN: kopt-opt %s --arch=sm_100a -passes='fp4-intrinsics{exact-nan=false}' -Rpass=fp4-intrinsics -o %t.nan.cu 2>&1 | FileCheck %s --check-prefix=NAN-REMARK
// RUN: %strip_checks %t.nan.cu | FileCheck %s --check-prefix=NAN
// RUN: %if cuda-toolkit %{ %nvcc_check %t.nan.cu %}
// A second run finds nothing left to do.
// RUN: kopt-opt %t.cu --arch=sm_100a -passes=fp4-intrinsics -Rpass=fp4-intrinsics -Rpass-missed=fp4-intrinsics -o %t.again.cu 2>&1 | FileCheck %s --check-prefix=AGAIN --allow-empty
// RUN: diff %t.cu %t.again.cu
// REQUIRES: filecheck
#include <cuda_runtime.h>
#include <cstring>

// CHECK: #include <cstring>
// CHECK-NEXT: #include <cuda_fp4.h>

// The NVFP4 kernels' helper: sign bit, thresholds at the midpoints, ties to
// the even code.
__host__ __device__ unsigned char sign_bit_chain(float v) {
  unsigned int bits;
  memcpy(&bits, &v, sizeof bits);
  unsigned char sign = (bits >> 31) ? 0x8 : 0x0;
  float a = fabsf(v);
  unsigned char code;
  if (a <= 0.25f)
    code = 0;
  else if (a < 0.75f)
    code = 1;
  else if (a <= 1.25f)
    code = 2;
  else if (a < 1.75f)
    code = 3;
  else if (a <= 2.5f)
    code = 4;
  else if (a < 3.5f)
    code = 5;
  else if (a <= 5.0f)
    code = 6;
  else
    code = 7;
  return sign | code;
}
// CHECK-LABEL: // kopt fp4-intrinsics: sign_bit_chain(lo) | (sign_bit_chain(hi) << 4)
// CHECK: // sign_bit_chain keeps the sign bit of a NaN (0xF), the intrinsic gives
// CHECK: static inline __host__ __device__ int
// CHECK-NEXT: kopt_sign_bit_chain_x2(float lo, float hi) {
// CHECK-NEXT: int r = __nv_cvt_float2_to_fp4x2(make_float2(lo, hi),
// CHECK-NEXT: __NV_E2M1, cudaRoundNearest);
// CHECK-NEXT: if (lo != lo && copysignf(1.0f, lo) < 0.0f)
// CHECK-NEXT: r |= 0x08;
// CHECK-NEXT: if (hi != hi && copysignf(1.0f, hi) < 0.0f)
// CHECK-NEXT: r |= 0x80;
// CHECK-NEXT: return r;
// NAN-LABEL: kopt_sign_bit_chain_x2(float lo, float hi) {
// NAN-NEXT: int r = __nv_cvt_float2_to_fp4x2(make_float2(lo, hi),
// NAN-NEXT: __NV_E2M1, cudaRoundNearest);
// NAN-NEXT: return r;

// The sign from `v < 0`: -0.0 encodes as +0, so the intrinsic gets v + 0.0f.
// A NaN is not < 0: it encodes as +6 (0x7), as the intrinsic does.
__device__ int less_than_zero_chain(float v) {
  int s = v < 0.0f ? 8 : 0;
  float a = fabsf(v);
  if (a <= 0.25f)
    return s;
  if (a < 0.75f)
    return s | 1;
  if (a <= 1.25f)
    return s | 2;
  if (a < 1.75f)
    return s | 3;
  if (a <= 2.5f)
    return s | 4;
  if (a < 3.5f)
    return s | 5;
  if (a <= 5.0f)
    return s | 6;
  return s | 7;
}
// CHECK-LABEL: // kopt fp4-intrinsics: less_than_zero_chain(lo) | (less_than_zero_chain(hi) << 4)
// CHECK: // less_than_zero_chain encodes -0.0 as +0: x + 0.0f turns -0.0 into +0.0 and
// CHECK: static inline __device__ int
// CHECK-NEXT: kopt_less_than_zero_chain_x2(float lo, float hi) {
// CHECK-NEXT: int r = __nv_cvt_float2_to_fp4x2(make_float2(lo + 0.0f, hi + 0.0f),
// CHECK-NEXT: __NV_E2M1, cudaRoundNearest);
// CHECK-NEXT: return r;

// A table of midpoints, searched from the top; a tie stays at the even code.
__device__ unsigned table_search(float v) {
  const float mid[7] = {0.25f, 0.75f, 1.25f, 1.75f, 2.5f, 3.5f, 5.0f};
  unsigned code = 7;
  float a = fabsf(v);
  for (int i = 6; i >= 0; --i)
    if (a < mid[i] || (a == mid[i] && i % 2 == 0))
      code = i;
  return (signbit(v) ? 8u : 0u) | code;
}
// CHECK-LABEL: // kopt fp4-intrinsics: table_search(lo) | (table_search(hi) << 4)
// CHECK: static inline __device__ unsigned int
// CHECK-NEXT: kopt_table_search_x2(float lo, float hi) {

// NAN-REMARK: remark: two 'sign_bit_chain' conversions {{.*}}; NaNs encode as +6 (0x7), not as 'sign_bit_chain' does (exact-nan=false))
__global__ void pack(const float *x, unsigned char *q, float mul) {
  int i = threadIdx.x;
  // REMARK-DAG: applied.cu:[[@LINE+2]]:10: remark: two 'sign_bit_chain' conversions as one __nv_cvt_float2_to_fp4x2 for sm_100a ('sign_bit_chain' proven e2m1 round-to-nearest-even with saturation on {{[0-9]+}} cells of the floats; a NaN's sign bit kept, as 'sign_bit_chain' does) [-Rpass=fp4-intrinsics]
  // CHECK: q[i] = kopt_sign_bit_chain_x2(x[2 * i] * mul, x[2 * i + 1]);
  q[i] = sign_bit_chain(x[2 * i] * mul) | (sign_bit_chain(x[2 * i + 1]) << 4);
  // The high nibble written first.
  // REMARK-DAG: applied.cu:[[@LINE+2]]:15: remark: two 'less_than_zero_chain' conversions as one __nv_cvt_float2_to_fp4x2 for sm_100a ('less_than_zero_chain' proven e2m1 round-to-nearest-even with saturation on {{[0-9]+}} cells of the floats; -0.0 passed as +0.0, as 'less_than_zero_chain' encodes it) [-Rpass=fp4-intrinsics]
  // CHECK: q[i + 32] = kopt_less_than_zero_chain_x2(x[i], x[i + 1]);
  q[i + 32] = (less_than_zero_chain(x[i + 1]) << 4) | less_than_zero_chain(x[i]);
  // REMARK-DAG: applied.cu:[[@LINE+2]]:15: remark: two 'table_search' conversions as one __nv_cvt_float2_to_fp4x2 for sm_100a ('table_search' proven e2m1 round-to-nearest-even with saturation on {{[0-9]+}} cells of the floats; a NaN's sign bit kept, as 'table_search' does) [-Rpass=fp4-intrinsics]
  // CHECK: q[i + 64] = kopt_table_search_x2(x[i], -x[i]);
  q[i + 64] = table_search(x[i]) | (table_search(-x[i]) << 4);
}
// AGAIN-NOT: remark
