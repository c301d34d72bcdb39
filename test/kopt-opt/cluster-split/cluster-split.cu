// cluster-split: a block-per-group kernel (block-stride loops that
// accumulate, then any block reduction: shared-memory trees, warp shuffles)
// gets a copy run by a cluster of blocks a group, each block a part of every
// loop, what the loops accumulate combined thread by thread across the
// cluster. Maxima, minima and integer sums by default; floating-point sums
// and selections with reassociate=true. Every refusal says why.
// RUN: kopt-opt %s -passes=cluster-split -Rpass=cluster-split -Rpass-missed=cluster-split -o %t.cu 2>&1 | FileCheck %s --check-prefixes=CHECK,EXACT
// RUN: kopt-opt %s -passes='cluster-split{reassociate=true}' -Rpass=cluster-split -Rpass-missed=cluster-split -o %t.re.cu 2>&1 | FileCheck %s --check-prefixes=CHECK,REASSOC
// RUN: FileCheck %s --check-prefix=OUT < %t.re.cu
// RUN: grep -c "^kopt_cluster_part(long long" %t.re.cu | FileCheck %s --check-prefix=ONCE
// RUN: grep -c "^kopt_cluster_combine(kopt_T" %t.re.cu | FileCheck %s --check-prefix=ONCE
// RUN: grep -c "^static inline bool kopt_cluster_split_fits" %t.re.cu | FileCheck %s --check-prefix=ONCE
// RUN: %if cuda-toolkit %{ %nvcc_check %t.cu %}
// RUN: %if cuda-toolkit %{ %nvcc_check %t.re.cu %}
// A second run changes nothing: the launches are kopt's own.
// RUN: kopt-opt %t.re.cu -passes='cluster-split{reassociate=true}' -o %t.again.cu
// RUN: diff %t.re.cu %t.again.cu
// RUN: kopt-opt %s -passes='cluster-split{blocks=4,reassociate=true}' -o - | FileCheck %s --check-prefix=FOUR
// RUN: kopt-opt %s -passes='cluster-split{blocks=3}' -Rpass-missed=cluster-split -o /dev/null 2>&1 | FileCheck %s --check-prefix=THREE
// RUN: kopt-opt %s --arch=sm_80 -passes=cluster-split -Rpass-missed=cluster-split -o /dev/null 2>&1 | FileCheck %s --check-prefix=ARCH
// warp-reduce still rewrites the copies' trees: the combine leaves them as
// they are.
// RUN: kopt-opt %s -passes='cluster-split{reassociate=true},warp-reduce{reassociate=true}' -Rpass=warp-reduce -o %t.warp.cu 2>&1 | FileCheck %s --check-prefix=WARP
// RUN: %if cuda-toolkit %{ %nvcc_check %t.warp.cu %}
// WARP-COUNT-8: remark: replaced the shared-memory tree over
// block-size still changes the copies' blocks (the combine reads threadIdx.x
// alone: launches have 1-D blocks).
// RUN: kopt-opt %s -passes='cluster-split{reassociate=true},block-size{threads=1024,reassociate=true}' -Rpass=block-size -o /dev/null 2>&1 | FileCheck %s --check-prefix=SIZE
// SIZE: remark: 'count_and_sum_kopt_cluster' launched with 1024 threads per block instead of 256
// REQUIRES: filecheck
#include <cuda_runtime.h>

// ONCE: 1
// THREE-COUNT-3: not shared by a cluster: blocks=3 is not 2, 4 or 8 (the portable cluster sizes)
// ARCH-COUNT-3: remark: block-per-group kernel not shared by a cluster: thread-block clusters need sm_90 or newer; the file is compiled for sm_80

