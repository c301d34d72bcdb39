// atomic-aggregate: atomicAdds that every thread of a warp makes on one
// address become one per warp (a loop of them, a sum per thread first).
// Integer sums are exact; float sums need reassociate=true. Refused: an
// address that differs between threads, a condition that picks threads
// (aggregated already), an atomic not in uniform control flow, an address
// the loop changes. Launches of unknown blocks get a run-time check.
// RUN: kopt-opt %s -passes=atomic-aggregate -Rpass=atomic-aggregate -Rpass-missed=atomic-aggregate -o %t.cu 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: %strip_checks %t.cu | FileCheck %s
// RUN: %if cuda-toolkit %{ %nvcc_check %t.cu %}
// A second run changes nothing.
// RUN: kopt-opt %t.cu -passes=atomic-aggregate -o %t.again.cu
// RUN: diff %t.cu %t.again.cu
// Floats with reassociate=true.
// RUN: kopt-opt %s -passes='atomic-aggregate{reassociate=true}' -Rpass=atomic-aggregate -o %t.re.cu 2>&1 | FileCheck %s --check-prefix=REASSOC
// RUN: %if cuda-toolkit %{ %nvcc_check %t.re.cu %}
// REQUIRES: filecheck
#include <cuda_runtime.h>

// REMARK-DAG: atomic-aggregate.cu:[[@LINE+11]]:5: remark: aggregated atomicAdd on 'sum' (int) per warp: __shfl_xor_sync sums and one atomicAdd from lane 0; exact [-Rpass=atomic-aggregate]
// CHECK-LABEL: void sum_int(
// CHECK: unsigned kopt_av = 0;
// CHECK-NEXT: bool kopt_ac = i < n;
// CHECK-NEXT: if (kopt_ac)
// CHECK-NEXT: kopt_av = (unsigned)(int)(x[i]);
// CHECK: if (kopt_any && threadIdx.x % 32 == 0)
// CHECK-NEXT: atomicAdd(sum, (int)kopt_av);
__global__ void sum_int(const int *x, int *sum, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(sum, x[i]);
}

// REMARK-DAG: atomic-aggregate.cu:[[@LINE+7]]:5: remark: aggregated atomicAdd on 'sum' (unsigned int) per warp: a sum per thread over the loop, then __shfl_xor_sync sums and one atomicAdd from lane 0 (blocks of a multiple of 32 threads in x, checked at run time: the launch at {{.*}} uses the block 'threads'); exact
// CHECK-LABEL: void sum_grid(
// CHECK: if (blockDim.x % 32 == 0) {
// CHECK: kopt_av += (unsigned int)(x[i]);
__global__ void sum_grid(const unsigned *x, unsigned *sum, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
    atomicAdd(sum, x[i]);
}

// REMARK-DAG: atomic-aggregate.cu:[[@LINE+4]]:5: remark: aggregated atomicAdd on '&out[blockIdx.x]' (unsigned long long) per warp: a sum per thread over the loop
// REASSOC-DAG: atomic-aggregate.cu:[[@LINE+3]]:5: remark: aggregated atomicAdd on '&out[blockIdx.x]'
__global__ void row_counts(const int *x, unsigned long long *out, int n) {
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    atomicAdd(&out[blockIdx.x], (unsigned long long)(x[blockIdx.x * n + j] > 0));
}

// REMARK-DAG: atomic-aggregate.cu:[[@LINE+5]]:5: remark: atomicAdd not aggregated: summing a warp's float values before one atomicAdd rounds differently from adding them one at a time (reassociate=true allows it)
// REASSOC-DAG: atomic-aggregate.cu:[[@LINE+4]]:5: remark: aggregated atomicAdd on 'out' (float) per warp: __shfl_xor_sync sums and one atomicAdd from lane 0; the floating-point sum is reassociated
__global__ void dot(const float *a, const float *b, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    atomicAdd(out, a[i] * b[i]);
  }
}

// REMARK-DAG: atomic-aggregate.cu:[[@LINE+4]]:5: remark: atomicAdd not aggregated: the address '&bins[x[i] % 16]' differs between threads: each adds to its own element
__global__ void histogram(const int *x, int *bins, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&bins[x[i] % 16], 1);
}

// REMARK-DAG: atomic-aggregate.cu:[[@LINE+6]]:5: remark: atomicAdd not aggregated: the condition 'threadIdx.x == 0' picks threads: the atomic is aggregated already
__global__ void per_block(const int *x, int *out) {
  __shared__ int s[256];
  s[threadIdx.x] = x[threadIdx.x];
  __syncthreads();
  if (threadIdx.x == 0)
    atomicAdd(out, s[0]);
}

// REMARK-DAG: atomic-aggregate.cu:[[@LINE+6]]:5: remark: atomicAdd not aggregated: a return at {{[0-9]+}}:5 may let some threads skip the atomicAdd
__global__ void nested(const int *x, int *sum, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  if (x[i] > 0)
    atomicAdd(sum, x[i]);
}

// REMARK-DAG: atomic-aggregate.cu:[[@LINE+3]]:5: remark: atomicAdd not aggregated: the address names 'k', which the loop changes
__global__ void per_slot(int *out) {
  for (int k = 0; k < 4; ++k)
    atomicAdd(&out[k], 1);
}

void launch(const int *x, int *s, const unsigned *u, unsigned *us,
            unsigned long long *c, const float *a, const float *b, float *o,
            int n, int threads) {
  sum_int<<<(n + 255) / 256, 256>>>(x, s, n);
  sum_grid<<<64, threads>>>(u, us, n);
  row_counts<<<n, 128>>>(x, c, n);
  dot<<<(n + 127) / 128, 128>>>(a, b, o, n);
  histogram<<<(n + 255) / 256, 256>>>(x, s, n);
  per_block<<<1, 256>>>(x, s);
  nested<<<(n + 255) / 256, 256>>>(x, s, n);
  per_slot<<<1, 64>>>(s);
}
