// one-pass-variance: the second loop of a two-pass variance becomes a closed
// form of sums the first loop accumulates; the refusals say why not.
// RUN: kopt-opt %s -passes='one-pass-variance{reassociate=true}' -Rpass=one-pass-variance -Rpass-missed=one-pass-variance -o %t.cu 2>&1 | FileCheck %s
// RUN: FileCheck --check-prefix=OUT %s < %t.cu
// RUN: %if cuda-toolkit %{ %nvcc_check %t.cu %}
// A second run changes nothing.
// RUN: kopt-opt %t.cu -passes='one-pass-variance{reassociate=true}' -o %t.again.cu
// RUN: diff %t.cu %t.again.cu
// Without reassociate=true nothing changes, and the remark names it.
// RUN: kopt-opt %s -passes=one-pass-variance -Rpass-missed=one-pass-variance -o %t.exact.cu 2>&1 | FileCheck --check-prefix=EXACT %s
// RUN: diff %s %t.exact.cu
// REQUIRES: filecheck
#include <cuda_runtime.h>

// A block a group, block-stride loops; the first loop's body gets braces.
// CHECK: one-pass-variance.cu:[[@LINE+19]]:3: remark: the squared deviations of 'in[i]' from 'mean' come from sums the loop at [[@LINE+7]]:3 accumulates (shifted by each thread's first element): the elements are read once instead of twice; results may differ in rounding [-Rpass=one-pass-variance]
// EXACT: one-pass-variance.cu:[[@LINE+18]]:3: remark: variance not computed in one pass: the squared deviations of 'in[i]' from 'mean' would be computed from sums the loop at [[@LINE+6]]:3 accumulates, which round differently (reassociate=true allows it) [-Rpass-missed=one-pass-variance]
__global__ void group_norm(const float *__restrict__ x, float *__restrict__ y,
                           int n) {
  __shared__ float buf[256];
  const float *in = x + (long long)blockIdx.x * n;
  float s = 0.0f;
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    s += in[i];
  buf[threadIdx.x] = s;
  __syncthreads();
  for (int st = blockDim.x / 2; st > 0; st /= 2) {
    if (threadIdx.x < st)
      buf[threadIdx.x] += buf[threadIdx.x + st];
    __syncthreads();
  }
  const float mean = buf[0] / n;
  __syncthreads();
  float v = 0.0f;
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    float d = in[i] - mean;
    v += d * d;
  }
  buf[threadIdx.x] = v;
  __syncthreads();
  for (int st = blockDim.x / 2; st > 0; st /= 2) {
    if (threadIdx.x < st)
      buf[threadIdx.x] += buf[threadIdx.x + st];
    __syncthreads();
  }
  const float rstd = rsqrtf(buf[0] / n + 1e-5f);
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    y[(long long)blockIdx.x * n + i] = (in[i] - mean) * rstd;
}
// OUT-LABEL: void group_norm(
// OUT:      float s = 0.0f;
// OUT-NEXT: float kopt_var_k = 0.0f;
// OUT-NEXT: {
// OUT-NEXT:   int i = threadIdx.x;
// OUT-NEXT:   if (i < n)
// OUT-NEXT:     kopt_var_k = in[i];
// OUT-NEXT: }
// OUT-NEXT: float kopt_var_s = 0.0f, kopt_var_q = 0.0f;
// OUT-NEXT: unsigned long long kopt_var_n = 0;
// OUT-NEXT: for (int i = threadIdx.x; i < n; i += blockDim.x) {
// OUT-NEXT:   s += in[i];
// OUT-NEXT:   float kopt_var_d = in[i] - kopt_var_k;
// OUT-NEXT:   kopt_var_s += kopt_var_d;
// OUT-NEXT:   kopt_var_q += kopt_var_d * kopt_var_d;
// OUT-NEXT:   ++kopt_var_n;
// OUT-NEXT: }
// OUT:      float v = 0.0f;
// OUT-NEXT: if (kopt_var_n != 0) {
// OUT-NEXT:   const float kopt_var_c = mean - kopt_var_k;
// OUT-NEXT:   v += kopt_var_q - kopt_var_c * (2.0f * kopt_var_s - static_cast<float>(kopt_var_n) * kopt_var_c);
// OUT-NEXT: }
// OUT-NEXT: buf[threadIdx.x] = v;

