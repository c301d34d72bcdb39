// unroll annotates loops whose per-thread trip count is known.
// RUN: kopt-opt %s -passes=unroll -Rpass=unroll -Rpass-missed=unroll -o %t.cu 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: %strip_checks %t.cu | FileCheck %s
// RUN: %if cuda-toolkit %{ %nvcc_check %t.cu %}
// RUN: kopt-opt %s -passes='unroll{factor=0}' | %strip_checks | FileCheck %s --check-prefix=FULL
// RUN: kopt-opt %s -passes='unroll{factor=2}' | %strip_checks | FileCheck %s --check-prefix=TWO
// REQUIRES: filecheck
#include <cuda_runtime.h>

__global__ void counted(float *p) {
  // REMARK-DAG: unroll.cu:[[@LINE+3]]:3: remark: #pragma unroll on a counted loop of 4 iterations per thread [-Rpass=unroll]
  // CHECK: #pragma unroll
  // CHECK-NEXT: for (int k = 0; k < 4; ++k)
  for (int k = 0; k < 4; ++k)
    p[k * blockDim.x + threadIdx.x] = 0;
  // REMARK-DAG: unroll.cu:[[@LINE+6]]:3: remark: #pragma unroll 4 on a counted loop of 10 iterations per thread [-Rpass=unroll]
  // CHECK: #pragma unroll 4
  // CHECK-NEXT: for (int k = 0; k < 10; k++) {
  // FULL: for (int k = 0; k < 4; ++k)
  // FULL: #pragma unroll{{$}}
  // FULL-NEXT: for (int k = 0; k < 10; k++) {
  for (int k = 0; k < 10; k++) {
    p[k] += 1.0f;
  }
}

// A block-stride loop over a constant bound, with the block size from the
// launch: 1024 / 256 = 4 elements per thread.
// REMARK-DAG: unroll.cu:[[@LINE+5]]:3: remark: #pragma unroll on a block-stride loop of 4 iterations per thread
// TWO: __global__ void block_stride(
// TWO-NEXT: #pragma unroll 2
// TWO-NEXT: for (int j = threadIdx.x; j < 1024; j += blockDim.x)
__global__ void block_stride(float *p) {
  for (int j = threadIdx.x; j < 1024; j += blockDim.x)
    p[j] *= 2.0f;
}

// REMARK-DAG: unroll.cu:[[@LINE+2]]:3: remark: loop not unrolled: its bound 'n' is not a compile-time constant [-Rpass-missed=unroll]
__global__ void runtime_bound(float *p, int n) {
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    p[j] *= 2.0f;
}

// REMARK-DAG: unroll.cu:[[@LINE+3]]:3: remark: the loop already has a loop pragma [-Rpass-missed=unroll]
__global__ void hinted(float *p) {
#pragma unroll 1
  for (int k = 0; k < 8; ++k)
    p[k] = 0;
}

// REMARK-DAG: unroll.cu:[[@LINE+2]]:3: remark: loop not unrolled: it is not a counted, block-stride or grid-stride loop [-Rpass-missed=unroll]
__global__ void while_loop(int *p) {
  while (p[0] > 0)
    --p[0];
}

// REMARK-DAG: unroll.cu:[[@LINE+2]]:3: remark: loop not unrolled: the grid size is not one known constant [-Rpass-missed=unroll]
__global__ void grid_stride(float *p) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < 4096; i += blockDim.x * gridDim.x)
    p[i] = 0;
}

void launch(float *p, int n) {
  counted<<<1, 32>>>(p);
  block_stride<<<1, 256>>>(p);
  runtime_bound<<<1, 256>>>(p, n);
  hinted<<<1, 1>>>(p);
  while_loop<<<1, 1>>>(reinterpret_cast<int *>(p));
  grid_stride<<<n, 256>>>(p);
}
