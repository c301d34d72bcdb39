// cluster-split's refusals: each kernel is a block-per-group reduction with
// one thing that a cluster of blocks would compute differently, and the
// missed remark says which.
// RUN: kopt-opt %s -passes='cluster-split{reassociate=true}' -Rpass=cluster-split -Rpass-missed=cluster-split -o %t.cu 2>&1 | FileCheck %s --implicit-check-not='remark:'
// RUN: diff %s %t.cu
// REQUIRES: filecheck
#include <cuda_runtime.h>

// The loop stores before another loop is combined: another block of the
// cluster may still read what it overwrites.
__global__ void stores_early(const float *x, float *y, float *sums, int n) {
  __shared__ float a[256];
  float s = 0.0f, t = 0.0f;
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    s += x[(long long)blockIdx.x * n + i];
// CHECK: refusals.cu:[[@LINE+1]]:5: remark: block-per-group kernel not shared by a cluster: the loop at [[@LINE-2]]:3 stores to memory before the loop at [[@LINE+3]]:3 is combined across the cluster: only the last combined loop and loops after it may store, when the whole cluster has read what it needs [-Rpass-missed=cluster-split]
    y[(long long)blockIdx.x * n + i] = 0.0f;
  }
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    t = fmaxf(t, x[(long long)blockIdx.x * n + i]);
  a[threadIdx.x] = s + t;
  __syncthreads();
  for (int k = blockDim.x / 2; k > 0; k >>= 1) {
    if (threadIdx.x < k)
      a[threadIdx.x] += a[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    sums[blockIdx.x] = a[0];
}

// An atomic outside the loops would run once a block of the cluster.
__global__ void atomic_total(const float *x, float *total, int n) {
  __shared__ float a[256];
  float s = 0.0f;
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    s += x[(long long)blockIdx.x * n + i];
  a[threadIdx.x] = s;
  __syncthreads();
  for (int k = blockDim.x / 2; k > 0; k >>= 1) {
    if (threadIdx.x < k)
      a[threadIdx.x] += a[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0)
// CHECK: refusals.cu:[[@LINE+1]]:5: remark: block-per-group kernel not shared by a cluster: 'atomicAdd(total, a[0])' updates memory outside the block-stride loops: every block of the cluster would do it [-Rpass-missed=cluster-split]
    atomicAdd(total, a[0]);
}

// A loop that writes shared memory: each block would fill only its part.
__global__ void writes_shared(const float *x, float *y, int n) {
  __shared__ float row[4096];
  float m = -3.0e38f;
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
// CHECK: refusals.cu:[[@LINE+1]]:5: remark: block-per-group kernel not shared by a cluster: the block-stride loop at [[@LINE-1]]:3 writes or passes the shared 'row' (each block would hold only its part) ('row') [-Rpass-missed=cluster-split]
    row[i] = x[(long long)blockIdx.x * n + i];
    m = fmaxf(m, row[i]);
  }
  if (threadIdx.x == 0)
    y[blockIdx.x] = m;
}

// A helper that waits at a barrier, called in a loop the cluster divides.
__device__ float synced(float v) {
  __syncthreads();
  return v;
}
__global__ void barrier_helper(const float *x, float *y, int n) {
  float m = -3.0e38f;
  for (int i = threadIdx.x; i < n; i += blockDim.x)
// CHECK: refusals.cu:[[@LINE+1]]:18: remark: block-per-group kernel not shared by a cluster: it calls 'synced', which waits at a barrier, in a block-stride loop the cluster divides [-Rpass-missed=cluster-split]
    m = fmaxf(m, synced(x[(long long)blockIdx.x * n + i]));
  if (threadIdx.x == 0)
    y[blockIdx.x] = m;
}

// The store loop reads a neighbour of what it stores.
__global__ void reads_neighbour(const float *x, float *y, int n) {
  __shared__ float a[256];
  float s = 0.0f;
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    s += x[(long long)blockIdx.x * n + i];
  a[threadIdx.x] = s;
  __syncthreads();
  for (int k = blockDim.x / 2; k > 0; k >>= 1) {
    if (threadIdx.x < k)
      a[threadIdx.x] += a[threadIdx.x + k];
    __syncthreads();
  }
  float *out = y + (long long)blockIdx.x * n;
  for (int i = threadIdx.x; i < n; i += blockDim.x)
// CHECK: refusals.cu:[[@LINE+1]]:23: remark: block-per-group kernel not shared by a cluster: 'out[i - 1]' reads memory the kernel writes ('y'): another block of the cluster may write it [-Rpass-missed=cluster-split]
    out[i] = (i > 0 ? out[i - 1] : 0.0f) + a[0];
}

// A helper that reads blockIdx would see the cluster's block, not the group.
__device__ float weight() { return 1.0f / (1 + blockIdx.x); }
__global__ void calls_helper(const float *x, float *y, int n) {
  __shared__ float a[256];
  float s = 0.0f;
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    s += x[(long long)blockIdx.x * n + i];
  a[threadIdx.x] = s;
  __syncthreads();
  for (int k = blockDim.x / 2; k > 0; k >>= 1) {
    if (threadIdx.x < k)
      a[threadIdx.x] += a[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0)
// CHECK: refusals.cu:[[@LINE+1]]:28: remark: block-per-group kernel not shared by a cluster: it calls 'weight', which reads blockIdx or gridDim: the cluster's blocks would each see their own [-Rpass-missed=cluster-split]
    y[blockIdx.x] = a[0] * weight();
}

// Nothing accumulated: nothing to combine (split-grid's kind of kernel).
// CHECK: refusals.cu:[[@LINE+1]]:17: remark: block-per-group kernel not shared by a cluster: no block-stride loop accumulates a sum, maximum or minimum for the cluster to combine (an element-wise kernel: split-grid's kind) [-Rpass-missed=cluster-split]
__global__ void no_tree(const float *x, float *y, int n) {
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    y[(long long)blockIdx.x * n + i] = 2.0f * x[(long long)blockIdx.x * n + i];
}

// A tree but no block-stride loop: each thread reduces one element.
// CHECK: refusals.cu:[[@LINE+1]]:17: remark: block-per-group kernel not shared by a cluster: no block-stride loop (`for (i = threadIdx.x; i < n; i += blockDim.x)`) to divide among the cluster's blocks [-Rpass-missed=cluster-split]
__global__ void no_loop(const int *x, int *y) {
  __shared__ int a[256];
  a[threadIdx.x] = x[blockIdx.x * blockDim.x + threadIdx.x];
  __syncthreads();
  for (int k = blockDim.x / 2; k > 0; k >>= 1) {
    if (threadIdx.x < k)
      a[threadIdx.x] = max(a[threadIdx.x], a[threadIdx.x + k]);
    __syncthreads();
  }
  if (threadIdx.x == 0)
    y[blockIdx.x] = a[0];
}

// A dim3 grid: the launch cannot be scaled.
__global__ void grid_dim3(const int *x, int *y, int n) {
  __shared__ int a[256];
  int m = 0;
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    m = max(m, x[blockIdx.x * n + i]);
  a[threadIdx.x] = m;
  __syncthreads();
  for (int k = blockDim.x / 2; k > 0; k >>= 1) {
    if (threadIdx.x < k)
      a[threadIdx.x] = max(a[threadIdx.x], a[threadIdx.x + k]);
    __syncthreads();
  }
  if (threadIdx.x == 0)
    y[blockIdx.x] = a[0];
}

void run_all(const float *x, float *y, float *z, int *xi, int *yi, int g,
             int n) {
  stores_early<<<g, 256>>>(x, y, z, n);
  atomic_total<<<g, 256>>>(x, y, n);
  writes_shared<<<g, 256>>>(x, y, n);
  barrier_helper<<<g, 256>>>(x, y, n);
  reads_neighbour<<<g, 256>>>(x, y, n);
  calls_helper<<<g, 256>>>(x, y, n);
  no_tree<<<g, 256>>>(x, y, n);
  no_loop<<<g, 256>>>(xi, yi);
// CHECK: refusals.cu:[[@LINE+1]]:3: remark: block-per-group kernel not shared by a cluster: the launch at [[@LINE+1]]:3 {{.*}}dim3{{.*}} [-Rpass-missed=cluster-split]
  grid_dim3<<<dim3(g, 1, 1), 256>>>(xi, yi, n);
}

// A read through '->' of a pointer the kernel writes.
struct Stats {
  float sum, count;
};
__global__ void reads_struct(const float *x, Stats *st, int n) {
  __shared__ float a[256];
  float s = 0.0f;
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    s += x[(long long)blockIdx.x * n + i];
  a[threadIdx.x] = s;
  __syncthreads();
  for (int k = blockDim.x / 2; k > 0; k >>= 1) {
    if (threadIdx.x < k)
      a[threadIdx.x] += a[threadIdx.x + k];
    __syncthreads();
  }
  Stats *mine = st + blockIdx.x;
  if (threadIdx.x == 0)
    mine->sum = a[0];
  __syncthreads();
// CHECK: refusals.cu:[[@LINE+1]]:21: remark: block-per-group kernel not shared by a cluster: 'mine->sum' reads memory the kernel writes ('st'): another block of the cluster may write it [-Rpass-missed=cluster-split]
  mine->count = n / mine->sum;
}

void run_struct(const float *x, Stats *st, int g, int n) {
  reads_struct<<<g, 256>>>(x, st, n);
}
