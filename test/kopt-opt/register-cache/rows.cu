// register-cache through row pointers: a two-pass norm that names its row
// first (`const float *row = x + blockIdx.x * n;`) keeps `row[j]` in
// registers as it keeps `x[...]`. The restrict promise of `x` covers every
// pointer based on it; every use of `x` and of its rows must be a read or
// the declaration of a row, and a row must never change.
// RUN: kopt-opt %s -passes='register-cache{check-resources=false}' -Rpass=register-cache -Rpass-missed=register-cache -o %t.cu 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: %strip_checks %t.cu | FileCheck %s
// RUN: %if cuda-toolkit %{ %nvcc_check %t.cu %}
// RUN: kopt-opt %t.cu -passes='register-cache{check-resources=false}' -o %t.again.cu
// RUN: cmp %t.cu %t.again.cu
// shared-cache fills a block-wide buffer, which needs a row the same for
// every thread: it stages parameters only, and says so.
// RUN: kopt-opt %s -passes='shared-cache{narrow-only=false}' -Rpass-missed=shared-cache -o /dev/null 2>&1 | FileCheck %s --check-prefix=SHARED
// REQUIRES: filecheck
// REMARK-DAG: rows.cu:[[@LINE+30]]:3: remark: kept 'row[j]' in registers for the loop at [[@LINE+40]]:3: 32 elements per thread
// REMARK-DAG: rows.cu:[[@LINE+50]]:3: remark: kept 'row[j]' in registers for the loop at [[@LINE+55]]:3: 32 elements per thread
// REMARK-DAG: remark: registers not used as a cache: 'row[j]' is read again at [[@LINE+71]]:40, but 'row' is assigned after its declaration
// REMARK-DAG: remark: registers not used as a cache: 'row[j]' is read again at [[@LINE+86]]:40, but 'row' is used other than by reading 'row[...]' or declaring a row pointer
// REMARK-DAG: remark: registers not used as a cache: 'row[j]' is read again at [[@LINE+99]]:40, but 'x' is not __restrict__
// REMARK-DAG: remark: registers not used as a cache: 'row[j]' is read again at [[@LINE+113]]:14, but 'x' is written through 'dst' (at [[@LINE+113]]:5)
// SHARED: remark: row not cached in shared memory: 'row' is a local row pointer (shared-cache stages the elements of parameters only; register-cache keeps a row's)
// CHECK-LABEL: __global__ void rownorm(
// CHECK:          float kopt_cache_row[32];
// CHECK-NEXT:     const bool kopt_cached = n <= 32 * blockDim.x;
// CHECK:              kopt_cache_row[kopt_k] = row[j];
// CHECK-NEXT:         const float &kopt_row = kopt_cache_row[kopt_k];
// CHECK-NEXT:         sum += kopt_row * kopt_row;
// CHECK:              const float &kopt_row = kopt_cache_row[kopt_k];
// CHECK-NEXT:         out[j] = kopt_row * scale;
// CHECK-LABEL: __global__ void chain(
// CHECK:              kopt_cache_row[kopt_k] = row[j];
// CHECK:              y[(long long)blockIdx.x * n + j] = kopt_row - total;
// CHECK-LABEL: __global__ void moved(
// CHECK-NOT:      kopt_cache
// CHECK-LABEL: void launch(
#include <cuda_runtime.h>

// Two-pass norm reading its row through a local pointer.
__global__ void rownorm(const float *__restrict__ x, float *__restrict__ y,
                        int n) {
  __shared__ float partial[256];
  const float *row = x + (long long)blockIdx.x * n;
  float *out = y + (long long)blockIdx.x * n;
  float sum = 0.0f;
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    sum += row[j] * row[j];
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  const float scale = rsqrtf(partial[0] / n + 1e-5f);
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    out[j] = row[j] * scale;
}

// A chain of rows; the parameter is also read directly.
__global__ void chain(const float *__restrict__ x, float *__restrict__ y,
                      int n) {
  __shared__ float total;
  const float *base = x + (long long)blockIdx.x * 2 * n;
  const float *row = &base[n];
  float m = 0.0f;
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    m = fmaxf(m, row[j]);
  if (threadIdx.x == 0)
    total = m + x[0];
  __syncthreads();
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    y[(long long)blockIdx.x * n + j] = row[j] - total;
}

// The row is assigned again: refused.
__global__ void moved(const float *__restrict__ x, float *__restrict__ y,
                      int n) {
  __shared__ float total;
  const float *row = x + (long long)blockIdx.x * n;
  float s = 0.0f;
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    s += row[j];
  if (threadIdx.x == 0)
    total = s;
  __syncthreads();
  row = x;
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    y[(long long)blockIdx.x * n + j] = row[j] / total;
}

// The row escapes to a helper: refused.
__device__ float first(const float *p) { return p[0]; }
__global__ void escapes(const float *__restrict__ x, float *__restrict__ y,
                        int n) {
  __shared__ float total;
  const float *row = x + (long long)blockIdx.x * n;
  float s = 0.0f;
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    s += row[j];
  if (threadIdx.x == 0)
    total = s + first(row);
  __syncthreads();
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    y[(long long)blockIdx.x * n + j] = row[j] / total;
}

// Not __restrict__: refused.
__global__ void aliased(const float *x, float *y, int n) {
  __shared__ float total;
  const float *row = x + (long long)blockIdx.x * n;
  float s = 0.0f;
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    s += row[j];
  if (threadIdx.x == 0)
    total = s;
  __syncthreads();
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    y[(long long)blockIdx.x * n + j] = row[j] / total;
}

// The parameter is written through another row: refused.
__global__ void written(float *__restrict__ x, int n) {
  __shared__ float total;
  const float *row = x + (long long)blockIdx.x * n;
  float *dst = x + (long long)blockIdx.x * n;
  float s = 0.0f;
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    s += row[j];
  if (threadIdx.x == 0)
    total = s;
  __syncthreads();
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    dst[j] = row[j] / total;
}

void launch(const float *x, float *y, float *z, int rows, int n) {
  rownorm<<<rows, 256>>>(x, y, n);
  chain<<<rows, 256>>>(x, y, n);
  moved<<<rows, 256>>>(x, y, n);
  escapes<<<rows, 256>>>(x, y, n);
  aliased<<<rows, 256>>>(x, y, n);
  written<<<rows, 256>>>(z, n);
}
