// row-reduce takes accumulators as real code writes them: fmaf chains,
// and maxima and minima kept by comparison (`if (e > v) v = e;`, `v = e <
// v ? e : v;`). Integer selections are exact (the default splits them);
// floating-point ones may keep -0.0 for +0.0 and need reassociate=true,
// like fmaf sums. A test that lets a NaN in (`v = v > e ? v : e`) depends
// on the order and is refused, as is a test of another value.
// RUN: kopt-opt %s -passes=row-reduce -Rpass=row-reduce -Rpass-missed=row-reduce -o %t.exact.cu 2>&1 | FileCheck %s --check-prefixes=CHECK,EXACT --implicit-check-not=remark:
// RUN: kopt-opt %s -passes='row-reduce{reassociate=true}' -Rpass=row-reduce -Rpass-missed=row-reduce -o %t.cu 2>&1 | FileCheck %s --check-prefixes=CHECK,REASSOC --implicit-check-not=remark:
// RUN: FileCheck %s --check-prefix=OUT < %t.cu
// RUN: kopt-opt %s -passes='row-reduce{reassociate=true,threads-per-row=128}' -o %t.block.cu
// RUN: FileCheck %s --check-prefix=BLOCK < %t.block.cu
// RUN: %if cuda-toolkit %{ %nvcc_check %t.cu %}
// RUN: %if cuda-toolkit %{ %nvcc_check %t.block.cu %}
// RUN: kopt-opt %t.cu -passes='row-reduce{reassociate=true}' -o %t.again.cu
// RUN: diff %t.cu %t.again.cu
// REQUIRES: filecheck
#include <cuda_runtime.h>
#include <math.h>

// EXACT: update-forms.cu:[[@LINE+8]]:3: remark: thread-per-row kernel not re-mapped: the loop sums the floating-point 'acc': dividing it among the row's threads adds in another order (reassociate=true allows it; results may differ in rounding) [-Rpass-missed=row-reduce]
// REASSOC: update-forms.cu:[[@LINE+1]]:17: remark: 'fma_dot_kopt_rows' runs each row of 'row' on 32 threads: 1 loop split among them (1 combining a reduction after it, floating-point sums in another order), 0 run by each in the original order, 1 stores outside loops by one; 1 launch run it with 32x the grid [-Rpass=row-reduce]
__global__ void fma_dot(const float *__restrict__ a, const float *__restrict__ x,
                        float *__restrict__ y, int m, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= m)
    return;
  float acc = 0.0f;
  for (int k = 0; k < n; ++k)
    acc = fmaf(a[(size_t)row * n + k], x[k], acc);
  y[row] = acc;
}

// CHECK: update-forms.cu:[[@LINE+1]]:17: remark: 'int_select_kopt_rows' runs each row of 'r' on 32 threads: 1 loop split among them (1 combining a reduction after it), 0 run by each in the original order, 2 stores outside loops by one; 1 launch run it with 32x the grid [-Rpass=row-reduce]
__global__ void int_select(const int *__restrict__ v, int *__restrict__ hi,
                           int *__restrict__ lo, int rows, int n) {
  int r = threadIdx.x + blockIdx.x * blockDim.x;
  if (r < rows) {
    int big = v[r * n], small = v[r * n];
    for (int j = 1; j < n; j++) {
      if (v[r * n + j] > big) {
        big = v[r * n + j];
      }
      small = v[r * n + j] < small ? v[r * n + j] : small;
    }
    hi[r] = big;
    lo[r] = small;
  }
}

// EXACT: update-forms.cu:[[@LINE+8]]:5: remark: thread-per-row kernel not re-mapped: the loop keeps the floating-point 'm' by comparison: divided among the row's threads, which of two equal values (-0.0, +0.0) it keeps depends on the order (reassociate=true allows it) [-Rpass-missed=row-reduce]
// REASSOC: update-forms.cu:[[@LINE+1]]:17: remark: 'float_select_kopt_rows' runs each row of 'i' on 32 threads: 1 loop split among them (1 combining a reduction after it, floating-point selections may keep -0.0 for +0.0), 0 run by each in the original order, 1 stores outside loops by one; 1 launch run it with 32x the grid [-Rpass=row-reduce]
__global__ void float_select(const float *__restrict__ in,
                             float *__restrict__ out, int N, int C) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) {
    const float *row = in + (long long)i * C;
    float m = -INFINITY;
    for (int j = 0; j < C; j++)
      if (m <= row[j])
        m = row[j];
    out[i] = m;
  }
}

