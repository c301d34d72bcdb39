// Block-stride loops whose step is written as a constant (a macro, a
// template argument) that every launch of the kernel runs as blockDim.x, as
// a parameter every launch passes its block size to (llm.c's `i +=
// block_size`), or as a local copy of blockDim.x: the same loops as `i +=
// blockDim.x`, so vectorize-loads and staged-loads take them. Where a
// launch runs another block, or the block is not known, the loop is not
// one, and the remark says so.
// RUN: kopt-opt %s -passes=vectorize-loads -Rpass=vectorize-loads -Rpass-missed=vectorize-loads -o %t.cu 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: %strip_checks %t.cu | FileCheck %s
// RUN: %if cuda-toolkit %{ %nvcc_check %t.cu %}
// RUN: kopt-opt %s -passes=staged-loads -Rpass=staged-loads -o /dev/null 2>&1 | FileCheck %s --check-prefix=STAGED
// REQUIRES: filecheck
// REMARK-DAG: constant-step.cu:[[@LINE+39]]:3: remark: vectorized the block-stride loop: 'y' as float4
// REMARK-DAG: constant-step.cu:[[@LINE+46]]:3: remark: vectorized the block-stride loop: 'x' as float4
// REMARK-DAG: constant-step.cu:[[@LINE+50]]:3: remark: loop not vectorized: it steps by the constant 256, a block-stride loop only where that is blockDim.x, and every launch runs 512 threads in x
// REMARK-DAG: constant-step.cu:[[@LINE+54]]:3: remark: loop not vectorized: it steps by the constant 256, a block-stride loop only where that is blockDim.x, and the block 'threads' of the launch at [[@LINE+92]]:3 is not a compile-time constant
// REMARK-DAG: constant-step.cu:[[@LINE+58]]:3: remark: vectorized the block-stride loop: 'x' as float4
// REMARK-DAG: constant-step.cu:[[@LINE+62]]:3: remark: loop not vectorized: it steps by the parameter 'step', a block-stride loop only where every launch passes its block size there, and the launch at [[@LINE+94]]:3 does not pass the value of its 1-D block 'threads'
// REMARK-DAG: constant-step.cu:[[@LINE+67]]:3: remark: vectorized the block-stride loop: 'x' as float4
// REMARK-DAG: constant-step.cu:[[@LINE+71]]:17: remark: vectorized one-element-per-thread kernel: 'x' as float4 (4 x float), 'y' as float4 (4 x float); grid divided by 4 at the launch at [[@LINE+94]]:3
// STAGED-DAG: constant-step.cu:[[@LINE+29]]:3: remark: staged 'row' through shared memory
// STAGED-DAG: constant-step.cu:[[@LINE+38]]:3: remark: staged 'x' through shared memory as vector loads (2 per thread, blocks of 128 threads)
// CHECK-LABEL: __global__ void scale_macro(
// CHECK:         kopt_v += BLOCK
// CHECK-LABEL: __global__ void scale_template(
// CHECK:         kopt_v += B
// CHECK-LABEL: __global__ void wrong_block(
// CHECK-NOT:     kopt_v
// CHECK-LABEL: __global__ void unknown_block(
// CHECK-NOT:     kopt_v
// CHECK-LABEL: __global__ void scale_param(
// CHECK:         kopt_v += block_size
// CHECK-LABEL: __global__ void scale_param_other(
// CHECK-NOT:     kopt_v
// CHECK-LABEL: __global__ void scale_local(
// CHECK:         kopt_v += bs
// CHECK-LABEL: __global__ void axpy_named(
// CHECK:         const int kopt_g = blockIdx.x * BLOCK + threadIdx.x;
// CHECK-LABEL: __global__ void axpy_named_other(
// CHECK-NOT:     kopt_g
// CHECK-LABEL: void launch(
// CHECK:         axpy_named<<<(((n + BLOCK - 1) / BLOCK) + 4 - 1) / 4, BLOCK>>>(x, y, n);
#include <cuda_runtime.h>

#define BLOCK 256

__global__ void scale_macro(const float *x, float *y, float *out, int n) {
  const float *row = x + (long)blockIdx.x * n;
  float s = 0.f;
  for (int i = threadIdx.x; i < n; i += BLOCK)
    s += row[i];
  for (int i = threadIdx.x; i < n; i += BLOCK)
    y[(long)blockIdx.x * n + i] = 2.f * row[i];
  if (threadIdx.x == 0)
    out[blockIdx.x] = s;
}

template <int B>
__global__ void scale_template(const float *x, float *y, int n) {
  for (int i = threadIdx.x; i < n; i += B)
    y[(long)blockIdx.x * n + i] = 2.f * x[(long)blockIdx.x * n + i];
}

__global__ void wrong_block(const float *x, float *y, int n) {
  for (int i = threadIdx.x; i < n; i += BLOCK)
    y[(long)blockIdx.x * n + i] = 2.f * x[(long)blockIdx.x * n + i];
}

__global__ void unknown_block(const float *x, float *y, int n) {
  for (int i = threadIdx.x; i < n; i += BLOCK)
    y[(long)blockIdx.x * n + i] = 2.f * x[(long)blockIdx.x * n + i];
}

__global__ void scale_param(const float *x, float *y, int n, int block_size) {
  for (int i = threadIdx.x; i < n; i += block_size)
    y[(long)blockIdx.x * n + i] = 2.f * x[(long)blockIdx.x * n + i];
}

__global__ void scale_param_other(const float *x, float *y, int n, int step) {
  for (int i = threadIdx.x; i < n; i += step)
    y[(long)blockIdx.x * n + i] = 2.f * x[(long)blockIdx.x * n + i];
}

__global__ void scale_local(const float *x, float *y, int n) {
  int bs = blockDim.x;
  for (int i = threadIdx.x; i < n; i += bs)
    y[(long)blockIdx.x * n + i] = 2.f * x[(long)blockIdx.x * n + i];
}

// The one-element-per-thread index with the block size named.
__global__ void axpy_named(const float *x, float *y, int n) {
  int i = blockIdx.x * BLOCK + threadIdx.x;
  if (i < n)
    y[i] = 2.f * x[i];
}

__global__ void axpy_named_other(const float *x, float *y, int n) {
  int i = blockIdx.x * BLOCK + threadIdx.x;
  if (i < n)
    y[i] = 2.f * x[i];
}

void launch(const float *x, float *y, float *out, int rows, int n,
            int threads) {
  scale_macro<<<rows, BLOCK>>>(x, y, out, n);
  scale_template<128><<<rows, 128>>>(x, y, n);
  wrong_block<<<rows, 512>>>(x, y, n);
  unknown_block<<<rows, threads>>>(x, y, n);
  scale_param<<<rows, threads>>>(x, y, n, threads);
  scale_param<<<rows, 128>>>(x, y, n, 128);
  scale_param_other<<<rows, threads>>>(x, y, n, threads);
  scale_param_other<<<rows, threads>>>(x, y, n, 2 * threads);
  scale_local<<<rows, threads>>>(x, y, n);
  axpy_named<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(x, y, n);
  axpy_named_other<<<(n + 127) / 128, 128>>>(x, y, n);
}
