// fp4-intrinsics on codes packed through locals, as real code often writes
// them: `uint8_t lo = h(a); uint8_t hi = h(b); y = lo | (hi << 4);`. Each
// local is declared alone, never changed and read only in the pair, so the
// rewrite keeps the float there instead (`const float lo = a;`, evaluated
// where the code was) and packs the two with the intrinsic. The helper is a
// ladder of thresholds.
// RUN: kopt-opt %s -passes='fp4-intrinsics{arch=sm_100a}' -Rpass=fp4-intrinsics -Rpass-missed=fp4-intrinsics -o %t.cu 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: %strip_checks %t.cu | FileCheck %s
// RUN: %if cuda-toolkit %{ %nvcc -arch=sm_100a -std=c++17 -c -o /dev/null %t.cu %}
// RUN: kopt-opt %t.cu -passes='fp4-intrinsics{arch=sm_100a}' -o %t.again.cu
// RUN: cmp %t.cu %t.again.cu
// REQUIRES: filecheck
// REMARK: locals.cu:[[@LINE+28]]:12: remark: two 'to_e2m1' conversions as one __nv_cvt_float2_to_fp4x2 for sm_100a
// CHECK-LABEL: __global__ void quant(
// CHECK:         const float lo = x[2 * i];
// CHECK-NEXT:    const float hi = x[2 * i + 1];
// CHECK-NEXT:    y[i] = kopt_to_e2m1_x2(lo, hi);
#include <cuda_runtime.h>
#include <cstdint>

__device__ uint8_t to_e2m1(float v) {
  float a = fabsf(v);
  uint8_t m;
  if (a <= 0.25f) m = 0;
  else if (a < 0.75f) m = 1;
  else if (a <= 1.25f) m = 2;
  else if (a < 1.75f) m = 3;
  else if (a <= 2.5f) m = 4;
  else if (a < 3.5f) m = 5;
  else if (a <= 5.0f) m = 6;
  else m = 7;
  return (v < 0.0f ? 8 : 0) | m;
}

__global__ void quant(const float *x, uint8_t *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n / 2)
  {
    uint8_t lo = to_e2m1(x[2 * i]);
    uint8_t hi = to_e2m1(x[2 * i + 1]);
    y[i] = lo | (hi << 4);
  }
}
