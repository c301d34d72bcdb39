// row-reduce splits loops whose only carried state is sums, maxima and
// minima: each thread of the row folds its share, the shares are combined
// after the loop. Exact kinds (integer sums, fmaxf/fminf) by default, float
// sums with reassociate=true; above 32 threads a row, a block is a row.
// RUN: kopt-opt %s -passes=row-reduce -Rpass=row-reduce -Rpass-missed=row-reduce -o %t.exact.cu 2>&1 | FileCheck %s --check-prefix=EXACT
// RUN: kopt-opt %s -passes='row-reduce{reassociate=true}' -Rpass=row-reduce -Rpass-missed=row-reduce -o %t.cu 2>&1 | FileCheck %s
// RUN: FileCheck %s --check-prefix=OUT < %t.cu
// RUN: %if cuda-toolkit %{ %nvcc_check %t.cu %}
// RUN: kopt-opt %t.cu -passes='row-reduce{reassociate=true}' -o %t.again.cu
// RUN: diff %t.cu %t.again.cu
// RUN: kopt-opt %s -passes='row-reduce{reassociate=true,threads-per-row=256}' -o %t.256.cu
// RUN: FileCheck %s --check-prefix=BLOCK < %t.256.cu
// RUN: %if cuda-toolkit %{ %nvcc_check %t.256.cu %}
// RUN: kopt-opt %s -passes='row-reduce{reassociate=true,threads-per-row=4}' -o - | FileCheck %s --check-prefix=FOUR
// REQUIRES: filecheck
#include <cuda_runtime.h>

// EXACT-DAG: reductions.cu:[[@LINE+7]]:5: remark: thread-per-row kernel not re-mapped: the loop sums the floating-point 'acc': dividing it among the row's threads adds in another order (reassociate=true allows it; results may differ in rounding) [-Rpass-missed=row-reduce]
// CHECK-DAG: reductions.cu:[[@LINE+1]]:17: remark: 'dot_kopt_rows' runs each row of 'row' on 32 threads: 1 loop split among them (1 combining a reduction after it, floating-point sums in another order), 0 run by each in the original order, 1 stores outside loops by one; 1 launch run it with 32x the grid [-Rpass=row-reduce]
__global__ void dot(const float *__restrict__ a, const float *__restrict__ x,
                    float *__restrict__ y, int m, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < m) {
    float acc = 1.0f;
    for (int k = 0; k < n; k++)
      acc += a[row * n + k] * x[k];
    y[row] = acc;
  }
}
// OUT-LABEL: __global__ void dot_kopt_rows(
// OUT:      float acc = 1.0f;
// OUT-NEXT: { // kopt row-reduce: each thread folds its share into 'acc', combined after the loop
// OUT-NEXT: if (kopt_lane != 0u)
// OUT-NEXT:   acc = 0;
// OUT-NEXT: for (long long kopt_i = kopt_lane;
// OUT-NEXT:      kopt_i < static_cast<long long>(n); kopt_i += 32) { const int k = static_cast<int>(kopt_i); acc += a[row * n + k] * x[k]; }
// OUT-NEXT: for (unsigned kopt_o = 16u; kopt_o > 0u; kopt_o /= 2u)
// OUT-NEXT:   acc += __shfl_xor_sync(0xffffffffu, acc, kopt_o, 32);
// OUT-NEXT: }
// OUT-NEXT: { if (kopt_lane == 0u) y[row] = acc; }
// The launch runs the copy only when a row's threads share a warp.
// OUT:      // kopt row-reduce: 32 threads a row when the grid allows and a row's threads share a warp
// OUT:      if (kopt_grid >= 1 && kopt_grid <= 2147483647 / 32 &&
// OUT-NEXT:     (threads) % 32 == 0)
// OUT-NEXT:   dot_kopt_rows<<<kopt_grid * 32, threads>>>(a, x, y, m, n);
// BLOCK-LABEL: __global__ void __launch_bounds__(256) dot_kopt_rows(
// BLOCK:      acc += __shfl_xor_sync(0xffffffffu, acc, kopt_o, 32);
// BLOCK-NEXT: {
// BLOCK-NEXT:   __shared__ float kopt_part0[8];
// BLOCK-NEXT:   if (threadIdx.x % 32u == 0u)
// BLOCK-NEXT:     kopt_part0[threadIdx.x / 32u] = acc;
// BLOCK-NEXT:   __syncthreads();
// BLOCK-NEXT:   acc = kopt_part0[0];
// BLOCK-NEXT:   for (unsigned kopt_w = 1u; kopt_w < 8u; ++kopt_w)
// BLOCK-NEXT:     acc += kopt_part0[kopt_w];
// BLOCK-NEXT: }
// BLOCK: if ((threads) >= 1 && kopt_grid >= 1 && kopt_grid <= 2147483647 / (threads))
// BLOCK-NEXT:   dot_kopt_rows<<<kopt_grid * (threads), 256>>>(a, x, y, m, n);
// FOUR: const unsigned kopt_mask = ((1u << 4) - 1u) << (threadIdx.x % 32u / 4u * 4u);
// FOUR: acc += __shfl_xor_sync(kopt_mask, acc, kopt_o, 4);

