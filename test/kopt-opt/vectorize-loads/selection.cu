// A block-stride loop carrying a first-index argmax (v, idx) into a
// (value, index) tree: vectorized without reassociate=true, because the
// block's result does not depend on which thread visits which element.
// RUN: kopt-opt %s -passes=vectorize-loads -Rpass=vectorize-loads -Rpass-missed=vectorize-loads -o %t.cu 2>&1 | FileCheck %s
// RUN: FileCheck %s --check-prefix=OUT < %t.cu
// RUN: %if cuda-toolkit %{ %nvcc_check %t.cu %}
// -O: vectorize-loads runs before warp-reduce, which then takes the tree.
// RUN: kopt-opt %s -O -Rpass='vectorize-loads|warp-reduce' -o %t-O.cu 2>&1 | FileCheck %s --check-prefix=PIPE
// RUN: %if cuda-toolkit %{ %nvcc_check %t-O.cu %}
// REQUIRES: filecheck
#include <cuda_runtime.h>

// CHECK-DAG: selection.cu:[[@LINE+9]]:3: remark: vectorized the block-stride loop: 'x' as float4 (4 x float); the first-index maximum ('v', 'idx') is exact whatever thread visits which element [-Rpass=vectorize-loads]
// PIPE-DAG: selection.cu:[[@LINE+8]]:3: remark: vectorized the block-stride loop: 'x' as float4 (4 x float); the first-index maximum
__global__ void argmax_rows(const float *x, int *out, int n) {
  __shared__ float bv[256];
  __shared__ int bi[256];
  const int row = blockIdx.x;
  const int t = threadIdx.x;
  float v = -INFINITY;
  int idx = n;
  for (int j = t; j < n; j += blockDim.x) {
    float e = x[row * n + j];
    if (e > v) {
      v = e;
      idx = j;
    }
  }
  bv[t] = v;
  bi[t] = idx;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (t < s) {
      float ov = bv[t + s];
      int oi = bi[t + s];
      if (ov > bv[t] || (ov == bv[t] && oi < bi[t])) {
        bv[t] = ov;
        bi[t] = oi;
      }
    }
    __syncthreads();
  }
  if (t == 0)
    out[row] = bi[0];
}
// The index each element had, in increasing order within the thread.
// OUT-LABEL: __global__ void argmax_rows(
// OUT:      for (int kopt_v = t; kopt_v < kopt_n / 4; kopt_v += blockDim.x) {
// OUT-NEXT:   const float4 kopt_vec_x = reinterpret_cast<const float4 *>(x + (row * n))[kopt_v];
// OUT:          const int j = kopt_v * 4 + kopt_e;
// OUT-NEXT:     float e = reinterpret_cast<const float *>(&kopt_vec_x)[kopt_e];
// OUT:      for (int j = kopt_n / 4 * 4 + t; j < kopt_n; j += blockDim.x) {
// PIPE-DAG: remark: replaced the (value, index) tree over 'bv', 'bi' (first-index max, float, int) {{.*}} [-Rpass=warp-reduce]

// An argmin of bf16-sized ints: 8 per vector.
// CHECK-DAG: selection.cu:[[@LINE+6]]:3: remark: vectorized the block-stride loop: 'x' as uint4 (8 x short); the first-index minimum ('v', 'idx') is exact
__global__ void argmin_short(const short *x, int *out, int n) {
  __shared__ short bv[64];
  __shared__ int bi[64];
  short v = 32767;
  int idx = n;
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    if (x[j] < v) {
      v = x[j];
      idx = j;
    }
  bv[threadIdx.x] = v;
  bi[threadIdx.x] = idx;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) {
      short ov = bv[threadIdx.x + s];
      int oi = bi[threadIdx.x + s];
      if (ov < bv[threadIdx.x] || (ov == bv[threadIdx.x] && oi < bi[threadIdx.x])) {
        bv[threadIdx.x] = ov;
        bi[threadIdx.x] = oi;
      }
    }
    __syncthreads();
  }
  if (threadIdx.x == 0)
    *out = bi[0];
}

// 96 threads: the tree combines a partition-dependent subset.
// CHECK-DAG: selection.cu:[[@LINE+6]]:3: remark: block-stride loop not vectorized: it selects a first-index maximum, which only a tree over a power-of-two block combines the same way whatever thread saw which element: the launch at {{[0-9]+}}:3 uses 96 threads: {{.*}}
__global__ void odd_block(const float *x, int *out, int n) {
  __shared__ float bv[96];
  __shared__ int bi[96];
  float v = -INFINITY;
  int idx = n;
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    if (x[j] > v) {
      v = x[j];
      idx = j;
    }
  bv[threadIdx.x] = v;
  bi[threadIdx.x] = idx;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) {
      float ov = bv[threadIdx.x + s];
      int oi = bi[threadIdx.x + s];
      if (ov > bv[threadIdx.x] || (ov == bv[threadIdx.x] && oi < bi[threadIdx.x])) {
        bv[threadIdx.x] = ov;
        bi[threadIdx.x] = oi;
      }
    }
    __syncthreads();
  }
  if (threadIdx.x == 0)
    *out = bi[0];
}

// A grid-stride loop: each block's result depends on which elements its
// threads visit, which vectorizing changes.
// CHECK-DAG: selection.cu:[[@LINE+8]]:{{[0-9]+}}: remark: grid-stride loop not vectorized: the loop carries 'v', 'idx' from one element to the next; {{.*}}(reassociate=true allows it) [-Rpass-missed=vectorize-loads]
__global__ void grid_stride(const float *x, float *bvs, int *bis, int n) {
  __shared__ float bv[128];
  __shared__ int bi[128];
  float v = -INFINITY;
  int idx = n;
  for (int j = blockIdx.x * blockDim.x + threadIdx.x; j < n;
       j += gridDim.x * blockDim.x)
    if (x[j] > v) {
      v = x[j];
      idx = j;
    }
  bv[threadIdx.x] = v;
  bi[threadIdx.x] = idx;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) {
      float ov = bv[threadIdx.x + s];
      int oi = bi[threadIdx.x + s];
      if (ov > bv[threadIdx.x] || (ov == bv[threadIdx.x] && oi < bi[threadIdx.x])) {
        bv[threadIdx.x] = ov;
        bi[threadIdx.x] = oi;
      }
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    bvs[blockIdx.x] = bv[0];
    bis[blockIdx.x] = bi[0];
  }
}

// The running maximum alone, without its index and tree: a plain carried
// value, as before.
// CHECK-DAG: selection.cu:[[@LINE+4]]:5: remark: block-stride loop not vectorized: the loop carries 'v' from one element to the next; {{.*}}
__global__ void max_only(const float *x, float *out, int n) {
  float v = -INFINITY;
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    v = fmaxf(v, x[j]);
  out[threadIdx.x] = v;
}

void launch(const float *x, const short *s, float *f, int *out, int rows,
            int n) {
  argmax_rows<<<rows, 256>>>(x, out, n);
  argmin_short<<<1, 64>>>(s, out, n);
  odd_block<<<1, 96>>>(x, out, n);
  grid_stride<<<8, 128>>>(x, f, out, n);
  max_only<<<1, 128>>>(x, f, n);
}
