// First-index argmax/argmin trees over a (value, index) pair: rewritten
// without reassociate=true when only selection updates set the pair.
// RUN: kopt-opt %s -passes=warp-reduce -Rpass=warp-reduce -Rpass-missed=warp-reduce -o %t.cu 2>&1 | FileCheck %s
// RUN: FileCheck %s --check-prefix=OUT < %t.cu
// RUN: %if cuda-toolkit %{ %nvcc_check %t.cu %}
// Run again on the output: nothing left to rewrite, the text stays.
// RUN: kopt-opt %t.cu -passes=warp-reduce -o %t2.cu
// RUN: diff %t.cu %t2.cu
// REQUIRES: filecheck
#include <cuda_runtime.h>

// The argmax of each row, with partner locals in the tree step.
// CHECK-DAG: selection.cu:[[@LINE+17]]:3: remark: replaced the (value, index) tree over 'bv', 'bi' (first-index max, float, int) with __shfl_xor_sync warp reductions and one slot per warp, for blocks of 128 threads; exact: only first-index selection updates set the pairs, so any order keeps the same one [-Rpass=warp-reduce]
__global__ void argmax_rows(const float *x, int *out, int n) {
  __shared__ float bv[128];
  __shared__ int bi[128];
  const int t = threadIdx.x;
  float v = -INFINITY;
  int idx = n;
  for (int j = t; j < n; j += blockDim.x) {
    float e = x[blockIdx.x * n + j];
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
    out[blockIdx.x] = bi[0];
}
// OUT-LABEL: __global__ void argmax_rows(
// OUT:      // kopt warp-reduce (first-index max): shuffles in each warp, then over the warp slots
// OUT-NEXT: float kopt_wv = v;
// OUT-NEXT: int kopt_wi = idx;
// OUT-NEXT: for (int kopt_o = 16; kopt_o > 0; kopt_o >>= 1)
// OUT-NEXT: {
// OUT-NEXT:   float kopt_ov = __shfl_xor_sync(0xffffffffu, kopt_wv, kopt_o);
// OUT-NEXT:   int kopt_oi = __shfl_xor_sync(0xffffffffu, kopt_wi, kopt_o);
// OUT-NEXT:   if (kopt_ov > kopt_wv || (kopt_ov == kopt_wv && kopt_oi < kopt_wi)) {
// OUT:      bv[threadIdx.x / 32] = kopt_wv;
// OUT-NEXT: bi[threadIdx.x / 32] = kopt_wi;
// OUT:      for (int kopt_o = blockDim.x / 64; kopt_o > 0; kopt_o >>= 1)
// OUT:      bv[0] = kopt_wv;
// OUT-NEXT: bi[0] = kopt_wi;
// OUT:      __syncthreads();
// OUT-NEXT: }
// OUT-NEXT: if (t == 0)

// An argmin without locals: the partner's slots read directly, the value
// read after the tree too (one block-stride loop: indices are disjoint).
// CHECK-DAG: selection.cu:[[@LINE+15]]:3: remark: replaced the (value, index) tree over 'mv', 'mi' (first-index min, double, long) {{.*}} for blocks of 64 threads; exact
__global__ void argmin_rows(const double *x, long *where, double *least,
                            long n) {
  __shared__ double mv[64];
  __shared__ long mi[64];
  double v = 1e300;
  long idx = -1;
  for (long j = threadIdx.x; j < n; j += blockDim.x)
    if (x[j] < v) {
      v = x[j];
      idx = j;
    }
  mi[threadIdx.x] = idx;
  mv[threadIdx.x] = v;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) {
      if (mv[threadIdx.x + s] < mv[threadIdx.x] ||
          (mv[threadIdx.x] == mv[threadIdx.x + s] &&
           mi[threadIdx.x] > mi[threadIdx.x + s])) {
        mi[threadIdx.x] = mi[threadIdx.x + s];
        mv[threadIdx.x] = mv[threadIdx.x + s];
      }
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    *where = mi[0];
    *least = mv[0];
  }
}
// OUT-LABEL: __global__ void argmin_rows(
// OUT: double kopt_wv = v;
// OUT: long kopt_wi = idx;
// OUT: if (kopt_ov < kopt_wv || (kopt_ov == kopt_wv && kopt_oi < kopt_wi)) {

// Ties kept at the higher index: not the shape (the loop keeps the first).
// CHECK-DAG: selection.cu:[[@LINE+14]]:3: remark: tree not rewritten: the (value, index) tree step is not {{.*}}
__global__ void last_index(const float *x, int *out, int n) {
  __shared__ float bv[128];
  __shared__ int bi[128];
  float v = -INFINITY;
  int idx = -1;
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
      if (ov > bv[threadIdx.x] || (ov == bv[threadIdx.x] && oi > bi[threadIdx.x])) {
        bv[threadIdx.x] = ov;
        bi[threadIdx.x] = oi;
      }
    }
    __syncthreads();
  }
  if (threadIdx.x == 0)
    *out = bi[0];
}

