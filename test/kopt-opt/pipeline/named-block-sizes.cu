// Block sizes as real code names them (`#define BLOCK 256`) in the passes
// that re-map threads: a thread-per-row kernel whose row is
// `blockIdx.x * BLOCK + threadIdx.x` (row-reduce), a grid-stride loop
// starting there and stepping by `BLOCK * gridDim.x` (split-grid,
// vectorize-loads), block-stride loops stepping by BLOCK (cluster-split,
// register-cache). Each is taken where every launch runs BLOCK threads in
// x, and refused with the launches' block size where one runs another.
// RUN: kopt-opt %s -passes=row-reduce -Rpass=row-reduce -Rpass-missed=row-reduce -o %t.rr.cu 2>&1 | FileCheck %s --check-prefix=RR
// RUN: kopt-opt %s -passes=split-grid -Rpass=split-grid -Rpass-missed=split-grid -o %t.sg.cu 2>&1 | FileCheck %s --check-prefix=SG
// RUN: kopt-opt %s -passes=vectorize-loads -Rpass=vectorize-loads -Rpass-missed=vectorize-loads -o %t.vl.cu 2>&1 | FileCheck %s --check-prefix=VL
// RUN: kopt-opt %s -passes=cluster-split -Rpass=cluster-split -o %t.cs.cu 2>&1 | FileCheck %s --check-prefix=CS
// RUN: kopt-opt %s -passes='register-cache{check-resources=false}' -Rpass=register-cache -o %t.rc.cu 2>&1 | FileCheck %s --check-prefix=RC
// RUN: FileCheck %s --check-prefix=RR-OUT < %t.rr.cu
// RUN: %if cuda-toolkit %{ %nvcc_check %t.rr.cu %}
// RUN: %if cuda-toolkit %{ %nvcc_check %t.vl.cu %}
// RUN: %if cuda-toolkit %{ %nvcc_check %t.cs.cu %}
// RUN: %if cuda-toolkit %{ %nvcc_check %t.rc.cu %}
// REQUIRES: filecheck
#include <cuda_runtime.h>

#define BLOCK 256

// RR: named-block-sizes.cu:[[@LINE+2]]:17: remark: 'rowmax_threads_kopt_rows' runs each row of 'r' on 32 threads: 1 loop split among them (1 combining a reduction after it)
// RR-OUT: int r = static_cast<int>(kopt_t / 32u);
__global__ void rowmax_threads(const float *x, float *__restrict__ out,
                               int rows, int n) {
  int r = blockIdx.x * BLOCK + threadIdx.x;
  if (r < rows) {
    float m = -1e30f;
    for (int j = 0; j < n; ++j)
      m = fmaxf(m, x[(long)r * n + j]);
    out[r] = m;
  }
}

// RR: named-block-sizes.cu:[[@LINE+1]]:17: remark: thread-per-row kernel not re-mapped: the row 'blockIdx.x * 256 + threadIdx.x' is not a thread's place in the grid: the constant 256 stands for blockDim.x only where every launch runs 256 threads in x, and every launch runs 128 [-Rpass-missed=row-reduce]
__global__ void rowmax_mismatch(const float *x, float *__restrict__ out,
                                int rows, int n) {
  int r = blockIdx.x * BLOCK + threadIdx.x;
  if (r < rows) {
    float m = -1e30f;
    for (int j = 0; j < n; ++j)
      m = fmaxf(m, x[(long)r * n + j]);
    out[r] = m;
  }
}

// SG: named-block-sizes.cu:[[@LINE+2]]:17: remark: 1 launch of 'scale_grid' start 8x the blocks when they hold fewer threads than the device: its grid-stride loop over 'i' runs each index once, the same way, on any grid [-Rpass=split-grid]
// VL: named-block-sizes.cu:[[@LINE+3]]:3: remark: vectorized the grid-stride loop: 'x' as float4 (4 x float), 'y' as float4 (4 x float) [-Rpass=vectorize-loads]
__global__ void scale_grid(const float *__restrict__ x, float *__restrict__ y,
                           int n) {
  for (int i = blockIdx.x * BLOCK + threadIdx.x; i < n; i += BLOCK * gridDim.x)
    y[i] = 0.5f * x[i] - 2.0f;
}

// SG: named-block-sizes.cu:[[@LINE+4]]:3: remark: grid-stride kernel not given a larger grid: the loop names the block size in its start and stride: the constant 256 stands for blockDim.x only where every launch runs 256 threads in x, and every launch runs 128 [-Rpass-missed=split-grid]
// VL: named-block-sizes.cu:[[@LINE+3]]:3: remark: loop not vectorized: it starts at 'blockIdx.x * 256 + threadIdx.x' and steps by '256 * gridDim.x', a grid-stride loop only where 256 is blockDim.x, and every launch runs 128 threads in x [-Rpass-missed=vectorize-loads]
__global__ void scale_mismatch(const float *__restrict__ x,
                               float *__restrict__ y, int n) {
  for (int i = blockIdx.x * BLOCK + threadIdx.x; i < n; i += BLOCK * gridDim.x)
    y[i] = 0.5f * x[i] - 2.0f;
}

// CS: named-block-sizes.cu:[[@LINE+2]]:17: remark: 'shiftmax_rows_kopt_cluster' shares each block's group among a cluster of 8 blocks: 2 block-stride loops divided among them, 'm' combined thread by thread across the cluster
// RC: named-block-sizes.cu:[[@LINE+6]]:3: remark: kept 'row[i]' in registers for the loop at [[@LINE+16]]:3: 32 elements per thread (auto: 32 registers for 256-thread blocks)
__global__ void shiftmax_rows(const float *__restrict__ x,
                              float *__restrict__ y, int n) {
  __shared__ float buf[BLOCK];
  const float *row = x + (long)blockIdx.x * n;
  float m = -1e30f;
  for (int i = threadIdx.x; i < n; i += BLOCK)
    m = fmaxf(m, row[i]);
  buf[threadIdx.x] = m;
  __syncthreads();
  for (int k = BLOCK / 2; k > 0; k >>= 1) {
    if (threadIdx.x < k)
      buf[threadIdx.x] = fmaxf(buf[threadIdx.x], buf[threadIdx.x + k]);
    __syncthreads();
  }
  m = buf[0];
  for (int i = threadIdx.x; i < n; i += BLOCK)
    y[(long)blockIdx.x * n + i] = row[i] - m;
}

void run(const float *x, float *y, float *out, int rows, int n) {
  rowmax_threads<<<(rows + BLOCK - 1) / BLOCK, BLOCK>>>(x, out, rows, n);
  rowmax_mismatch<<<(rows + 127) / 128, 128>>>(x, out, rows, n);
  scale_grid<<<8, BLOCK>>>(x, y, rows * n);
  scale_mismatch<<<8, 128>>>(x, y, rows * n);
  shiftmax_rows<<<rows, BLOCK>>>(x, y, n);
}