// Exact: a count, an integer sum written with -=, a maximum and a minimum in
// one loop (several accumulators), each combined after it.
// EXACT-DAG: reductions.cu:[[@LINE+2]]:17: remark: 'stats_kopt_rows' runs each row of 'row' on 32 threads: 1 loop split among them (1 combining a reduction after it), 0 run by each in the original order, 3 stores outside loops by one; 1 launch run it with 32x the grid [-Rpass=row-reduce]
// CHECK-DAG: reductions.cu:[[@LINE+1]]:17: remark: 'stats_kopt_rows' runs each row
__global__ void stats(const int *__restrict__ v, int *__restrict__ out,
                      float *__restrict__ top, const float *__restrict__ f,
                      int m, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= m)
    return;
  int c = 0;
  long long s = 0;
  float hi = -1e30f, lo = 1e30f;
  for (int j = 0; j < n; ++j) {
    if (v[row * n + j] > 0)
      ++c;
    s -= v[row * n + j];
    hi = fmaxf(hi, f[row * n + j]);
    lo = fminf(f[row * n + j], lo);
  }
  out[2 * row] = c + (int)s;
  out[2 * row + 1] = (int)(hi - lo);
  top[row] = hi;
}
// OUT-LABEL: __global__ void stats_kopt_rows(
// OUT:      { // kopt row-reduce: each thread folds its share into 'c', 's', 'hi', 'lo', combined after the loop
// OUT-NEXT: if (kopt_lane != 0u)
// OUT-NEXT:   c = 0;
// OUT-NEXT: if (kopt_lane != 0u)
// OUT-NEXT:   s = 0;
// OUT:        c += __shfl_xor_sync(0xffffffffu, c, kopt_o, 32);
// OUT:        s += __shfl_xor_sync(0xffffffffu, s, kopt_o, 32);
// OUT:        hi = fmaxf(hi, __shfl_xor_sync(0xffffffffu, hi, kopt_o, 32));
// OUT:        lo = fminf(lo, __shfl_xor_sync(0xffffffffu, lo, kopt_o, 32));

// A store outside loops may call a pure math function: lane 0 runs it.
// CHECK-DAG: reductions.cu:[[@LINE+1]]:17: remark: 'norm_kopt_rows' runs each row of 'i' on 32 threads: 1 loop split among them (1 combining a reduction after it, floating-point sums in another order), 0 run by each in the original order, 1 stores outside loops by one; 1 launch run it with 32x the grid [-Rpass=row-reduce]
__global__ void norm(const float *__restrict__ a, float *__restrict__ out,
                     int n, int m) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    double acc = 0.0;
    for (int j = 0; j < m; j++)
      acc += (double)a[i * m + j] * a[i * m + j];
    out[i] = (float)sqrt(acc);
  }
}
// OUT-LABEL: __global__ void norm_kopt_rows(
// OUT:      { if (kopt_lane == 0u) out[i] = (float)sqrt(acc); }

// Refusals: each says which accumulator and why.
// CHECK-DAG: reductions.cu:[[@LINE+7]]:11: remark: thread-per-row kernel not re-mapped: the loop carries more than a reduction: the loop reads the partial value of 's' (at 's'), which another thread's share would change [-Rpass-missed=row-reduce]
__global__ void reads_partial(const float *__restrict__ a, float *__restrict__ y,
                              int m, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < m) {
    float s = 0.0f;
    for (int k = 0; k < n; k++) {
      if (s < 100.0f)
        s += a[row * n + k];
    }
    y[row] = s;
  }
}

