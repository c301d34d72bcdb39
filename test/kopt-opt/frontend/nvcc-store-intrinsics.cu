// Kernels that use nvcc's cache-hinted stores parse: clang's CUDA headers
// declare only __stwt, kopt's frontend declares the others.
// RUN: kopt-opt %s -passes=launch-bounds -Rpass=launch-bounds -o /dev/null 2>&1 | FileCheck %s
// RUN: %if cuda-toolkit %{ %nvcc_check %s %}
// CHECK: remark: added __launch_bounds__ to {{.*}}__launch_bounds__(128)
// REQUIRES: filecheck
#include <cuda_runtime.h>

__global__ void hinted(float *a, int4 *b, double *c) {
  __stcs(&a[threadIdx.x], 1.0f);
  __stcg(&b[threadIdx.x], make_int4(1, 2, 3, 4));
  __stwb(&c[threadIdx.x], 2.0);
  __stwt(&a[threadIdx.x + 128], 3.0f);
}

void launch(float *a, int4 *b, double *c) { hinted<<<1, 128>>>(a, b, c); }
