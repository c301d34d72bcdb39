// online-softmax: the sum of exp(x - max) of a three-pass softmax comes
// from a running maximum and sum the first loop keeps; the refusals say
// why not.
// RUN: kopt-opt %s -passes='online-softmax{reassociate=true}' -Rpass=online-softmax -Rpass-missed=online-softmax -o %t.cu 2>&1 | FileCheck %s
// RUN: FileCheck --check-prefix=OUT %s < %t.cu
// RUN: %if cuda-toolkit %{ %nvcc_check %t.cu %}
// A second run changes nothing.
// RUN: kopt-opt %t.cu -passes='online-softmax{reassociate=true}' -o %t.again.cu
// RUN: diff %t.cu %t.again.cu
// Without reassociate=true nothing changes, and the remark names it.
// RUN: kopt-opt %s -passes=online-softmax -Rpass-missed=online-softmax -o %t.exact.cu 2>&1 | FileCheck --check-prefix=EXACT %s
// RUN: diff %s %t.exact.cu
// REQUIRES: filecheck
#include <cuda_fp16.h>
#include <cuda_runtime.h>

// A block a row, block-stride loops; the first loop's body gets braces.
// CHECK: online-softmax.cu:[[@LINE+19]]:3: remark: the sum of exponentials of 'in[j]' less 'row_max' comes from a running maximum and sum the loop at [[@LINE+7]]:3 keeps (online softmax): the elements are read once instead of twice; results may differ in rounding [-Rpass=online-softmax]
// EXACT: online-softmax.cu:[[@LINE+18]]:3: remark: softmax denominator not computed online: the sum of exponentials of 'in[j]' less 'row_max' would be accumulated in the loop at [[@LINE+6]]:3 against each thread's running maximum, which rounds differently (reassociate=true allows it) [-Rpass-missed=online-softmax]
__global__ void softmax_rows(const float *__restrict__ x,
                             float *__restrict__ y, int cols) {
  __shared__ float red[256];
  const float *in = x + (long long)blockIdx.x * cols;
  float m = -INFINITY;
  for (int j = threadIdx.x; j < cols; j += blockDim.x)
    m = fmaxf(m, in[j]);
  red[threadIdx.x] = m;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + s]);
    __syncthreads();
  }
  const float row_max = red[0];
  __syncthreads();
  float sum = 0.0f;
  for (int j = threadIdx.x; j < cols; j += blockDim.x)
    sum += expf(in[j] - row_max);
  red[threadIdx.x] = sum;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      red[threadIdx.x] += red[threadIdx.x + s];
    __syncthreads();
  }
  const float row_sum = red[0];
  for (int j = threadIdx.x; j < cols; j += blockDim.x)
    y[(long long)blockIdx.x * cols + j] = expf(in[j] - row_max) / row_sum;
}
// OUT-LABEL: void softmax_rows(
// OUT:      float m = -INFINITY;
// OUT-NEXT: float kopt_sm_m = -3.40282347e+38f;
// OUT-NEXT: float kopt_sm_s = 0.0f;
// OUT-NEXT: for (int j = threadIdx.x; j < cols; j += blockDim.x) {
// OUT-NEXT:   m = fmaxf(m, in[j]);
// OUT-NEXT:   const float kopt_sm_e = in[j];
// OUT-NEXT:   const float kopt_sm_n = fmaxf(kopt_sm_m, kopt_sm_e);
// OUT-NEXT:   kopt_sm_s = kopt_sm_s * expf(kopt_sm_m - kopt_sm_n) + expf(kopt_sm_e - kopt_sm_n);
// OUT-NEXT:   kopt_sm_m = kopt_sm_n;
// OUT-NEXT: }
// OUT:      float sum = 0.0f;
// OUT-NEXT: if (kopt_sm_s != 0.0f) {
// OUT-NEXT:   sum += kopt_sm_s * expf(kopt_sm_m - row_max);
// OUT-NEXT: }
// OUT-NEXT: red[threadIdx.x] = sum;

// A thread a row (llm.c's softmax kernel 1): serial loops, `if (x > m)`
// for the maximum, __expf, the term through a local, a double template.
// CHECK: online-softmax.cu:[[@LINE+12]]:5: remark: the sum of exponentials of 'row[j]' less 'maxval' comes from a running maximum and sum the loop at [[@LINE+8]]:5 keeps
template <typename T>
__global__ void softmax_serial(const T *__restrict__ inp, T *out, int n,
                               int c) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < n) {
    const T *row = inp + (long long)r * c;
    T maxval = -1e30;
    for (int j = 0; j < c; j++)
      if (row[j] > maxval)
        maxval = row[j];
    T total = 0;
    for (int j = 0; j < c; j++) {
      T e = __expf(row[j] - maxval);
      total += e;
    }
    for (int j = 0; j < c; j++)
      out[(long long)r * c + j] = __expf(row[j] - maxval) / total;
  }
}
template __global__ void softmax_serial<double>(const double *__restrict__,
                                                double *, int, int);