// A maximum that lets a NaN in: `m > e` fails for a NaN e, which then
// replaces m, and a later e replaces the NaN: the order decides.
// CHECK: update-forms.cu:[[@LINE+7]]:7: remark: thread-per-row kernel not re-mapped: the loop carries more than a reduction: 'm = m > in[i * n + j] ? m : in[i * n + j]' writes 'm', which the loop carries, other than as a sum (+=, -=, ++, fmaf) or a maximum or minimum (fmaxf, max, fminf, min, 'if (e > v) v = e') [-Rpass-missed=row-reduce]
__global__ void nan_in(const float *__restrict__ in, float *__restrict__ out,
                       int rows, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < rows) {
    float m = -INFINITY;
    for (int j = 0; j < n; j++)
      m = m > in[i * n + j] ? m : in[i * n + j];
    out[i] = m;
  }
}

// The test compares another value than the one assigned.
// CHECK: update-forms.cu:[[@LINE+9]]:9: remark: thread-per-row kernel not re-mapped: the loop carries more than a reduction: 'm = in[i * n + j]' writes 'm', which the loop carries, other than as a sum (+=, -=, ++, fmaf) or a maximum or minimum (fmaxf, max, fminf, min, 'if (e > v) v = e') [-Rpass-missed=row-reduce]
__global__ void other_value(const float *__restrict__ in,
                            const float *__restrict__ key,
                            float *__restrict__ out, int rows, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < rows) {
    float m = -INFINITY;
    for (int j = 0; j < n; j++)
      if (key[i * n + j] > m)
        m = in[i * n + j];
    out[i] = m;
  }
}

// A selection that converts: the test compares the long long, the int
// keeps its low bits, and which one wins then depends on the order.
// CHECK: update-forms.cu:[[@LINE+8]]:9: remark: thread-per-row kernel not re-mapped: the loop carries more than a reduction: 'm = in[i * n + j]' writes 'm', which the loop carries, other than as a sum (+=, -=, ++, fmaf) or a maximum or minimum (fmaxf, max, fminf, min, 'if (e > v) v = e') [-Rpass-missed=row-reduce]
__global__ void narrowing(const long long *__restrict__ in,
                          int *__restrict__ out, int rows, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < rows) {
    int m = 0;
    for (int j = 0; j < n; j++)
      if (in[i * n + j] > m)
        m = in[i * n + j];
    out[i] = m;
  }
}

// A sum under a condition is still a sum: the guard is not a selection.
// CHECK: update-forms.cu:[[@LINE+1]]:17: remark: 'guarded_sum_kopt_rows' runs each row of 'i' on 32 threads: 1 loop split among them (1 combining a reduction after it), 0 run by each in the original order, 1 stores outside loops by one; 1 launch run it with 32x the grid [-Rpass=row-reduce]
__global__ void guarded_sum(const int *__restrict__ in, int *__restrict__ out,
                            int rows, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < rows) {
    int s = 0;
    for (int j = 0; j < n; j++)
      if (in[i * n + j] > 0)
        s = s + in[i * n + j];
    out[i] = s;
  }
}

void launch(const float *a, const float *x, float *y, const int *v, int *hi,
            int *lo, int m, int n) {
  fma_dot<<<(m + 127) / 128, 128>>>(a, x, y, m, n);
  int_select<<<(m + 255) / 256, 256>>>(v, hi, lo, m, n);
  float_select<<<(m + 255) / 256, 256>>>(a, y, m, n);
  nan_in<<<(m + 255) / 256, 256>>>(a, y, m, n);
  other_value<<<(m + 255) / 256, 256>>>(a, x, y, m, n);
  guarded_sum<<<(m + 255) / 256, 256>>>(v, hi, m, n);
  narrowing<<<(m + 255) / 256, 256>>>((const long long *)v, hi, m, n);
}

// OUT-LABEL: fma_dot_kopt_rows(
// OUT: acc = fmaf(a[(size_t)row * n + k], x[k], acc);
// OUT: acc += __shfl_xor_sync(0xffffffffu, acc, kopt_o, 32);
// OUT-LABEL: int_select_kopt_rows(
// OUT: { const int kopt_y = __shfl_xor_sync(0xffffffffu, big, kopt_o, 32); big = kopt_y > big ? kopt_y : big; }
// OUT: { const int kopt_y = __shfl_xor_sync(0xffffffffu, small, kopt_o, 32); small = kopt_y < small ? kopt_y : small; }
// OUT-LABEL: float_select_kopt_rows(
// OUT: { const float kopt_y = __shfl_xor_sync(0xffffffffu, m, kopt_o, 32); m = kopt_y > m ? kopt_y : m; }
// BLOCK-LABEL: float_select_kopt_rows(
// BLOCK: { const float kopt_y = kopt_part0[kopt_w]; m = kopt_y > m ? kopt_y : m; }
