// The launch's grid through a helper declared in an included header: kopt
// reads the helper's own text (the preamble skipped its body), so the
// coverage proof holds for the rounding-up helpers and fails, with the
// remark, for the one that rounds down whatever its name says.
// RUN: kopt-opt %s -passes=vectorize-loads -Rpass=vectorize-loads -Rpass-missed=vectorize-loads -o %t.cu 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: %strip_checks %t.cu | FileCheck %s
// RUN: %if cuda-toolkit %{ %nvcc_check -I%S %t.cu %}
// REQUIRES: filecheck
#include <cuda_runtime.h>
#include "Inputs/div_helpers.h"

// REMARK-DAG: remark: vectorized one-element-per-thread kernel: 'x' as float4 (4 x float), 'y' as float4 (4 x float); grid divided by 4 at the launch at 22:3
// REMARK-DAG: remark: vectorized one-element-per-thread kernel: 'x' as float4 (4 x float), 'y' as float4 (4 x float); grid divided by 4 at the launch at 23:3
// REMARK-DAG: remark: vectorized one-element-per-thread kernel: 'x' as float4 (4 x float), 'y' as float4 (4 x float); grid divided by 4 at the launch at 24:3
// REMARK-DAG: remark: one-element-per-thread kernel not vectorized: cannot prove that the launch at 25:3 starts a thread for each of the 'n' elements (grid 'blocks_for(n, 256)'
__global__ void templated(const float *x, float *y, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = 2.0f * x[i]; }
__global__ void long_index(const float *x, float *y, long n) { long i = (long)blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = 2.0f * x[i]; }
__global__ void namespaced(const float *x, float *y, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = 2.0f * x[i]; }
__global__ void rounds_down(const float *x, float *y, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = 2.0f * x[i]; }

void launch(const float *x, float *y, int n, long m, int threads) {
  templated<<<ceil_div(n, threads), threads>>>(x, y, n);
  long_index<<<ceil_div(m, 128l), 128>>>(x, y, m);
  namespaced<<<util::cdiv(n, 256), 256>>>(x, y, n);
  rounds_down<<<blocks_for(n, 256), 256>>>(x, y, n);
}
// CHECK: templated<<<((ceil_div(n, threads)) + 4 - 1) / 4, threads>>>(x, y, n);
// CHECK-NEXT: long_index<<<((ceil_div(m, 128l)) + 4 - 1) / 4, 128>>>(x, y, m);
// CHECK-NEXT: namespaced<<<((util::cdiv(n, 256)) + 4 - 1) / 4, 256>>>(x, y, n);
// CHECK-NEXT: rounds_down<<<blocks_for(n, 256), 256>>>(x, y, n);
