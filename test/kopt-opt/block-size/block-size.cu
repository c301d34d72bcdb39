// block-size relaunches kernels with another constant block size.
// RUN: kopt-opt %s -passes='block-size{threads=128,reassociate=true}' -Rpass=block-size -Rpass-missed=block-size -o %t.cu 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: kopt-opt %s -passes='block-size{threads=128}' -Rpass=block-size -Rpass-missed=block-size -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXACT
// RUN: %strip_checks %t.cu | FileCheck %s
// RUN: %if cuda-toolkit %{ %nvcc_check %t.cu %}
// RUN: kopt-opt %s -passes='block-size{threads=96}' -Rpass-missed=block-size -o /dev/null 2>&1 | FileCheck %s --check-prefix=POW2
// RUN: kopt-opt %s -passes='block-size{threads=100}' -Rpass-missed=block-size -o /dev/null 2>&1 | FileCheck %s --check-prefix=MULT32
// RUN: kopt-opt %s -passes='block-size{threads=256,kernel=row_sum}' -Rpass=block-size -Rpass-missed=block-size -o /dev/null 2>&1 | FileCheck %s --check-prefix=ONLY
// RUN: kopt-opt %s -passes='block-size{threads=128,kernel=nope}' -Rpass-missed=block-size -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOPE
// REQUIRES: filecheck
#include <cuda_runtime.h>

#define SLOTS 256

// POW2-DAG: remark: block size of 'row_sum' not changed: the kernel runs a power-of-two block (256) and 96 is not one (a tree over blockDim.x / 2 needs one)
// MULT32-DAG: remark: block size of 'row_sum' not changed: 100 is not a multiple of 32 between 32 and 1024
// ONLY: remark: block size of 'row_sum' not changed: the kernel already runs 256 threads per block
// ONLY-NOT: remark
// NOPE: remark: no kernel named 'nope' is defined in this file