// CHECK-DAG: reductions.cu:[[@LINE+8]]:7: remark: thread-per-row kernel not re-mapped: the loop carries more than a reduction: 'best = k' writes 'best', which the loop carries, other than as a sum (+=, -=, ++, fmaf) or a maximum or minimum (fmaxf, max, fminf, min, 'if (e > v) v = e') [-Rpass-missed=row-reduce]
__global__ void argmax(const float *__restrict__ a, int *__restrict__ y, int m,
                       int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < m) {
    int best = 0;
    for (int k = 1; k < n; k++)
      if (a[row * n + k] > a[row * n + best])
      best = k;
    y[row] = best;
  }
}

// CHECK-DAG: reductions.cu:[[@LINE+8]]:7: remark: thread-per-row kernel not re-mapped: the loop carries more than a reduction: 'p' is updated in two ways in the loop [-Rpass-missed=row-reduce]
__global__ void mixed(const float *__restrict__ a, float *__restrict__ y, int m,
                      int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < m) {
    float p = 0.0f;
    for (int k = 0; k < n; k++) {
      p += a[row * n + k];
      p = fmaxf(p, 0.0f);
    }
    y[row] = p;
  }
}

// CHECK-DAG: reductions.cu:[[@LINE+7]]:7: remark: thread-per-row kernel not re-mapped: the loop carries more than a reduction: the accumulator 'c' is a 'short', not a 32- or 64-bit integer, float or double [-Rpass-missed=row-reduce]
__global__ void narrow(const int *__restrict__ a, int *__restrict__ y, int m,
                       int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < m) {
    short c = 0;
    for (int k = 0; k < n; k++)
      c += a[row * n + k];
    y[row] = c;
  }
}

// CHECK-DAG: reductions.cu:[[@LINE+6]]:5: remark: thread-per-row kernel not re-mapped: the reduction loop leaves early (break or return): its threads would stop at different places [-Rpass-missed=row-reduce]
__global__ void early(const int *__restrict__ a, int *__restrict__ y, int m,
                      int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < m) {
    int c = 0;
    for (int k = 0; k < n; k++) {
      if (a[row * n + k] < 0)
        break;
      c += a[row * n + k];
    }
    y[row] = c;
  }
}

// CHECK-DAG: reductions.cu:[[@LINE+6]]:5: remark: thread-per-row kernel not re-mapped: the reduction loop is not 'for (T i = s; i < n; ++i)' with i unchanged in its body [-Rpass-missed=row-reduce]
__global__ void strided(const int *__restrict__ a, int *__restrict__ y, int m,
                        int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < m) {
    int c = 0;
    for (int k = 0; k < n; k += 2)
      c += a[row * n + k];
    y[row] = c;
  }
}

// CHECK-DAG: reductions.cu:[[@LINE+6]]:5: remark: thread-per-row kernel not re-mapped: the reduction loop runs 2 iterations, fewer than the row's 32 threads [-Rpass-missed=row-reduce]
__global__ void window(const float *__restrict__ a, float *__restrict__ y,
                       int m) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < m) {
    float top = -1e30f;
    for (int k = 0; k < 2; k++)
      top = fmaxf(top, a[2 * row + k]);
    y[row] = top;
  }
}

void launch(const float *a, const float *x, float *y, const int *v, int *o,
            float *t, const float *f, short *s, int m, int n) {
  const int threads = 128;
  const int grid = (m + threads - 1) / threads;
  dot<<<grid, threads>>>(a, x, y, m, n);
  stats<<<grid, threads>>>(v, o, t, f, m, n);
  reads_partial<<<grid, threads>>>(a, y, m, n);
  argmax<<<grid, threads>>>(a, o, m, n);
  mixed<<<grid, threads>>>(a, y, m, n);
  narrow<<<grid, threads>>>(v, o, m, n);
  early<<<grid, threads>>>(v, o, m, n);
  strided<<<grid, threads>>>(v, o, m, n);
  window<<<grid, threads>>>(a, y, m);
  norm<<<grid, threads>>>(a, y, m, n);
}
