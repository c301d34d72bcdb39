// fp4-intrinsics on an e2m1 helper that no expression packs as a pair
// `h(a) | (h(b) << 4)`: written as a ladder of thresholds, it is proven all
// the same, and each of its calls gets a missed remark saying why it was
// left (a code in a local that is also read elsewhere, one code a byte;
// locals.cu has codes packed through locals). A float -> integer helper
// that is not e2m1 is not reported.
// RUN: kopt-opt %s -passes='fp4-intrinsics{arch=sm_100a}' -Rpass=fp4-intrinsics -Rpass-missed=fp4-intrinsics -o %t.cu 2>&1 | FileCheck %s --implicit-check-not=remark:
// RUN: diff %s %t.cu
// REQUIRES: filecheck
#include <cuda_runtime.h>
#include <stdint.h>

__device__ uint8_t to_e2m1(float x) {
  uint8_t s = x < 0.0f ? 8 : 0;
  float a = fabsf(x);
  uint8_t m;
  if (a <= 0.25f)
    m = 0;
  else if (a < 0.75f)
    m = 1;
  else if (a <= 1.25f)
    m = 2;
  else if (a < 1.75f)
    m = 3;
  else if (a <= 2.5f)
    m = 4;
  else if (a < 3.5f)
    m = 5;
  else if (a <= 5.0f)
    m = 6;
  else
    m = 7;
  return s | m;
}

__device__ int bucket(float x) { return static_cast<int>(x * 10.0f); }

__global__ void code_read_twice(const float *x, uint8_t *y, uint8_t *low,
                                int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (2 * i + 1 < n) {
// CHECK: unpaired.cu:[[@LINE+1]]:18: remark: 'to_e2m1' is an e2m1 conversion, but this call is not packed with a second one as h(a) | (h(b) << 4), directly or through locals declared one a statement and read only there: left as is [-Rpass-missed=fp4-intrinsics]
    uint8_t lo = to_e2m1(x[2 * i]);
// CHECK: unpaired.cu:[[@LINE+1]]:18: remark: 'to_e2m1' is an e2m1 conversion
    uint8_t hi = to_e2m1(x[2 * i + 1]);
    y[i] = lo | (hi << 4);
    low[i] = lo;
  }
}

__global__ void one_code_a_byte(const float *x, uint8_t *y, int *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
// CHECK: unpaired.cu:[[@LINE+1]]:12: remark: 'to_e2m1' is an e2m1 conversion
    y[i] = to_e2m1(x[i]);
    b[i] = bucket(x[i]);
  }
}
