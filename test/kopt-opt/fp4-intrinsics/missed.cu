// fp4-intrinsics refuses helpers that are not exactly e2m1 round to nearest
// even with saturation (mutated copies of the NVFP4 kernels' helper), says
// why, and leaves everything it refuses as it was.
// RUN: kopt-opt %s --arch=sm_100a -passes=fp4-intrinsics -Rpass=fp4-intrinsics -Rpass-missed=fp4-intrinsics -o %t.cu 2>&1 | FileCheck %s --implicit-check-not=remark:
// RUN: %strip_checks %t.cu | FileCheck %s --check-prefix=OUT
// RUN: %if cuda-toolkit %{ %nvcc_check %t.cu %}
// exact-nan=false accepts the helper whose NaNs give code 0.
// RUN: kopt-opt %s --arch=sm_100a -passes='fp4-intrinsics{exact-nan=false}' -Rpass=fp4-intrinsics 2>&1 | FileCheck %s --check-prefix=NAN
// REQUIRES: filecheck
#include <cuda_runtime.h>
#include <cstring>

// OUT-NOT: kopt_{{.*}}_x2(

#define CHAIN(a, t1, t2, t3, t4, t5, t6, t7)                                   \
  if (a <= t1)                                                                 \
    code = 0;                                                                  \
  else if (a < t2)                                                             \
    code = 1;                                                                  \
  else if (a <= t3)                                                            \
    code = 2;                                                                  \
  else if (a < t4)                                                             \
    code = 3;                                                                  \
  else if (a <= t5)                                                            \
    code = 4;                                                                  \
  else if (a < t6)                                                             \
    code = 5;                                                                  \
  else if (a <= t7)                                                            \
    code = 6;                                                                  \
  else                                                                         \
    code = 7;

__device__ unsigned char sign_of(float v) {
  unsigned int bits;
  memcpy(&bits, &v, sizeof bits);
  return (bits >> 31) ? 0x8 : 0x0;
}

// The second threshold moved from 0.75 to 0.8.
__device__ unsigned char threshold_off(float v) {
  unsigned int bits;
  memcpy(&bits, &v, sizeof bits);
  float a = fabsf(v);
  unsigned char code;
  CHAIN(a, 0.25f, 0.8f, 1.25f, 1.75f, 2.5f, 3.5f, 5.0f)
  return ((bits >> 31) ? 0x8 : 0x0) | code;
}

// `a < 1.25f` instead of `a <= 1.25f`: the tie goes to the odd code.
__device__ unsigned char tie_odd(float v) {
  unsigned int bits;
  memcpy(&bits, &v, sizeof bits);
  float a = fabsf(v);
  unsigned char code;
  if (a <= 0.25f)
    code = 0;
  else if (a < 0.75f)
    code = 1;
  else if (a < 1.25f)
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
  return ((bits >> 31) ? 0x8 : 0x0) | code;
}

// Written from the top: a NaN fails every comparison and gets code 0.
__device__ int nan_to_zero(float v) {
  int s = signbit(v) ? 8 : 0;
  float a = fabsf(v);
  if (a > 5.0f)
    return s | 7;
  if (a >= 3.5f)
    return s | 6;
  if (a > 2.5f)
    return s | 5;
  if (a >= 1.75f)
    return s | 4;
  if (a > 1.25f)
    return s | 3;
  if (a >= 0.75f)
    return s | 2;
  if (a > 0.25f)
    return s | 1;
  return s;
}

// No saturation test: 6 and above fall through to code 0.
__device__ unsigned char no_saturation(float v) {
  unsigned int bits;
  memcpy(&bits, &v, sizeof bits);
  float a = fabsf(v);
  unsigned char code = 0;
  if (a > 0.25f && a < 0.75f)
    code = 1;
  else if (a >= 0.75f && a <= 1.25f)
    code = 2;
  else if (a > 1.25f && a < 1.75f)
    code = 3;
  else if (a >= 1.75f && a <= 2.5f)
    code = 4;
  else if (a > 2.5f && a < 3.5f)
    code = 5;
  else if (a >= 3.5f && a <= 5.0f)
    code = 6;
  else if (a > 5.0f && a < 1e30f)
    code = 7;
  return ((bits >> 31) ? 0x8 : 0x0) | code;
}

// Rounds by arithmetic: nothing the proof covers.
__device__ int arithmetic(float v) {
  float a = fabsf(v);
  int half_steps = static_cast<int>(a * 2.0f + 0.5f);
  return half_steps < 4 ? half_steps : 7;
}

// Reads exponent bits.
__device__ int exponent_bits(float v) {
  unsigned int bits;
  memcpy(&bits, &v, sizeof bits);
  return (bits >> 23) & 0xff ? 7 : 0;
}

// Calls another function of this file.
__device__ int calls_helper(float v) {
  float a = fabsf(v);
  return sign_of(v) | (a > 5.0f ? 7 : 0);
}

