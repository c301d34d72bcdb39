// restrict-const: const on read-only pointees; __restrict__ when every
// launch passes distinct cudaMalloc'd buffers. Then vectorize-loads can take
// the grid-stride loop it refuses without __restrict__.
// RUN: kopt-opt %s -passes=restrict-const -Rpass=restrict-const -Rpass-missed=restrict-const -o %t.cu 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: %strip_checks %t.cu | FileCheck %s
// RUN: %if cuda-toolkit %{ %nvcc_check %t.cu %}
// RUN: kopt-opt %s -passes='restrict-const{restrict=false}' | %strip_checks | FileCheck %s --check-prefix=NORESTRICT
// RUN: kopt-opt %s -passes='restrict-const{const=false}' | %strip_checks | FileCheck %s --check-prefix=NOCONST
// RUN: kopt-opt %s -passes='restrict-const{version=false}' -Rpass-missed=restrict-const -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOVERSION
// RUN: kopt-opt %s -passes=restrict-const,vectorize-loads -Rpass=vectorize-loads -o /dev/null 2>&1 | FileCheck %s --check-prefix=THEN
// REQUIRES: filecheck
#include <cuda_runtime.h>

// REMARK-DAG: remark: added const to 'x': the kernel only reads it [-Rpass=restrict-const]
// REMARK-DAG: remark: added __restrict__ to 'x', 'y': every launch passes distinct cudaMalloc'd buffers [-Rpass=restrict-const]
// THEN: remark: vectorized the grid-stride loop: 'x' as float4 (4 x float), 'y' as float4 (4 x float)
// CHECK: __global__ void scale(const float *__restrict__ x, float *__restrict__ y, int n) {
// NORESTRICT: __global__ void scale(const float *x, float *y, int n) {
// NOCONST: __global__ void scale(float *__restrict__ x, float *__restrict__ y, int n) {
__global__ void scale(float *x, float *y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    y[i] = 2.0f * x[i];
}

// Buffers from the launcher's caller prove nothing here: with version=false
// no __restrict__ (the run-time version is tested in version.cu).
// REMARK-DAG: remark: added const to 'a': the kernel only reads it
// REMARK-DAG: remark: added __restrict__ to 'a', 'b' in a copy 'from_caller_kopt_restrict'
// NOVERSION: remark: __restrict__ not added: the launch at {{[0-9]+}}:3 passes 'a' for 'a', which is not a distinct buffer cudaMalloc'd there, so the buffers may overlap [-Rpass-missed=restrict-const]
// CHECK: __global__ void from_caller(const float *a, float *b, int n) {
__global__ void from_caller(float *a, float *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    b[i] = a[i];
}

// The same buffer twice may overlap with itself (and a run-time check
// would always choose the original).
// REMARK-DAG: remark: __restrict__ not added: the launch at {{[0-9]+}}:3 passes 'buf' for 'q', which is not a distinct buffer cudaMalloc'd there, so the buffers may overlap; no run-time version: the launch at {{[0-9]+}}:3 passes 'buf' for both 'p' and 'q'
// CHECK: __global__ void twice(const float *p, float *q)
// CHECK-NOT: twice_kopt_restrict
__global__ void twice(float *p, float *q) { q[threadIdx.x] += p[threadIdx.x]; }

// A use other than p[i] reads: no const. The buffers are distinct
// allocations, so __restrict__ holds (accesses through 'alias' are based on
// 'raw').
// REMARK-DAG: remark: 'raw' is used other than by reads 'p[i]': kopt cannot prove the kernel never writes through it
// CHECK: __global__ void escapes(float *__restrict__ raw, float *__restrict__ out) {
__global__ void escapes(float *raw, float *out) {
  float *alias = raw;
  out[threadIdx.x] = alias[threadIdx.x];
}

// REMARK-DAG: remark: 'declared' is declared more than once: changing one declaration would declare another kernel
__global__ void declared(float *p, float *q);
__global__ void declared(float *p, float *q) { q[0] = p[0]; }

void launch_from_caller(float *a, float *b, int n) {
  from_caller<<<(n + 255) / 256, 256>>>(a, b, n);
}

void run(int n) {
  float *x = nullptr, *y;
  cudaMalloc(&x, n * sizeof(float));
  cudaMalloc((void **)&y, n * sizeof(float));
  scale<<<256, 256>>>(x, y, n);
  float *buf;
  cudaMalloc(&buf, 1024);
  twice<<<1, 32>>>(buf, buf);
  escapes<<<1, 32>>>(x, y);
  declared<<<1, 1>>>(x, y);
  cudaFree(x);
  cudaFree(y);
  cudaFree(buf);
}
