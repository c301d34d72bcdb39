// fp4-intrinsics: helpers it cannot prove or wrap for their shape or place,
// and a wrapper name already in use.
// RUN: kopt-opt %s --arch=sm_100a -passes=fp4-intrinsics -Rpass=fp4-intrinsics -Rpass-missed=fp4-intrinsics -o %t.cu 2>&1 | FileCheck %s --implicit-check-not=remark:
// RUN: %strip_checks %t.cu | FileCheck %s --check-prefix=OUT
// RUN: %if cuda-toolkit %{ %nvcc_check -rdc=true -I%S %t.cu %}
// REQUIRES: filecheck
#include <cuda_runtime.h>
#include <cstring>
#include "Inputs/e2m1_header.h"

// OUT-NOT: __nv_cvt_float2_to_fp4x2

// Defined in another translation unit (hence -rdc=true below).
__device__ unsigned char declared_only(float v);

__device__ unsigned char from_double(double v) {
  double a = fabs(v);
  return a <= 0.25 ? 0 : 7;
}

namespace nvfp4 {
__device__ unsigned char in_namespace(float v) {
  float a = fabsf(v);
  return a <= 0.25f ? 0 : 7;
}
} // namespace nvfp4

// Correct, but its closing brace shares a line with another declaration.
__device__ unsigned char crowded(float v) {
  unsigned int bits;
  memcpy(&bits, &v, sizeof bits);
  float a = fabsf(v);
  unsigned char code = a <= 0.25f   ? 0
                       : a < 0.75f  ? 1
                       : a <= 1.25f ? 2
                       : a < 1.75f  ? 3
                       : a <= 2.5f  ? 4
                       : a < 3.5f   ? 5
                       : a <= 5.0f  ? 6
                                    : 7;
  return ((bits >> 31) ? 0x8 : 0x0) | code; } __device__ int crowded_neighbour;

// Correct, but the wrapper's name is taken.
__device__ unsigned char taken(float v) {
  unsigned int bits;
  memcpy(&bits, &v, sizeof bits);
  float a = fabsf(v);
  unsigned char code = a <= 0.25f   ? 0
                       : a < 0.75f  ? 1
                       : a <= 1.25f ? 2
                       : a < 1.75f  ? 3
                       : a <= 2.5f  ? 4
                       : a < 3.5f   ? 5
                       : a <= 5.0f  ? 6
                                    : 7;
  return ((bits >> 31) ? 0x8 : 0x0) | code;
}
__device__ int kopt_taken_x2(float lo, float hi) { return 0; }

__global__ void pack(const float *x, unsigned char *q) {
  int i = threadIdx.x;
  // CHECK-DAG: shapes.cu:[[@LINE+1]]:10: remark: 'declared_only' is not a recognized e2m1 conversion: its definition is not in this file [-Rpass-missed=fp4-intrinsics]
  q[i] = declared_only(x[i]) | (declared_only(x[i + 1]) << 4);
  // CHECK-DAG: shapes.cu:[[@LINE+1]]:10: remark: 'header_e2m1' is not a recognized e2m1 conversion: it is defined in a header [-Rpass-missed=fp4-intrinsics]
  q[i] = header_e2m1(x[i]) | (header_e2m1(x[i + 1]) << 4);
  // CHECK-DAG: shapes.cu:[[@LINE+1]]:10: remark: 'from_double' is not a recognized e2m1 conversion: it does not take one float and return an integer [-Rpass-missed=fp4-intrinsics]
  q[i] = from_double(x[i]) | (from_double(x[i + 1]) << 4);
  // CHECK-DAG: shapes.cu:[[@LINE+1]]:10: remark: 'in_namespace' is not a recognized e2m1 conversion: it is not a plain function at file scope [-Rpass-missed=fp4-intrinsics]
  q[i] = nvfp4::in_namespace(x[i]) | (nvfp4::in_namespace(x[i + 1]) << 4);
  // CHECK-DAG: shapes.cu:[[@LINE+1]]:10: remark: 'crowded' shares its line with other code or is written in a macro: no place for the wrapper [-Rpass-missed=fp4-intrinsics]
  q[i] = crowded(x[i]) | (crowded(x[i + 1]) << 4);
  // CHECK-DAG: shapes.cu:[[@LINE+1]]:10: remark: the name 'kopt_taken_x2' is already taken [-Rpass-missed=fp4-intrinsics]
  q[i] = taken(x[i]) | (taken(x[i + 1]) << 4);
}