// A thread a row (llm.c's layernorm kernel 1): serial loops, an fmaf
// update, the centre an expression.
// CHECK: one-pass-variance.cu:[[@LINE+9]]:5: remark: the squared deviations of 'x[i]' from 'm / c' come from sums the loop at [[@LINE+7]]:5 accumulates
__global__ void row_var(const float *__restrict__ inp, float *var, int rows,
                        int c) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    const float *x = inp + r * c;
    float m = 0.0f;
    for (int i = 0; i < c; i++) { m += x[i]; }
    float v = 0.0f;
    for (int i = 0; i < c; i++) {
      float xshift = x[i] - m / c;
      v = fmaf(xshift, xshift, v);
    }
    var[r] = v / c;
  }
}
// OUT-LABEL: void row_var(
// OUT:      for (int i = 0; i < c; i++) { m += x[i];
// OUT-NEXT:     float kopt_var_d = x[i] - kopt_var_k;
// OUT:      }
// OUT:      if (kopt_var_n != 0) {
// OUT-NEXT:   const float kopt_var_c = (m / c) - kopt_var_k;

// Double elements, the square written out, a template: the sums are
// spelled with the template's type.
// CHECK: one-pass-variance.cu:[[@LINE+8]]:3: remark: the squared deviations of 'x[i]' from 'mean'
template <typename T>
__global__ void var_t(const T *__restrict__ x, T *out, int n, T mean0) {
  T s = 0;
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    s += x[i];
  T mean = s + mean0;
  T v = 0;
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    v += (x[i] - mean) * (x[i] - mean);
  out[threadIdx.x] = v;
}
// OUT-LABEL: __global__ void var_t(
// OUT:      T kopt_var_k = static_cast<T>(0);
// OUT:        T kopt_var_d = x[i] - kopt_var_k;
// OUT:      v += kopt_var_q - kopt_var_c * (static_cast<T>(2) * kopt_var_s - static_cast<T>(kopt_var_n) * kopt_var_c);

void run_var_t(const double *x, double *out, int n) {
  var_t<<<1, 128>>>(x, out, n, 0.0);
}

// Refusals. (Loops that name their counters differently index differently:
// no earlier loop reads the same element.)
// CHECK: one-pass-variance.cu:[[@LINE+8]]:11: remark: variance not computed in one pass: 'x[i]' is read again at [[@LINE+8]]:11, but 'x' is not __restrict__: a store through another pointer may change its elements between the loops
__global__ void not_restrict(const float *x, float *out, int n, float mean) {
  float s = 0.0f;
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    s += x[i];
  out[0] = s;
  float v = 0.0f;
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    v += (x[i] - mean) * (x[i] - mean);
  out[threadIdx.x] = v;
}

// CHECK: one-pass-variance.cu:[[@LINE+8]]:5: remark: variance not computed in one pass: the loop at [[@LINE+6]]:3 does more than add squared deviations to 'v' (at [[@LINE+9]]:5)
__global__ void does_more(const float *__restrict__ x, float *out, int n) {
  float s = 0.0f;
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    s += x[i];
  float v = 0.0f, a = 0.0f;
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    float d = x[i] - s;
    v += d * d;
    a += fabsf(d);
  }
  out[threadIdx.x] = v + a;
}

// CHECK: one-pass-variance.cu:[[@LINE+8]]:5: remark: variance not computed in one pass: the loop at [[@LINE+7]]:3 adds the square of 'x[i] - y[i]', not the difference of an element and a value the loop does not change
__global__ void two_arrays(const float *__restrict__ x,
                           const float *__restrict__ y, float *out, int n) {
  float s = 0.0f;
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    s += x[i];
  float v = 0.0f;
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    v += (x[i] - y[i]) * (x[i] - y[i]);
  out[threadIdx.x] = v + s;
}