// Correct, but only called alone, from host code, with side effects, or in
// a macro.
__host__ __device__ unsigned char good(float v) {
  unsigned int bits;
  memcpy(&bits, &v, sizeof bits);
  float a = fabsf(v);
  unsigned char code;
  CHAIN(a, 0.25f, 0.75f, 1.25f, 1.75f, 2.5f, 3.5f, 5.0f)
  return ((bits >> 31) ? 0x8 : 0x0) | code;
}
#define PACK(a, b) (good(a) | (good(b) << 4))

// A hand-written e4m3 conversion is not proven: a remark points at the
// intrinsic.
// CHECK-DAG: missed.cu:[[@LINE+1]]:26: remark: 'float_to_e4m3' looks like a hand-written float to e4m3 conversion; fp4-intrinsics proves only e2m1 helpers: use __nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E4M3) [-Rpass-missed=fp4-intrinsics]
__device__ unsigned char float_to_e4m3(float v) {
  float a = fminf(fabsf(v), 448.0f);
  return static_cast<unsigned char>(a);
}

__global__ void pack(const float *x, unsigned char *q) {
  int i = threadIdx.x;
  // CHECK-DAG: missed.cu:[[@LINE+1]]:10: remark: 'threshold_off' is not e2m1 round-to-nearest-even with saturation: its threshold 0.8 is not the midpoint 0.75 (0.75 gives code 0x1, round-to-nearest-even 0x2) [-Rpass-missed=fp4-intrinsics]
  q[i] = threshold_off(x[i]) | (threshold_off(x[i + 1]) << 4);
  // CHECK-DAG: missed.cu:[[@LINE+1]]:10: remark: 'tie_odd' is not e2m1 round-to-nearest-even with saturation: the tie at 1.25 goes to the odd code 3, not to the even code 2 [-Rpass-missed=fp4-intrinsics]
  q[i] = tie_odd(x[i]) | (tie_odd(x[i + 1]) << 4);
  // CHECK-DAG: missed.cu:[[@LINE+2]]:10: remark: 'nan_to_zero' is not e2m1 round-to-nearest-even with saturation: a NaN gives code 0x0, the intrinsic +6 (0x7) [-Rpass-missed=fp4-intrinsics]
  // NAN: missed.cu:[[@LINE+1]]:10: remark: two 'nan_to_zero' conversions as one __nv_cvt_float2_to_fp4x2 for sm_100a ('nan_to_zero' proven {{.*}}; NaNs encode as +6 (0x7), not as 'nan_to_zero' does (exact-nan=false)) [-Rpass=fp4-intrinsics]
  q[i] = nan_to_zero(x[i]) | (nan_to_zero(x[i + 1]) << 4);
  // CHECK-DAG: missed.cu:[[@LINE+1]]:10: remark: 'no_saturation' is not e2m1 round-to-nearest-even with saturation: 1e+30 gives code 0x0, round-to-nearest-even 0x7 [-Rpass-missed=fp4-intrinsics]
  q[i] = no_saturation(x[i]) | (no_saturation(x[i + 1]) << 4);
  // CHECK-DAG: missed.cu:[[@LINE+1]]:10: remark: 'arithmetic' is not e2m1 round-to-nearest-even with saturation: it computes with its argument ('a * 2.0f'), not only compares it with constants [-Rpass-missed=fp4-intrinsics]
  q[i] = arithmetic(x[i]) | (arithmetic(x[i + 1]) << 4);
  // CHECK-DAG: missed.cu:[[@LINE+1]]:10: remark: 'exponent_bits' is not e2m1 round-to-nearest-even with saturation: it uses bits of its argument other than the sign bit ('bits >> 23') [-Rpass-missed=fp4-intrinsics]
  q[i] = exponent_bits(x[i]) | (exponent_bits(x[i + 1]) << 4);
  // CHECK-DAG: missed.cu:[[@LINE+1]]:10: remark: 'calls_helper' is not e2m1 round-to-nearest-even with saturation: it calls 'sign_of', which the proof does not look into [-Rpass-missed=fp4-intrinsics]
  q[i] = calls_helper(x[i]) | (calls_helper(x[i + 1]) << 4);
  // CHECK-DAG: missed.cu:[[@LINE+1]]:10: remark: a single 'good' conversion, not packed with a second one as h(a) | (h(b) << 4): left as is [-Rpass-missed=fp4-intrinsics]
  q[i] = good(x[i]);
  int j = i;
  // CHECK-DAG: missed.cu:[[@LINE+1]]:10: remark: an argument has side effects: the pair's order of evaluation would change [-Rpass-missed=fp4-intrinsics]
  q[i] = good(x[j++]) | (good(x[j++]) << 4);
  // CHECK-DAG: missed.cu:[[@LINE+1]]:10: remark: the pair is written in a macro [-Rpass-missed=fp4-intrinsics]
  q[i] = PACK(x[i], x[i + 1]);
  q[i] = float_to_e4m3(x[i]);
}

// CHECK-DAG: missed.cu:[[@LINE+2]]:10: remark: host code: the intrinsic is emulated on the host [-Rpass-missed=fp4-intrinsics]
unsigned char host_pack(float a, float b) {
  return good(a) | (good(b) << 4);
}
