// A data-dependent break in a template's instantiation: the instantiation
// shares the `break` statement with the template, and the loop it leaves
// was once looked up in the template's tree (found by fuzz/difftest on an
// H100: row-reduce split the loop and its threads stopped at different
// places). Refused as in a plain kernel.
// RUN: kopt-opt %s -passes='row-reduce{reassociate=true}' -Rpass=row-reduce -Rpass-missed=row-reduce -o %t.cu 2>&1 | FileCheck %s
// RUN: diff %s %t.cu
// REQUIRES: filecheck
#include <cuda_runtime.h>

template <typename T>
__global__ void until_big(const T *__restrict__ x, T *__restrict__ out, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float s = 0;
    // CHECK: template-break.cu:[[@LINE+1]]:5: remark: thread-per-row kernel not re-mapped: the reduction loop leaves early (break or return): its threads would stop at different places
    for (int c = 0; c < cols; ++c) {
      float v = x[r * cols + c];
      if (v > 2.5f)
        break;
      s += v;
    }
    out[r] = s;
  }
}

void launch(const float *x, float *out, int rows, int cols) {
  until_big<float><<<(rows + 255) / 256, 256>>>(x, out, rows, cols);
}