// CHECK: one-pass-variance.cu:[[@LINE+6]]:3: remark: variance not computed in one pass: no earlier loop of the same compound statement reads 'x[j]' over the same iterations
__global__ void other_names(const float *__restrict__ x, float *out, int n) {
  float s = 0.0f;
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    s += x[i];
  float v = 0.0f;
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    v += (x[j] - s) * (x[j] - s);
  out[threadIdx.x] = v;
}

// No earlier loop reads the elements (the mean is a parameter).
// CHECK: one-pass-variance.cu:[[@LINE+4]]:3: remark: variance not computed in one pass: no earlier loop of the same compound statement reads 'x[i]' over the same iterations
__global__ void one_loop(const float *__restrict__ x, float *out, int n,
                         float mean) {
  float v = 0.0f;
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    v += (x[i] - mean) * (x[i] - mean);
  out[threadIdx.x] = v;
}

// A sum of squares (a norm) is no variance: one remark for the kernel.
// CHECK: one-pass-variance.cu:[[@LINE+1]]:17: remark: variance not computed in one pass: no loop only adds squared deviations of elements from a value it does not change
__global__ void sum_squares(const float *__restrict__ x, float *out, int n) {
  float s = 0.0f;
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    s += x[i];
  float q = 0.0f;
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    q += x[i] * x[i];
  out[threadIdx.x] = q + s;
}

// Loops of any stride that start and step alike (a warp a row, lane loops;
// the stride in a local), a pragma on the first: the shift's read and the
// sums go before the pragma.
// CHECK: one-pass-variance.cu:[[@LINE+13]]:3: remark: the squared deviations of 'row[i]' from 'm' come from sums the loop at [[@LINE+8]]:3 accumulates
__global__ void warp_rows(const float *__restrict__ x, float *out, int rows,
                          int n) {
  int w = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
  int stride = 32;
  const float *row = x + (long long)w * n;
  float sum = 0.f;
#pragma unroll 4
  for (int i = lane; i < n; i += stride)
    sum += row[i];
  for (int o = 16; o > 0; o >>= 1)
    sum += __shfl_xor_sync(0xffffffffu, sum, o);
  float m = sum / n, var = 0.f;
  for (int i = lane; i < n; i += stride) { float d = row[i] - m; var += d * d; }
  out[w] = var;
}
// OUT-LABEL: void warp_rows(
// OUT:      float sum = 0.f;
// OUT-NEXT: float kopt_var_k = 0.0f;
// OUT-NEXT: {
// OUT-NEXT:   int i = lane;
// OUT:      unsigned long long kopt_var_n = 0;
// OUT-NEXT: #pragma unroll 4
// OUT-NEXT: for (int i = lane; i < n; i += stride) {
// OUT-NEXT:   sum += row[i];
// OUT-NEXT:   float kopt_var_d = row[i] - kopt_var_k;

// The loops start alike but step differently: not the same iterations.
// CHECK: one-pass-variance.cu:[[@LINE+8]]:11: remark: variance not computed in one pass: 'x[i]' is read again at {{.*}}, but the loops at [[@LINE+4]]:3 and [[@LINE+7]]:3 divide their iterations differently
__global__ void other_steps(const float *__restrict__ x, float *out, int n) {
  int lane = threadIdx.x % 32;
  float s = 0.f;
  for (int i = lane; i < n; i += 32)
    s += x[i];
  float v = 0.f;
  for (int i = lane; i < n; i += 64)
    v += (x[i] - s) * (x[i] - s);
  out[threadIdx.x] = v;
}

// The elements also read through CUDA's load intrinsics (__ldg, __ldcs, as
// llm.c's kernels read their last loop): reads, not writes.
// CHECK: one-pass-variance.cu:[[@LINE+7]]:3: remark: the squared deviations of 'x[i]' from 'm'
__global__ void ldg_norm(const float *__restrict__ x, float *__restrict__ y,
                         int n) {
  float s = 0.f;
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    s += x[i];
  float m = s / n, v = 0.f;
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    v += (x[i] - m) * (x[i] - m);
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    y[i] = (__ldg(&x[i]) - m) * v + __ldcs(x + i);
}
