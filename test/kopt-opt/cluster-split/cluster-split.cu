// cluster-split: a block-per-group kernel (block-stride loops finished by
// shared-memory trees) gets a copy run by a cluster of blocks a group, each
// block a part of every loop, the blocks' totals combined across the
// cluster. Maxima, minima and integer sums by default; floating-point sums
// with reassociate=true. Every refusal says why.
// RUN: kopt-opt %s -passes=cluster-split -Rpass=cluster-split -Rpass-missed=cluster-split -o %t.cu 2>&1 | FileCheck %s --check-prefixes=CHECK,EXACT
// RUN: kopt-opt %s -passes='cluster-split{reassociate=true}' -Rpass=cluster-split -Rpass-missed=cluster-split -o %t.re.cu 2>&1 | FileCheck %s --check-prefixes=CHECK,REASSOC
// RUN: FileCheck %s --check-prefix=OUT < %t.re.cu
// RUN: grep -c "^kopt_cluster_part(long long" %t.re.cu | FileCheck %s --check-prefix=ONCE
// RUN: grep -c "^static inline bool kopt_cluster_split_fits" %t.re.cu | FileCheck %s --check-prefix=ONCE
// RUN: %if cuda-toolkit %{ %nvcc_check %t.cu %}
// RUN: %if cuda-toolkit %{ %nvcc_check %t.re.cu %}
// A second run changes nothing: the launches are kopt's own.
// RUN: kopt-opt %t.re.cu -passes='cluster-split{reassociate=true}' -o %t.again.cu
// RUN: diff %t.re.cu %t.again.cu
// RUN: kopt-opt %s -passes='cluster-split{blocks=4,reassociate=true}' -o - | FileCheck %s --check-prefix=FOUR
// RUN: kopt-opt %s -passes='cluster-split{blocks=3}' -Rpass-missed=cluster-split -o /dev/null 2>&1 | FileCheck %s --check-prefix=THREE
// RUN: kopt-opt %s --arch=sm_80 -passes=cluster-split -Rpass-missed=cluster-split -o /dev/null 2>&1 | FileCheck %s --check-prefix=ARCH
// warp-reduce still rewrites the copies' trees: the combine reads and
// writes only A[0], as a read of A[0] does.
// RUN: kopt-opt %s -passes='cluster-split{reassociate=true},warp-reduce{reassociate=true}' -Rpass=warp-reduce -o %t.warp.cu 2>&1 | FileCheck %s --check-prefix=WARP
// RUN: %if cuda-toolkit %{ %nvcc_check %t.warp.cu %}
// WARP-COUNT-8: remark: replaced the shared-memory tree over
// REQUIRES: filecheck
#include <cuda_runtime.h>

// ONCE: 1
// THREE-COUNT-3: not shared by a cluster: blocks=3 is not 2, 4 or 8 (the portable cluster sizes)
// ARCH-COUNT-3: remark: block-per-group kernel not shared by a cluster: thread-block clusters need sm_90 or newer; the file is compiled for sm_80

// A maximum through fmaxf: exact, so the default rewrites it.
// CHECK: cluster-split.cu:[[@LINE+1]]:17: remark: 'group_max_kopt_cluster' shares each block's group among a cluster of 8 blocks: 2 block-stride loops divided among them, 1 block reduction combined across the cluster; 1 launch runs it with 8x the grid when they hold fewer threads than the device [-Rpass=cluster-split]
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
// OUT: const float *row = x + (long long)kopt_group * n;
// OUT: for (int i = static_cast<int>(kopt_cluster_part(n, kopt_rank, 8u) +
// OUT-NEXT: (threadIdx.x));
// OUT-NEXT: i < static_cast<int>(kopt_cluster_part(n, kopt_rank + 1u, 8u)); i += blockDim.x)
// OUT: kopt_cluster_combine<8u>(red, [](float kopt_x, float kopt_y) { return fmaxf(kopt_x, kopt_y); });
// OUT-NEXT: const float scale

// An integer count and a float sum: the count is exact, the sum is not.
// REASSOC: cluster-split.cu:[[@LINE+1]]:17: remark: 'count_and_sum_kopt_cluster' shares each block's group among a cluster of 8 blocks: 1 block-stride loop divided among them, 2 block reductions combined across the cluster (floating-point sums in another order); 1 launch runs it with 8x the grid when they hold fewer threads than the device [-Rpass=cluster-split]
__global__ void count_and_sum(const float *x, float *sums, int *counts,
                              long long n, float cut) {
  __shared__ int cnt[256];
  __shared__ float acc[256];
  const long long base = blockIdx.x * n;
  int c = 0;
  float s = 0.0f;
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
// EXACT: cluster-split.cu:[[@LINE+1]]:3: remark: block-per-group kernel not shared by a cluster: the tree at [[@LINE+3]]:3 sums floating-point values: adding the blocks' totals rounds differently (reassociate=true) [-Rpass-missed=cluster-split]
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
// OUT: for (long long i = static_cast<long long>(kopt_cluster_part(n, kopt_rank, 8u) +
// OUT: kopt_cluster_combine<8u>(cnt, [](int kopt_x, int kopt_y) { return kopt_x + kopt_y; });
// OUT: kopt_cluster_combine<8u>(acc, [](float kopt_x, float kopt_y) { return kopt_x + kopt_y; });
// OUT: counts[kopt_group] = cnt[0];
// OUT: if (kopt_grid >= 1 && kopt_grid <= 2147483647 / 8 &&
// OUT-NEXT: kopt_cluster_split_fits(kopt_grid, 256))
// OUT-NEXT: count_and_sum_kopt_cluster<<<kopt_grid * 8, 256>>>(x, sums, counts, n, cut);
// OUT-NEXT: else
// OUT-NEXT: count_and_sum<<<kopt_grid, 256>>>(x, sums, counts, n, cut);
// FOUR: __global__ void __cluster_dims__(4, 1, 1) count_and_sum_kopt_cluster(

// A counter narrower than its bound: the original condition stays.
// CHECK: cluster-split.cu:[[@LINE+1]]:17: remark: 'group_min_kopt_cluster' shares each block's group among a cluster of 8 blocks: 1 block-stride loop divided among them, 1 block reduction combined across the cluster; 1 launch runs it with 8x the grid when they hold fewer threads than the device [-Rpass=cluster-split]
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
// OUT: for (int i = static_cast<int>(kopt_cluster_part(len, kopt_rank, 8u) +
// OUT-NEXT: (threadIdx.x));
// OUT-NEXT: (i < len) &&
// OUT-NEXT: static_cast<long long>(i) < kopt_cluster_part(len, kopt_rank + 1u, 8u); i += blockDim.x)
// OUT: kopt_cluster_combine<8u>(low, [](int kopt_x, int kopt_y) { return min(kopt_x, kopt_y); });