// A maximum through fmaxf: exact, so the default rewrites it.
// CHECK: cluster-split.cu:[[@LINE+1]]:17: remark: 'group_max_kopt_cluster' shares each block's group among a cluster of 8 blocks: 2 block-stride loops divided among them, 'm' combined thread by thread across the cluster; 1 launch runs it with 8x the grid when they hold fewer threads than the device [-Rpass=cluster-split]
__global__ void group_max(const float *x, float *y, int n) {
  __shared__ float red[128];
  const float *row = x + (long long)blockIdx.x * n;
  float m = -3.0e38f;
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    m = fmaxf(m, fabsf(row[i]));
  red[threadIdx.x] = m;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + s]);
    __syncthreads();
  }
  const float scale = red[0] > 0.0f ? 1.0f / red[0] : 0.0f;
  float *out = y + (long long)blockIdx.x * n;
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    out[i] = row[i] * scale;
}

void run_group_max(const float *x, float *y, int groups, int n,
                   cudaStream_t s) {
  group_max<<<groups, 128, 0, s>>>(x, y, n);
}

// OUT-LABEL: __global__ void __cluster_dims__(8, 1, 1) group_max_kopt_cluster(
// OUT: const unsigned kopt_group = blockIdx.x / 8u;
// OUT-NEXT: const unsigned kopt_rank = blockIdx.x % 8u;
// OUT-NEXT: __shared__ float kopt_cluster_buf0[1024];
// OUT: const float *row = x + (long long)kopt_group * n;
// OUT-NEXT: float m = -3.0e38f;
// OUT-NEXT: for (int i = static_cast<int>(kopt_cluster_part(n, kopt_rank, 8u, blockDim.x) +
// OUT-NEXT: (threadIdx.x));
// OUT-NEXT: i < static_cast<int>(kopt_cluster_part(n, kopt_rank + 1u, 8u, blockDim.x)); i += blockDim.x)
// OUT-NEXT: m = fmaxf(m, fabsf(row[i]));
// OUT-NEXT: m = kopt_cluster_combine<8u>(kopt_cluster_buf0, m, [](float kopt_x, float kopt_y) { return fmaxf(kopt_x, kopt_y); });
// OUT-NEXT: red[threadIdx.x] = m;

