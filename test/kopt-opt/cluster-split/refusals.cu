// cluster-split's refusals: each kernel is a block-per-group reduction with
// one thing that a cluster of blocks would compute differently, and the
// missed remark says which.
// RUN: kopt-opt %s -passes='cluster-split{reassociate=true}' -Rpass=cluster-split -Rpass-missed=cluster-split -o %t.cu 2>&1 | FileCheck %s --implicit-check-not='remark:'
// RUN: diff %s %t.cu
// REQUIRES: filecheck
#include <cuda_runtime.h>

// A sum that starts at 1 would be added once a block.
__global__ void starts_at_one(const float *x, float *y, int n) {
  __shared__ float a[256];
  float s = 1.0f;
// CHECK: refusals.cu:[[@LINE+1]]:3: remark: block-per-group kernel not shared by a cluster: the sum 's' starts at '1.0f', not 0: each block of the cluster would add it again [-Rpass-missed=cluster-split]
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
    y[blockIdx.x] = a[0];
}

// The thread's partial sum is stored: only the group's total is the same.
__global__ void partial_used(const float *x, float *y, float *parts, int n) {
  __shared__ float a[256];
  float s = 0.0f;
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    s += x[(long long)blockIdx.x * n + i];
// CHECK: refusals.cu:[[@LINE+1]]:50: remark: block-per-group kernel not shared by a cluster: 's' is used at [[@LINE+1]]:50 ('parts[blockIdx.x * blockDim.x + threadIdx.x] = s') other than as the value one block reduction after the loop reduces: a block holds only its part of it [-Rpass-missed=cluster-split]
  parts[blockIdx.x * blockDim.x + threadIdx.x] = s;
  a[threadIdx.x] = s;
  __syncthreads();
  for (int k = blockDim.x / 2; k > 0; k >>= 1) {
    if (threadIdx.x < k)
      a[threadIdx.x] += a[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    y[blockIdx.x] = a[0];
}

// The loop stores before the reduction is combined.
__global__ void stores_early(const float *x, float *y, float *sums, int n) {
  __shared__ float a[256];
  float s = 0.0f;
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    s += x[(long long)blockIdx.x * n + i];
// CHECK: refusals.cu:[[@LINE+1]]:5: remark: block-per-group kernel not shared by a cluster: the loop at [[@LINE-2]]:3 stores to memory before the block reduction at [[@LINE+5]]:3: only loops after the last reduction may store, when the whole cluster has read what it needs [-Rpass-missed=cluster-split]
    y[(long long)blockIdx.x * n + i] = 0.0f;
  }
  a[threadIdx.x] = s;
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

// The tree sums a value every block holds alike.
__global__ void sums_threads(const float *x, float *y, int n) {
  __shared__ float a[256];
// CHECK: refusals.cu:[[@LINE+1]]:3: remark: block-per-group kernel not shared by a cluster: the tree at [[@LINE+3]]:3 sums 'x[threadIdx.x]', which is not the sum of a block-stride loop: every block of the cluster would add it [-Rpass-missed=cluster-split]
  a[threadIdx.x] = x[threadIdx.x];
  __syncthreads();
  for (int k = blockDim.x / 2; k > 0; k >>= 1) {
    if (threadIdx.x < k)
      a[threadIdx.x] += a[threadIdx.x + k];
    __syncthreads();
  }
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    y[(long long)blockIdx.x * n + i] = a[0];
}

// A maximum reduced by a sum tree.
__global__ void other_operation(const float *x, float *y, int n) {
  __shared__ float a[256];
  float m = -3.0e38f;
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    m = fmaxf(m, x[(long long)blockIdx.x * n + i]);
// CHECK: refusals.cu:[[@LINE+1]]:3: remark: block-per-group kernel not shared by a cluster: the tree at [[@LINE+3]]:3 reduces 'm' with another operation than the loop accumulates it with [-Rpass-missed=cluster-split]
  a[threadIdx.x] = m;
  __syncthreads();
  for (int k = blockDim.x / 2; k > 0; k >>= 1) {
    if (threadIdx.x < k)
      a[threadIdx.x] += a[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    y[blockIdx.x] = a[0];
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

// No tree: nothing to combine (split-grid's and row-reduce's kind of kernel).
// CHECK: refusals.cu:[[@LINE+1]]:17: remark: block-per-group kernel not shared by a cluster: no block reduction (a tree in shared memory) whose totals the cluster could combine [-Rpass-missed=cluster-split]
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
  starts_at_one<<<g, 256>>>(x, y, n);
  partial_used<<<g, 256>>>(x, y, z, n);
  stores_early<<<g, 256>>>(x, y, z, n);
  atomic_total<<<g, 256>>>(x, y, n);
  sums_threads<<<g, 256>>>(x, y, n);
  other_operation<<<g, 256>>>(x, y, n);
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
