// replace=true rewrites an existing __launch_bounds__ in place.
// RUN: kopt-opt %s -passes='launch-bounds{replace=true}' -Rpass=launch-bounds -o %t.cu 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: %strip_checks %t.cu | FileCheck %s
// RUN: %if cuda-toolkit %{ %nvcc_check %t.cu %}
// REQUIRES: filecheck

// REMARK: replace.cu:[[@LINE+2]]:41: remark: replaced __launch_bounds__ of 'k': __launch_bounds__(128) (every launch site uses 128 threads per block)
// CHECK: __global__ void __launch_bounds__(128) k(float *p)
__global__ void __launch_bounds__(1024) k(float *p) { p[threadIdx.x] = 0; }

void launch(float *p) { k<<<4, 128>>>(p); }
