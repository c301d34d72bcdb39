// The block size written other than as blockDim.x, and blockIdx.x through
// a local: kernels whose results depend on the block size in ways the
// rewrite cannot see are left alone, by block-size and by the passes that
// take its rules (thread-per-block). Found by fuzz/difftest on an H100:
// each gave wrong results or wrote out of bounds.
// RUN: kopt-opt %s -passes='block-size{threads=128,reassociate=true}' -Rpass=block-size -Rpass-missed=block-size -o %t.cu 2>&1 | FileCheck %s
// RUN: kopt-opt %s -passes='thread-per-block{reassociate=true}' -Rpass=thread-per-block -Rpass-missed=thread-per-block -o /dev/null 2>&1 | FileCheck %s --check-prefix=TPB
// REQUIRES: filecheck
#include <cuda_runtime.h>

constexpr int row_threads = 256;

// CHECK-DAG: named.cu:[[@LINE+2]]:17: remark: block size of 'rows_named' not changed: it uses 'row_threads' (256, its block size) at [[@LINE+3]]:24
// TPB-DAG: named.cu:[[@LINE+1]]:17: remark: block-per-output kernel not run a thread a block: it uses 'row_threads' (256, its block size) at [[@LINE+2]]:24
__global__ void rows_named(const float *x, float *out, int rows, int cols) {
  int r = blockIdx.x * row_threads + threadIdx.x;
  if (r >= rows)
    return;
  float s = 0;
  for (int c = 0; c < cols; ++c)
    s += x[r * cols + c];
  out[r] = s;
}

// Each thread's partial written at `row * blockDim.x + tid`: another block
// size writes elsewhere (and past the end).
// CHECK-DAG: named.cu:[[@LINE+2]]:17: remark: block size of 'parts_by_row' not changed: the thread index at [[@LINE+8]]:9 is not compared with a bound
// TPB-DAG: named.cu:[[@LINE+1]]:17: remark: block-per-output kernel not run a thread a block: the thread index at [[@LINE+7]]:9
__global__ void parts_by_row(const float *x, float *parts, int cols) {
  const int row = blockIdx.x;
  const int tid = threadIdx.x;
  int m = 0;
  for (int c = tid; c < cols; c += blockDim.x)
    m = max(m, (int)x[row * cols + c]);
  parts[row * blockDim.x + tid] = m;
}

// The same local, used only per block: still changed.
// CHECK-DAG: named.cu:[[@LINE+1]]:17: remark: 'row_max' launched with 128 threads per block instead of 256
__global__ void row_max(const float *x, int *out, int cols) {
  __shared__ int buf[256];
  const int row = blockIdx.x;
  int m = 0;
  for (int c = threadIdx.x; c < cols; c += blockDim.x)
    m = max(m, (int)x[row * cols + c]);
  buf[threadIdx.x] = m;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      buf[threadIdx.x] = max(buf[threadIdx.x], buf[threadIdx.x + s]);
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[row] = buf[0];
}

// The block size passed as an argument and used as the loop's step: with
// another block size the threads would skip or repeat elements.
// CHECK-DAG: named.cu:[[@LINE+2]]:17: remark: block size of 'row_max_step' not changed: the launch at [[@LINE+12]]:3 passes its block size to 'step' (the kernel may step or index by it)
// TPB-DAG: named.cu:[[@LINE+1]]:17: remark: block-per-output kernel not run a thread a block: the launch at [[@LINE+11]]:3 passes its block size to 'step'
__global__ void row_max_step(const float *x, int *out, int cols, int step) {
  const int row = blockIdx.x;
  int m = 0;
  for (int c = threadIdx.x; c < cols; c += step)
    m = max(m, (int)x[row * cols + c]);
  atomicMax(&out[row], m);
}

void launch(const float *x, float *out, int *m, int rows, int cols) {
  int threads = 256;
  row_max_step<<<rows, threads>>>(x, m, cols, threads);
  rows_named<<<(rows + row_threads - 1) / row_threads, row_threads>>>(x, out, rows, cols);
  parts_by_row<<<rows, 256>>>(x, out, cols);
  row_max<<<rows, 256>>>(x, m, cols);
}
