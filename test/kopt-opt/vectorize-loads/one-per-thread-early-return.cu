// One element per thread written with an early return, as much real code
// writes it: `if (i >= n) return;` then the element's statement. The
// statement after the return runs for the elements below n, as a guarded
// statement does, and is vectorized the same way; a bound that lets
// thread n through (`i > n`), more than one statement after the return,
// a return inside the statement and a changed index are refused.
// RUN: kopt-opt %s -passes=vectorize-loads -Rpass=vectorize-loads -Rpass-missed=vectorize-loads -o %t.cu 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: %strip_checks %t.cu | FileCheck %s
// RUN: kopt-opt %t.cu -passes=vectorize-loads -o %t2.cu && diff %t.cu %t2.cu
// RUN: %if cuda-toolkit %{ %nvcc_check %t.cu %}
// REQUIRES: filecheck
#include <cuda_runtime.h>

// REMARK-DAG: early-return.cu:[[@LINE+1]]:17: remark: vectorized one-element-per-thread kernel: 'in' as float4 (4 x float), 'out' as float4 (4 x float); grid divided by 4 at the launch at 70:3
__global__ void scale(int n, const float *in, float *out, float a) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[i] = a * in[i];
}
// CHECK-LABEL: __global__ void scale(
// CHECK: if (kopt_g < kopt_n / 4) {
// CHECK: } else if (kopt_g == kopt_n / 4) {
// CHECK-NEXT: for (int i = kopt_n / 4 * 4; i < kopt_n; ++i)
// CHECK-NEXT: out[i] = a * in[i];
// CHECK: for (int i = kopt_g; i < kopt_n; i += blockDim.x * gridDim.x)
// CHECK-NEXT: out[i] = a * in[i];
// CHECK-NOT: return;
// CHECK-LABEL: __global__ void relu(
// CHECK: if (kopt_g < kopt_n / 4) {
// CHECK-NOT: return;
// CHECK-LABEL: __global__ void past_n(
// CHECK: if (i > n) return;

// REMARK-DAG: early-return.cu:[[@LINE+1]]:17: remark: vectorized one-element-per-thread kernel: 'in' as float4 (4 x float), 'out' as float4 (4 x float); grid divided by 4 at the launch at 71:3
__global__ void relu(long n, const float *in, float *out) {
  const long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
  if (n <= i) {
    return;
  }
  { out[i] = in[i] > 0.0f ? in[i] : 0.0f; }
}

// REMARK-DAG: early-return.cu:[[@LINE+1]]:17: remark: no grid-stride or block-stride loop and no one-element-per-thread guard 'T i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) {...}' (or 'if (i >= n) return;' and one statement) in 'past_n'
__global__ void past_n(int n, const float *in, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i > n) return;
  out[i] = in[i];
}
// REMARK-DAG: early-return.cu:[[@LINE+1]]:17: remark: no grid-stride or block-stride loop and no one-element-per-thread guard {{.*}} in 'two_statements'
__global__ void two_statements(int n, const float *in, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = in[i];
  out[i] = v * v;
}
// REMARK-DAG: early-return.cu:[[@LINE+4]]:23: remark: one-element-per-thread kernel not vectorized: the element computation contains a return statement
__global__ void returns_again(int n, const float *in, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  { if (in[i] < 0.0f) return; out[i] = in[i]; }
}
// REMARK-DAG: early-return.cu:[[@LINE+4]]:{{[0-9]+}}: remark: one-element-per-thread kernel not vectorized: 'in' is accessed at 'i + 1' and at 'i': not one contiguous range per thread
__global__ void neighbour(int n, const float *in, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[i] = in[i] + (i + 1 < n ? in[i + 1] : 0.0f);
}

void launch(int n, const float *in, float *out) {
  scale<<<(n + 255) / 256, 256>>>(n, in, out, 2.0f);
  relu<<<(n + 127) / 128, 128>>>(n, in, out);
  past_n<<<(n + 255) / 256, 256>>>(n, in, out);
  two_statements<<<(n + 255) / 256, 256>>>(n, in, out);
  returns_again<<<(n + 255) / 256, 256>>>(n, in, out);
  neighbour<<<(n + 255) / 256, 256>>>(n, in, out);
}
