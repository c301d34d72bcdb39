// The run-time check kopt_distinct_allocations goes into the file once,
// before the first function that launches a kernel: here the first kernel
// to need it is launched from run_first, but the second kernel, versioned
// later, is launched from run_second, which comes before run_first. (The
// helper used to go before run_first only, the result did not parse, and
// every edit of the pass was rolled back.)
// RUN: kopt-opt %s -passes=restrict-const -Rpass=restrict-const -Rpass-missed=restrict-const -o %t.cu 2>&1 | FileCheck %s
// RUN: FileCheck %s --check-prefix=OUT < %t.cu
// RUN: %if cuda-toolkit %{ %nvcc_check %t.cu %}
// REQUIRES: filecheck
#include <cuda_runtime.h>

// CHECK: helper-order.cu:[[@LINE+1]]:17: remark: added __restrict__ to 'x', 'y' in a copy 'first_kopt_restrict'
__global__ void first(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = 2.0f * x[i];
}

// CHECK: helper-order.cu:[[@LINE+1]]:17: remark: added __restrict__ to 'x', 'y' in a copy 'second_kopt_restrict'
__global__ void second(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = x[i] + 1.0f;
}
// CHECK-NOT: rolled back

// OUT: static inline bool kopt_distinct_allocations(
// OUT: void run_second(
void run_second(const float *x, float *y, int n) {
  second<<<(n + 255) / 256, 256>>>(x, y, n);
}

void run_first(const float *x, float *y, int n) {
  first<<<(n + 255) / 256, 256>>>(x, y, n);
}