// An integer count and a float sum: the count is exact, the sum is not.
// REASSOC: cluster-split.cu:[[@LINE+1]]:17: remark: 'count_and_sum_kopt_cluster' shares each block's group among a cluster of 8 blocks: 1 block-stride loop divided among them, 'c', 's' combined thread by thread across the cluster (floating-point values in another order); 1 launch runs it with 8x the grid when they hold fewer threads than the device [-Rpass=cluster-split]
__global__ void count_and_sum(const float *x, float *sums, int *counts,
                              long long n, float cut) {
  __shared__ int cnt[256];
  __shared__ float acc[256];
  const long long base = blockIdx.x * n;
  int c = 0;
  float s = 0.0f;
// EXACT: cluster-split.cu:[[@LINE+1]]:3: remark: block-per-group kernel not shared by a cluster: the loop at [[@LINE+1]]:3 sums the floating-point 's': adding the blocks' parts rounds differently (reassociate=true) [-Rpass-missed=cluster-split]
  for (long long i = threadIdx.x; i < n; i += blockDim.x) {
    const float v = x[base + i];
    if (v > cut)
      ++c;
    s += v;
  }
  cnt[threadIdx.x] = c;
  __syncthreads();
  for (unsigned k = blockDim.x / 2; k > 0; k >>= 1) {
    if (threadIdx.x < k)
      cnt[threadIdx.x] += cnt[threadIdx.x + k];
    __syncthreads();
  }
  acc[threadIdx.x] = s;
  __syncthreads();
  for (unsigned k = blockDim.x / 2; k > 0; k >>= 1) {
    if (threadIdx.x < k)
      acc[threadIdx.x] += acc[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    counts[blockIdx.x] = cnt[0];
    sums[blockIdx.x] = acc[0];
  }
}

void run_count_and_sum(const float *x, float *sums, int *counts, int groups,
                       long long n, float cut) {
  count_and_sum<<<groups, 256>>>(x, sums, counts, n, cut);
}

// OUT-LABEL: count_and_sum_kopt_cluster(
// OUT: __shared__ int kopt_cluster_buf0[1024];
// OUT-NEXT: __shared__ float kopt_cluster_buf1[1024];
// OUT: if (kopt_rank != 0u)
// OUT-NEXT: c = 0;
// OUT-NEXT: if (kopt_rank != 0u)
// OUT-NEXT: s = 0;
// OUT-NEXT: for (long long i = static_cast<long long>(kopt_cluster_part(n, kopt_rank, 8u, blockDim.x) +
// OUT: c = kopt_cluster_combine<8u>(kopt_cluster_buf0, c, [](int kopt_x, int kopt_y) { return kopt_x + kopt_y; });
// OUT-NEXT: s = kopt_cluster_combine<8u>(kopt_cluster_buf1, s, [](float kopt_x, float kopt_y) { return kopt_x + kopt_y; });
// OUT: counts[kopt_group] = cnt[0];
// OUT: if (kopt_grid >= 1 && kopt_grid <= 2147483647 / 8 &&
// OUT-NEXT: kopt_cluster_split_fits(kopt_grid, 256))
// OUT-NEXT: count_and_sum_kopt_cluster<<<kopt_grid * 8, 256>>>(x, sums, counts, n, cut);
// OUT-NEXT: else
// OUT-NEXT: count_and_sum<<<kopt_grid, 256>>>(x, sums, counts, n, cut);
// FOUR: __global__ void __cluster_dims__(4, 1, 1) count_and_sum_kopt_cluster(

// A counter narrower than its bound: the original condition stays.
// CHECK: cluster-split.cu:[[@LINE+1]]:17: remark: 'group_min_kopt_cluster' shares each block's group among a cluster of 8 blocks: 1 block-stride loop divided among them, 'm' combined thread by thread across the cluster; 1 launch runs it with 8x the grid when they hold fewer threads than the device [-Rpass=cluster-split]
__global__ void group_min(const int *x, int *y, long long len) {
  __shared__ int low[64];
  int m = 2147483647;
  for (int i = threadIdx.x; i < len; i += blockDim.x)
    m = min(m, x[blockIdx.x * len + i]);
  low[threadIdx.x] = m;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      low[threadIdx.x] = min(low[threadIdx.x], low[threadIdx.x + s]);
    __syncthreads();
  }
  if (threadIdx.x == 0)
    y[blockIdx.x] = low[0];
}

void run_group_min(const int *x, int *y, int groups, long long len) {
  group_min<<<groups, 64>>>(x, y, len);
}

// OUT-LABEL: group_min_kopt_cluster(
// OUT: for (int i = static_cast<int>(kopt_cluster_part(len, kopt_rank, 8u, blockDim.x) +
// OUT-NEXT: (threadIdx.x));
// OUT-NEXT: (i < len) &&
// OUT-NEXT: static_cast<long long>(i) < kopt_cluster_part(len, kopt_rank + 1u, 8u, blockDim.x); i += blockDim.x)
// OUT: m = kopt_cluster_combine<8u>(kopt_cluster_buf0, m, [](int kopt_x, int kopt_y) { return min(kopt_x, kopt_y); });

