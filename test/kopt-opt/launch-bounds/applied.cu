// launch-bounds declares the one constant block size all launch sites use.
// RUN: kopt-opt %s -passes=launch-bounds -Rpass=launch-bounds -o %t.cu 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: %strip_checks %t.cu | FileCheck %s
// RUN: %if cuda-toolkit %{ %nvcc_check %t.cu %}
// RUN: kopt-opt %s -passes='launch-bounds{min-blocks=2}' | %strip_checks | FileCheck %s --check-prefix=MINBLOCKS
// RUN: kopt-opt %s -passes='launch-bounds{max-threads=512}' | %strip_checks | FileCheck %s --check-prefix=EXPLICIT
// REQUIRES: filecheck
#include <cuda_runtime.h>

// REMARK-DAG: applied.cu:[[@LINE+3]]:17: remark: added __launch_bounds__ to 'literal': __launch_bounds__(256) (every launch site uses 256 threads per block) [-Rpass=launch-bounds]
// CHECK: __global__ void __launch_bounds__(256) literal(float *p)
// MINBLOCKS: __global__ void __launch_bounds__(256, 2) literal(float *p)
__global__ void literal(float *p) { p[threadIdx.x] = 0; }

// A const variable, a plain local never modified, and a dim3 of constants.
// CHECK: __global__ void __launch_bounds__(128) from_var(float *p)
// EXPLICIT: __global__ void __launch_bounds__(512) from_var(float *p)
__global__ void from_var(float *p) { p[threadIdx.x] = 0; }
// CHECK: __global__ void __launch_bounds__(512) from_dim3(float *p)
__global__ void from_dim3(float *p) { p[threadIdx.x] = 0; }

// CHECK: template <typename T> __global__ void __launch_bounds__(64) templated(T *p)
template <typename T> __global__ void templated(T *p) { p[threadIdx.x] = 0; }

void launch(float *p, int n, cudaStream_t s) {
  literal<<<n, 256>>>(p);
  literal<<<(n + 255) / 256, 256, 0, s>>>(p);
  const int threads = 128;
  from_var<<<n, threads>>>(p);
  int also128 = 128;
  from_var<<<n, also128>>>(p);
  dim3 block(32, 16);
  from_dim3<<<n, block>>>(p);
  templated<float><<<1, 64>>>(p);
}