// One row a block: the grid stays, the per-thread shared array follows.
// Which thread adds which elements depends on the block size: only with
// reassociate=true.
// EXACT-DAG: block-size.cu:[[@LINE+6]]:43: remark: block size of 'row_sum' not changed: the floating-point accumulation at [[@LINE+10]]:5 is split across threads by the block size; another size changes the rounding (reassociate=true allows it) [-Rpass-missed=block-size]
// EXACT-DAG: remark: 'scale' launched with 128 threads per block instead of 256
// EXACT-DAG: remark: 'stride' launched with 128 threads per block instead of 256
// REMARK-DAG: block-size.cu:[[@LINE+3]]:43: remark: 'row_sum' launched with 128 threads per block instead of 256; shared array 'partial' resized to 128; __launch_bounds__(128, 2) [-Rpass=block-size]
// CHECK: __global__ void __launch_bounds__(128, 2) row_sum(const float *x, float *out, int cols) {
// CHECK-NEXT: __shared__ float partial[128];
__global__ void __launch_bounds__(256, 2) row_sum(const float *x, float *out, int cols) {
  __shared__ float partial[256];
  float s = 0.0f;
  for (int j = threadIdx.x; j < cols; j += blockDim.x)
    s += x[blockIdx.x * cols + j];
  partial[threadIdx.x] = s;
  __syncthreads();
  for (int k = blockDim.x / 2; k > 0; k >>= 1) {
    if (threadIdx.x < k)
      partial[threadIdx.x] += partial[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = partial[0];
}

// A maximum is exact in any order: no reassociation needed.
// EXACT-DAG: block-size.cu:[[@LINE+1]]:17: remark: 'row_max' launched with 128 threads per block instead of 256; shared array 'best' resized to 128 [-Rpass=block-size]
__global__ void row_max(const float *x, float *out, int cols) {
  __shared__ float best[256];
  float m = -INFINITY;
  for (int j = threadIdx.x; j < cols; j += blockDim.x)
    m = fmaxf(m, x[blockIdx.x * cols + j]);
  best[threadIdx.x] = m;
  __syncthreads();
  for (int k = blockDim.x / 2; k > 0; k >>= 1) {
    if (threadIdx.x < k)
      best[threadIdx.x] = fmaxf(best[threadIdx.x], best[threadIdx.x + k]);
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = best[0];
}

// One element a thread: a grid computed from the block-size local follows
// it; a constant grid of a grid-stride kernel is recomputed.
// REMARK-DAG: block-size.cu:[[@LINE+1]]:17: remark: 'scale' launched with 128 threads per block instead of 256; grid 'grid' at {{[0-9]+}}:3 follows 'block' [-Rpass=block-size]
__global__ void scale(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] *= 2.0f;
}
// REMARK-DAG: block-size.cu:[[@LINE+1]]:17: remark: 'stride' launched with 128 threads per block instead of 256; grid at {{[0-9]+}}:3 recomputed as 4096 [-Rpass=block-size]
__global__ void stride(float *x, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    x[i] += 1.0f;
}
// A grid computed from the local in another way keeps the local; a dim3
// block local is edited in place.
// REMARK-DAG: block-size.cu:[[@LINE+1]]:17: remark: 'scale_exact' launched with 128 threads per block instead of 256; grid at {{[0-9]+}}:3 recomputed as ((grid2) * 256 + 127) / 128 [-Rpass=block-size]
__global__ void scale_exact(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] *= 3.0f;
}
// REMARK-DAG: block-size.cu:[[@LINE+1]]:17: remark: 'per_row' launched with 128 threads per block instead of 256 [-Rpass=block-size]
__global__ void per_row(float *x, int cols) {
  for (int j = threadIdx.x; j < cols; j += blockDim.x)
    x[blockIdx.x * cols + j] = 0.0f;
}

// Refusals.
// REMARK-DAG: block-size.cu:[[@LINE+1]]:17: remark: block size of 'two_d' not changed: it uses threadIdx.y at [[@LINE+1]]:55 (a multi-dimensional block) [-Rpass-missed=block-size]
__global__ void two_d(float *x) { x[threadIdx.x * 4 + threadIdx.y] = 0.0f; }
// REMARK-DAG: block-size.cu:[[@LINE+1]]:17: remark: block size of 'magic' not changed: it uses the constant 256, its block size, at [[@LINE+1]]:50 [-Rpass-missed=block-size]
__global__ void magic(float *x) { x[blockIdx.x * 256 + threadIdx.x] = 0.0f; }
// REMARK-DAG: block-size.cu:[[@LINE+1]]:17: remark: block size of 'half_block' not changed: it compares threadIdx.x with the constant 128 at [[@LINE+1]]:44 [-Rpass-missed=block-size]
__global__ void half_block(float *x) { if (threadIdx.x < 128) x[threadIdx.x] = 0.0f; }
// REMARK-DAG: block-size.cu:[[@LINE+3]]:17: remark: block size of 'tile' not changed: the shared array 't' is indexed by thread at [[@LINE+5]]:3 but is not one element a thread [-Rpass-missed=block-size]
// REMARK-DAG: block-size.cu:[[@LINE+7]]:17: remark: block size of 'dynamic' not changed: it uses dynamic shared memory ('d') [-Rpass-missed=block-size]
// REMARK-DAG: block-size.cu:[[@LINE+11]]:17: remark: block size of 'macro_size' not changed: the size of the shared array 'm' (256 elements, one a thread) is not written as a literal [-Rpass-missed=block-size]
__global__ void tile(float *x) {
  __shared__ float t[512];
  t[threadIdx.x + blockDim.x] = x[threadIdx.x];
  x[threadIdx.x] = t[threadIdx.x];
}
__global__ void dynamic(float *x) {
  extern __shared__ float d[];
  d[threadIdx.x] = x[threadIdx.x];
  x[threadIdx.x] = d[threadIdx.x];
}
__global__ void macro_size(float *x) {
  __shared__ float m[SLOTS];
  m[threadIdx.x] = x[threadIdx.x];
  x[threadIdx.x] = m[threadIdx.x];
}
// A tree from a constant combines as many slots whatever the block size
// (with 128 threads this one would read past 'buf' and skip slots).
// REMARK-DAG: block-size.cu:[[@LINE+1]]:17: remark: block size of 'const_tree' not changed: its tree at [[@LINE+9]]:3 starts from a constant: it combines 256 threads whatever the block size [-Rpass-missed=block-size]
__global__ void const_tree(const float *x, float *out, int cols) {
  int tid = threadIdx.x;
  float s = 0;
  for (int c = tid; c < cols; c += blockDim.x)
    s += x[blockIdx.x * cols + c];
  __shared__ float buf[256];
  buf[tid] = s;
  __syncthreads();
  for (int st = 128; st > 0; st >>= 1) {
    if (tid < st) buf[tid] += buf[tid + st];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = buf[0];
}
// REMARK-DAG: block-size.cu:[[@LINE+1]]:17: remark: block size of 'unguarded' not changed: the thread index at [[@LINE+1]]:41 is not compared with a bound (the kernel may rely on the exact number of threads) [-Rpass-missed=block-size]
__global__ void unguarded(float *x) { x[blockIdx.x * blockDim.x + threadIdx.x] = 0.0f; }
// REMARK-DAG: block-size.cu:[[@LINE+1]]:17: remark: block size of 'mixed' not changed: it uses blockIdx.x both on its own and combined with blockDim.x (at [[@LINE+1]]:102) [-Rpass-missed=block-size]
__global__ void mixed(float *x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[blockIdx.x] = 0.0f; }
// REMARK-DAG: block-size.cu:[[@LINE+1]]:17: remark: block size of 'two_sizes' not changed: its launches use different block sizes (256 and 512 at {{[0-9]+}}:3) [-Rpass-missed=block-size]
__global__ void two_sizes(float *x) { x[threadIdx.x] = 0.0f; }
// REMARK-DAG: block-size.cu:[[@LINE+1]]:17: remark: block size of 'runtime_block' not changed: the block size 'threads' at {{[0-9]+}}:3 is not a compile-time constant [-Rpass-missed=block-size]
__global__ void runtime_block(float *x) { x[threadIdx.x] = 0.0f; }
// REMARK-DAG: block-size.cu:[[@LINE+1]]:17: remark: block size of 'by_pointer' not changed: the kernel is referenced other than by <<<...>>> (its block size is not visible) [-Rpass-missed=block-size]
__global__ void by_pointer(float *x) { x[threadIdx.x] = 0.0f; }
// REMARK-DAG: block-size.cu:[[@LINE+1]]:17: remark: block size of 'never_launched' not changed: the kernel is not launched in this file [-Rpass-missed=block-size]
__global__ void never_launched(float *x) { x[threadIdx.x] = 0.0f; }
// REMARK-DAG: block-size.cu:[[@LINE+1]]:17: remark: block size of 'with_smem' not changed: the launch at {{[0-9]+}}:3 passes dynamic shared memory ('1024') [-Rpass-missed=block-size]
__global__ void with_smem(float *x) { x[threadIdx.x] = 0.0f; }
// REMARK-DAG: block-size.cu:[[@LINE+1]]:17: remark: block size of 'shares_local' not changed: 'shared_block' also configures the launch of 'per_row_too' at {{[0-9]+}}:3 [-Rpass-missed=block-size]
__global__ void shares_local(float *x) { x[threadIdx.x] = 0.0f; }
// REMARK-DAG: block-size.cu:[[@LINE+1]]:17: remark: block size of 'per_row_too' not changed: 'shared_block' also configures the launch of 'shares_local' at {{[0-9]+}}:3 [-Rpass-missed=block-size]
__global__ void per_row_too(float *x) { x[threadIdx.x] = 1.0f; }

void launch(float *x, int n, int rows, int threads) {
  row_sum<<<rows, 256>>>(x, x, n);
  row_max<<<rows, 256>>>(x, x, n);
  // CHECK: const int block = 128;
  const int block = 256;
  const int grid = (n + block - 1) / block;
  scale<<<grid, block>>>(x, n);
  // CHECK: stride<<<4096, 128>>>(x, n);
  stride<<<2048, 256>>>(x, n);
  // CHECK: const int block2 = 256;
  // CHECK: scale_exact<<<((grid2) * 256 + 127) / 128, 128>>>(x, n);
  const int block2 = 256;
  const int grid2 = n / block2 + 1;
  scale_exact<<<grid2, block2>>>(x, n);
  // CHECK: dim3 rowBlock(128);
  dim3 rowBlock(256);
  per_row<<<rows, rowBlock>>>(x, n);
  two_d<<<1, dim3(256)>>>(x);
  magic<<<1, 256>>>(x);
  half_block<<<1, 256>>>(x);
  tile<<<1, 256>>>(x);
  dynamic<<<1, 256, 1024>>>(x);
  macro_size<<<1, 256>>>(x);
  unguarded<<<n / 256, 256>>>(x);
  const_tree<<<rows, 256>>>(x, x, n);
  mixed<<<n, 256>>>(x, n);
  two_sizes<<<1, 256>>>(x);
  two_sizes<<<1, 512>>>(x);
  runtime_block<<<1, threads>>>(x);
  void (*f)(float *) = by_pointer;
  (void)f;
  with_smem<<<1, 256, 1024>>>(x);
  const int shared_block = 256;
  shares_local<<<1, shared_block>>>(x);
  per_row_too<<<1, shared_block>>>(x);
}