// A group norm as modern code writes it: warp shuffles and a shared array
// of the warps' totals, shared scalars read in the last loop, a sum that
// starts at a bias (rank 0 keeps it), and each thread's partial stored as
// well: after the combine thread t of every block holds what thread t of
// the original held, so all of it is the same.
// REASSOC: cluster-split.cu:[[@LINE+7]]:17: remark: 'group_norm_kopt_cluster' shares each block's group among a cluster of 8 blocks: 2 block-stride loops divided among them, 's', 'q' combined thread by thread across the cluster (floating-point values in another order); 1 launch runs it with 8x the grid when they hold fewer threads than the device [-Rpass=cluster-split]
// EXACT: cluster-split.cu:[[@LINE+12]]:3: remark: block-per-group kernel not shared by a cluster: the loop at [[@LINE+12]]:3 sums the floating-point 's': adding the blocks' parts rounds differently (reassociate=true) [-Rpass-missed=cluster-split]
__device__ float warp_sum(float v) {
  for (int o = 16; o > 0; o >>= 1)
    v += __shfl_down_sync(0xffffffffu, v, o);
  return v;
}
__global__ void group_norm(const float *x, float *y, float *partials,
                           float bias, int n) {
  __shared__ float warps[32];
  __shared__ float mean_s, rstd_s;
  const float *in = x + (long long)blockIdx.x * n;
  float s = bias, q = 0.0f;
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    s += in[i];
    q += in[i] * in[i];
  }
  partials[blockIdx.x * blockDim.x + threadIdx.x] = s;
  s = warp_sum(s);
  q = warp_sum(q);
  if (threadIdx.x % 32 == 0) {
    warps[threadIdx.x / 32] = s;
    warps[threadIdx.x / 32 + 16] = q;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    float ts = 0.0f, tq = 0.0f;
    for (unsigned w = 0; w < blockDim.x / 32; ++w) {
      ts += warps[w];
      tq += warps[w + 16];
    }
    mean_s = ts / n;
    rstd_s = rsqrtf(tq / n - mean_s * mean_s + 1e-5f);
  }
  __syncthreads();
  float *out = y + (long long)blockIdx.x * n;
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    out[i] = (in[i] - mean_s) * rstd_s;
}

// A float maximum kept by comparison: reassociate=true (-0.0 and +0.0).
// REASSOC: cluster-split.cu:[[@LINE+2]]:17: remark: 'group_top_kopt_cluster' shares each block's group among a cluster of 8 blocks: 1 block-stride loop divided among them, 'm' combined thread by thread across the cluster (floating-point values in another order); 1 launch runs it with 8x the grid when they hold fewer threads than the device [-Rpass=cluster-split]
// EXACT: cluster-split.cu:[[@LINE+4]]:3: remark: block-per-group kernel not shared by a cluster: the loop at [[@LINE+4]]:3 keeps the floating-point 'm' by comparison: which of two equal values (-0.0, +0.0) it keeps depends on the order (reassociate=true) [-Rpass-missed=cluster-split]
__global__ void group_top(const float *x, float *y, long long n) {
  __shared__ float red[512];
  float m = -3.0e38f;
  for (long long i = threadIdx.x; i < n; i += blockDim.x)
    if (x[blockIdx.x * n + i] > m)
      m = x[blockIdx.x * n + i];
  red[threadIdx.x] = m;
  __syncthreads();
  for (int k = 256; k > 0; k >>= 1) {
    if (threadIdx.x < k)
      red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + k]);
    __syncthreads();
  }
  if (threadIdx.x == 0)
    y[blockIdx.x] = red[0];
}

void run_more(const float *x, float *y, float *p, int groups, int n) {
  group_norm<<<groups, 512>>>(x, y, p, 0.5f, n);
  group_top<<<groups, 512>>>(x, y, n);
}

// OUT-LABEL: group_norm_kopt_cluster(
// OUT: float s = bias, q = 0.0f;
// OUT-NEXT: if (kopt_rank != 0u)
// OUT-NEXT: s = 0;
// OUT-NEXT: if (kopt_rank != 0u)
// OUT-NEXT: q = 0;
// OUT: s = kopt_cluster_combine<8u>(kopt_cluster_buf0, s, [](float kopt_x, float kopt_y) { return kopt_x + kopt_y; });
// OUT-NEXT: q = kopt_cluster_combine<8u>(kopt_cluster_buf0, q, [](float kopt_x, float kopt_y) { return kopt_x + kopt_y; });
// OUT-NEXT: partials[kopt_group * blockDim.x + threadIdx.x] = s;
// OUT: out[i] = (in[i] - mean_s) * rstd_s;
// OUT-LABEL: group_top_kopt_cluster(
// OUT: m = kopt_cluster_combine<8u>(kopt_cluster_buf0, m, [](float kopt_x, float kopt_y) { return kopt_y > kopt_x ? kopt_y : kopt_x; });