// OUT-LABEL: void softmax_serial(
// OUT:      T kopt_sm_m = -1.7976931348623157e+308;
// OUT-NEXT: T kopt_sm_s = static_cast<T>(0);
// OUT:        const T kopt_sm_n = fmax(kopt_sm_m, kopt_sm_e);
// OUT-NEXT:   kopt_sm_s = kopt_sm_s * __expf(kopt_sm_m - kopt_sm_n) + __expf(kopt_sm_e - kopt_sm_n);
// OUT:      if (kopt_sm_s != static_cast<T>(0)) {
// OUT-NEXT:   total += kopt_sm_s * __expf(kopt_sm_m - maxval);
// OUT-NEXT: }

// Refusals. The sum loop also stores the exponentials (llm.c's attention
// softmax): it must read the elements anyway.
// CHECK: online-softmax.cu:[[@LINE+12]]:5: remark: softmax denominator not computed online: the loop at [[@LINE+9]]:3 does more than add exponentials of deviations to 's' (at [[@LINE+11]]:5)
__global__ void stores_too(const float *__restrict__ x, float *__restrict__ y,
                           int n, float mx) {
  float m = -INFINITY;
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    m = fmaxf(m, x[i]);
  if (m > mx)
    return;
  float s = 0.0f;
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    float e = expf(x[i] - mx);
    y[i] = e;
    s += e;
  }
  y[threadIdx.x] += s;
}

// exp(centre - element) is no softmax denominator.
// CHECK: online-softmax.cu:[[@LINE+8]]:5: remark: softmax denominator not computed online: the loop at [[@LINE+7]]:3 adds the exponential of 'mx - x[i]', not the difference of an element and a value the loop does not change (element - value)
__global__ void reversed(const float *__restrict__ x, float *y, int n,
                         float mx) {
  float m = 0.0f;
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    m += x[i];
  float s = 0.0f;
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    s += expf(mx - x[i]);
  y[threadIdx.x] = s + m;
}

// x is not __restrict__; no earlier loop reads the element.
// CHECK: online-softmax.cu:[[@LINE+7]]:15: remark: softmax denominator not computed online: 'x[i]' is read again at [[@LINE+7]]:15, but 'x' is not __restrict__
__global__ void aliased(const float *x, float *y, int n, float mx) {
  float m = -INFINITY;
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    m = fmaxf(m, x[i]);
  float s = 0.0f;
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    s += expf(x[i] - m);
  y[threadIdx.x] = s;
}
// CHECK: online-softmax.cu:[[@LINE+4]]:3: remark: softmax denominator not computed online: no earlier loop of the same compound statement reads 'x[i]' over the same iterations
__global__ void alone(const float *__restrict__ x, float *y, int n,
                      float mx) {
  float s = 0.0f;
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    s += expf(x[i] - mx);
  y[threadIdx.x] = s;
}

// Half elements converted by __half2float (passed by value: a copy of the
// class element around the load).
// CHECK: online-softmax.cu:[[@LINE+8]]:3: remark: the sum of exponentials of '__half2float(x[i])' less 'm' comes from a running maximum and sum the loop at [[@LINE+5]]:3 keeps
// OUT: const float kopt_sm_e = __half2float(x[i]);
__global__ void halves(const __half *__restrict__ x, float *y, int n,
                       float m) {
  float a = 0;
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    a += __half2float(x[i]);
  float s = 0;
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    s += expf(__half2float(x[i]) - m);
  y[threadIdx.x] = s + a;
}

// A template's block size as the loops' step (one value an instance).
// CHECK: online-softmax.cu:[[@LINE+10]]:3: remark: the sum of exponentials of 'x[i]' less 'm' comes from a running maximum and sum the loop at [[@LINE+7]]:3 keeps
// OUT: for (int i = threadIdx.x; i < n; i += BLOCK) {
// OUT-NEXT: m = fmaxf(m, x[i]);
// OUT-NEXT: const float kopt_sm_e = x[i];
template <int BLOCK>
__global__ void stepped(const float *__restrict__ x, float *y, int n) {
  float m = -INFINITY;
  for (int i = threadIdx.x; i < n; i += BLOCK)
    m = fmaxf(m, x[i]);
  float s = 0;
  for (int i = threadIdx.x; i < n; i += BLOCK)
    s += expf(x[i] - m);
  y[threadIdx.x] = s;
}
template __global__ void stepped<256>(const float *__restrict__, float *, int);
