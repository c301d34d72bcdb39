// One-element-per-thread kernels cover every element below the bound after
// the rewrite; that is only the original's behaviour when each launch starts
// a thread per element, which the pass must prove.
// RUN: kopt-opt %s -passes=vectorize-loads -Rpass=vectorize-loads -Rpass-missed=vectorize-loads -o %t.cu 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: %strip_checks %t.cu | FileCheck %s
// RUN: %if cuda-toolkit %{ %nvcc_check %t.cu %}
// REQUIRES: filecheck
#include <cuda_runtime.h>

// REMARK-DAG: remark: one-element-per-thread kernel not vectorized: cannot prove that the launch at 30:3 starts a thread for each of the 'n' elements (grid '1', expected ceil(n / block) as (n + block - 1) / block); the rewrite would cover elements the original did not
// REMARK-DAG: remark: vectorized one-element-per-thread kernel: 'x' as float4 (4 x float), 'y' as float4 (4 x float); grid divided by 4 at the launch at 31:3
// REMARK-DAG: remark: vectorized one-element-per-thread kernel: 'x' as float4 (4 x float), 'y' as float4 (4 x float); grid divided by 4 at the launch at 32:3
// REMARK-DAG: remark: vectorized one-element-per-thread kernel: 'x' as float4 (4 x float), 'y' as float4 (4 x float); grid divided by 4 at the launch at 34:3
__global__ void prefix(const float *x, float *y, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = 2.0f * x[i]; }
__global__ void constants(const float *x, float *y, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = 2.0f * x[i]; }
__global__ void parenthesized(const float *x, float *y, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = 2.0f * x[i]; }
__global__ void minus_one(const float *x, float *y, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = 2.0f * x[i]; }
// Coverage is a Presburger question, so other spellings of enough blocks
// are proven too, and too few blocks are caught.
// REMARK-DAG: remark: vectorized one-element-per-thread kernel: 'x' as float4 (4 x float), 'y' as float4 (4 x float); grid divided by 4 at the launch at 35:3
// REMARK-DAG: remark: vectorized one-element-per-thread kernel: 'x' as float4 (4 x float), 'y' as float4 (4 x float); grid divided by 4 at the launch at 36:3
// REMARK-DAG: remark: one-element-per-thread kernel not vectorized: cannot prove that the launch at 37:3 starts a thread for each of the 'n' elements (grid 'n / 256'
// REMARK-DAG: remark: one-element-per-thread kernel not vectorized: cannot prove that the launch at 38:3 starts a thread for each of the 'n' elements (grid '(n + 255) / 256'
__global__ void plus_one(const float *x, float *y, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = 2.0f * x[i]; }
__global__ void shifted(const float *x, float *y, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = 2.0f * x[i]; }
__global__ void too_few(const float *x, float *y, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = 2.0f * x[i]; }
__global__ void wrong_block(const float *x, float *y, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = 2.0f * x[i]; }

void launch(const float *x, float *y, int n, int threads) {
  prefix<<<1, 256>>>(x, y, n);
  constants<<<4, 256>>>(x, y, 1000);
  parenthesized<<<(n + (threads - 1)) / threads, threads>>>(x, y, n);
  const int blocks = (n + 128 - 1) / 128;
  minus_one<<<blocks, 128>>>(x, y, n);
  plus_one<<<n / 256 + 1, 256>>>(x, y, n);
  shifted<<<((n - 1) >> 8) + 1, 256>>>(x, y, n);
  too_few<<<n / 256, 256>>>(x, y, n);
  wrong_block<<<(n + 255) / 256, 128>>>(x, y, n);
}
// CHECK: prefix<<<1, 256>>>(x, y, n);
// CHECK-NEXT: constants<<<((4) + 4 - 1) / 4, 256>>>(x, y, 1000);
// CHECK-NEXT: parenthesized<<<(((n + (threads - 1)) / threads) + 4 - 1) / 4, threads>>>(x, y, n);
// CHECK: minus_one<<<((blocks) + 4 - 1) / 4, 128>>>(x, y, n);
