// streaming-loads reads with __ldcs (evict-first) the elements each block
// reads once, and leaves plain what may be read again or by every block.
// RUN: kopt-opt %s -passes=streaming-loads -Rpass=streaming-loads -Rpass-missed=streaming-loads -o %t.cu 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: %strip_checks %t.cu | FileCheck %s
// RUN: %if cuda-toolkit %{ %nvcc_check %t.cu %}
// A second run changes nothing: the loads are streamed already.
// RUN: kopt-opt %t.cu -passes=streaming-loads -o %t.again.cu
// RUN: diff %t.cu %t.again.cu
// REQUIRES: filecheck
#include <cuda_bf16.h>

// A row sum: the row is read once; the weights every block reads stay.
// REMARK-DAG: streaming-loads.cu:[[@LINE+12]]:29: remark: load of 'x' streamed with __ldcs (evict-first): each element is read once
// REMARK-DAG: streaming-loads.cu:[[@LINE+11]]:50: remark: load of 'w' not streamed: its index does not depend on blockIdx, so every block may read the same elements
// REMARK-DAG: streaming-loads.cu:[[@LINE+13]]:29: remark: load of 'x' streamed with __ldcs
// CHECK-LABEL: void weighted_row_sum(
// CHECK: s += __bfloat162float(__ldcs(&x[row * cols + j])) * w[j];
// CHECK: t += __bfloat162float(__ldcs(&x[row * cols + j]));
__global__ void weighted_row_sum(const __nv_bfloat16 *x, const float *w,
                                 float *out, int cols, bool plain) {
  const int row = blockIdx.x;
  float s = 0.0f, t = 0.0f;
  if (!plain)
    for (int j = threadIdx.x; j < cols; j += blockDim.x)
      s += __bfloat162float(x[row * cols + j]) * w[j];
  else
    for (int j = threadIdx.x; j < cols; j += blockDim.x)
      t += __bfloat162float(x[row * cols + j]);
  atomicAdd(out + row, s + t);
}

// Read twice (mean, then variance): both loads stay cached.
// REMARK-DAG: streaming-loads.cu:[[@LINE+8]]:10: remark: load of 'x' not streamed: the element is read again (keep it cached)
// REMARK-DAG: streaming-loads.cu:[[@LINE+9]]:15: remark: load of 'x' not streamed: the element is read again (keep it cached)
// CHECK-LABEL: void two_pass(
// CHECK-NOT: __ldcs
// CHECK: }
__global__ void two_pass(const float *x, float *out, int cols) {
  float m = 0.0f, v = 0.0f;
  for (int j = threadIdx.x; j < cols; j += blockDim.x)
    m += x[blockIdx.x * cols + j];
  for (int j = threadIdx.x; j < cols; j += blockDim.x) {
    float d = x[blockIdx.x * cols + j] - m;
    v += d * d;
  }
  out[blockIdx.x] = v;
}

// Copied into another pointer: what it is used for is not followed.
// REMARK-DAG: streaming-loads.cu:[[@LINE+1]]:78: remark: loads of 'x' not streamed: 'x' escapes (it is passed on or offset into another pointer)
__global__ void through_local(const float *x, float *out) { const float *p = x; out[blockIdx.x] = p[blockIdx.x]; }

// Written as well: no cache hint on its loads.
// REMARK-DAG: streaming-loads.cu:[[@LINE+4]]:5: remark: loads of 'y' not streamed: 'y' is written
__global__ void in_place(float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = 2.0f * y[i];
}
