// All of a loop's element-wise accesses are vectorized, or none: with W
// elements per thread, an access left scalar is strided across threads and
// loses its coalescing. Here the row pointers 'in' and 'o' are read from a
// table (and below, 'x' is read through pointer arithmetic), so only
// 'gamma' and 'beta' could be vectorized: the pass refuses, and the kernels
// are left untouched. Row pointers fixed to a parameter are vectorized
// (local-pointers.cu).
// RUN: kopt-opt %s -passes=vectorize-loads -Rpass-missed=vectorize-loads -o %t.cu 2>&1 | FileCheck %s
// RUN: diff %s %t.cu
// REQUIRES: filecheck
#include <cuda_runtime.h>

// CHECK-DAG: remark: block-stride loop not vectorized: 'in[c]' is element-wise but not a subscript of a kernel parameter or of a local fixed to one, so it would stay scalar: vectorizing only some element-wise accesses leaves the others uncoalesced
__global__ void normalize_rows(float *__restrict__ out,
                               const float *const *__restrict__ rows,
                               const float *__restrict__ gamma,
                               const float *__restrict__ beta,
                               const float *__restrict__ mean,
                               const float *__restrict__ rstd, int cols) {
  int row = blockIdx.x;
  const float *in = rows[row];
  float *o = out + row * cols;
  float m = mean[row], s = rstd[row];
  for (int c = threadIdx.x; c < cols; c += blockDim.x)
    o[c] = (in[c] - m) * s * gamma[c] + beta[c];
}

// CHECK-DAG: remark: block-stride loop not vectorized: 'x + c' is element-wise but not a subscript of a kernel parameter
__global__ void scale_rows_streaming(float *__restrict__ out,
                                     const float *__restrict__ x,
                                     const float *__restrict__ gamma,
                                     int cols) {
  for (int c = threadIdx.x; c < cols; c += blockDim.x)
    out[c] = __ldcs(x + c) * gamma[c];
}