// '>=' in the loop keeps the last of equal values: not a selection update.
// CHECK-DAG: selection.cu:[[@LINE+14]]:3: remark: tree not rewritten: 'v', 'idx' are used at [[@LINE+7]]:17 other than by a selection 'if (e > v) { v = e; idx = j; }' and the stores before the tree [-Rpass-missed=warp-reduce]
__global__ void greater_equal(const float *x, int *out, int n) {
  __shared__ float bv[128];
  __shared__ int bi[128];
  float v = -INFINITY;
  int idx = -1;
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    if (x[j] >= v) {
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

// A minimum in the loop under a maximum tree.
// CHECK-DAG: selection.cu:[[@LINE+14]]:3: remark: tree not rewritten: 'v', 'idx' are used at {{[0-9]+}}:{{[0-9]+}} other than by a selection 'if (e > v) {{.*}}
__global__ void wrong_direction(const float *x, int *out, int n) {
  __shared__ float bv[128];
  __shared__ int bi[128];
  float v = INFINITY;
  int idx = -1;
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

// Each thread starts from its own element: (v0, i0) differ by thread.
// CHECK-DAG: selection.cu:[[@LINE+14]]:3: remark: tree not rewritten: 'v' does not start with the same value in every thread [-Rpass-missed=warp-reduce]
__global__ void own_start(const float *x, int *out, int n) {
  __shared__ float bv[128];
  __shared__ int bi[128];
  float v = x[threadIdx.x];
  int idx = threadIdx.x;
  for (int j = threadIdx.x + blockDim.x; j < n; j += blockDim.x)
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

// Two loops update the pair and the value is read after the tree: a
// thread could hold -0.0 where another holds +0.0 at the same index.
// CHECK-DAG: selection.cu:[[@LINE+19]]:3: remark: tree not rewritten: 'bv' is read after the tree and its pairs are not selected by one block-stride loop: {{.*}}
__global__ void two_loops(const float *x, const float *y, float *best, int n) {
  __shared__ float bv[128];
  __shared__ int bi[128];
  float v = -INFINITY;
  int idx = n;
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    if (x[j] > v) {
      v = x[j];
      idx = j;
    }
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    if (y[j] > v) {
      v = y[j];
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
    *best = bv[0];
}

// The same with only the index read: rewritten.
// CHECK-DAG: selection.cu:[[@LINE+19]]:3: remark: replaced the (value, index) tree over 'bv', 'bi' (first-index max, float, int) {{.*}}
__global__ void two_loops_index(const float *x, const float *y, int *out, int n) {
  __shared__ float bv[128];
  __shared__ int bi[128];
  float v = -INFINITY;
  int idx = n;
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    if (x[j] > v) {
      v = x[j];
      idx = j;
    }
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    if (y[j] > v) {
      v = y[j];
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

// The per-thread maximum is also stored elsewhere.
// CHECK-DAG: selection.cu:[[@LINE+15]]:3: remark: tree not rewritten: 'v', 'idx' are used at [[@LINE+11]]:26 other than by a selection {{.*}}
__global__ void leaks(const float *x, float *partial, int *out, int n) {
  __shared__ float bv[128];
  __shared__ int bi[128];
  float v = -INFINITY;
  int idx = n;
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    if (x[j] > v) {
      v = x[j];
      idx = j;
    }
  partial[threadIdx.x] = v;
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

// 96 threads: the tree is only right for powers of two.
// CHECK-DAG: selection.cu:[[@LINE+14]]:3: remark: tree not rewritten: the launch at {{[0-9]+}}:3 uses 96 threads: {{.*}}
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

void launch(const float *x, const float *y, const double *d, float *f,
            int *out, long *where, double *least, int rows, int n) {
  argmax_rows<<<rows, 128>>>(x, out, n);
  argmin_rows<<<1, 64>>>(d, where, least, n);
  last_index<<<1, 128>>>(x, out, n);
  greater_equal<<<1, 128>>>(x, out, n);
  wrong_direction<<<1, 128>>>(x, out, n);
  own_start<<<1, 128>>>(x, out, n);
  two_loops<<<1, 128>>>(x, y, f, n);
  two_loops_index<<<1, 128>>>(x, y, out, n);
  leaks<<<1, 128>>>(x, f, out, n);
  odd_block<<<1, 96>>>(x, out, n);
}
