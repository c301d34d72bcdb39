// Each reason launch-bounds refuses; refused kernels are left untouched.
// RUN: kopt-opt %s -passes=launch-bounds -Rpass-missed=launch-bounds -o %t.cu 2>&1 | FileCheck %s
// RUN: diff %s %t.cu
// RUN: kopt-opt %s -passes='launch-bounds{max-threads=128}' -Rpass-missed=launch-bounds -o /dev/null 2>&1 | FileCheck %s --check-prefix=BELOW
// RUN: kopt-opt %s -passes='launch-bounds{max-threads=2048}' -Rpass-missed=launch-bounds -o /dev/null 2>&1 | FileCheck %s --check-prefix=RANGE
// REQUIRES: filecheck
#include <cuda_runtime.h>

// CHECK-DAG: missed.cu:[[@LINE+2]]:17: remark: launch sites use different block sizes (128 at {{[0-9]+}}:3, 256 at {{[0-9]+}}:3): give max-threads=N [-Rpass-missed=launch-bounds]
// BELOW-DAG: missed.cu:[[@LINE+1]]:17: remark: the launch at {{[0-9]+}}:3 uses 256 threads per block, more than max-threads=128
__global__ void two_sizes(float *p) { p[threadIdx.x] = 0; }

// CHECK-DAG: missed.cu:[[@LINE+1]]:17: remark: the launch at {{[0-9]+}}:3 uses block size 'threads', which is not a compile-time constant
__global__ void runtime_size(float *p) { p[threadIdx.x] = 0; }

// CHECK-DAG: missed.cu:[[@LINE+1]]:17: remark: no launch site of 'unlaunched' in this file: give max-threads=N to declare a bound
__global__ void unlaunched(float *p) { p[threadIdx.x] = 0; }

// CHECK-DAG: missed.cu:[[@LINE+1]]:39: remark: 'existing' already has __launch_bounds__; replace=true overrides it
__global__ void __launch_bounds__(64) existing(float *p) { p[threadIdx.x] = 0; }

// CHECK-DAG: missed.cu:[[@LINE+1]]:17: remark: 'by_pointer' is referenced other than by a <<<...>>> launch (function pointer or launch API): its block sizes are unknown
__global__ void by_pointer(float *p) { p[threadIdx.x] = 0; }

// RANGE: remark: max-threads=2048 is outside 1..1024 threads per block

void launch(float *p, int threads) {
  two_sizes<<<1, 256>>>(p);
  two_sizes<<<1, 128>>>(p);
  runtime_size<<<1, threads>>>(p);
  existing<<<1, 64>>>(p);
  by_pointer<<<1, 32>>>(p);
  void (*f)(float *) = by_pointer;
  (void)f;
}
