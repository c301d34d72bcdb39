// atomic-aggregate: a grid- or block-stride loop whose body is an atomicAdd
// on one address keeps a sum per thread, and each warp adds its sum once.
// Integer sums are exact; float sums need reassociate=true. Refused: one
// atomicAdd a thread (nvcc aggregates those itself), an address that
// differs between threads or that the loop changes, a loop not in uniform
// control flow. Launches of unknown blocks get a run-time check.
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

// REMARK-DAG: atomic-aggregate.cu:[[@LINE+11]]:5: remark: aggregated atomicAdd on 'sum' (int) per warp: a sum per thread over the loop, then __shfl_xor_sync sums and one atomicAdd from lane 0; exact [-Rpass=atomic-aggregate]
// CHECK-LABEL: void sum_grid(
// CHECK: unsigned kopt_av = 0;
// CHECK-NEXT: bool kopt_ac = false;
// CHECK-NEXT: for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
// CHECK: kopt_av += (unsigned)(int)(x[i]);
// CHECK: if (kopt_any && threadIdx.x % 32 == 0)
// CHECK-NEXT: atomicAdd(sum, (int)kopt_av);
__global__ void sum_grid(const int *x, int *sum, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
    atomicAdd(sum, x[i]);
}

// REMARK-DAG: atomic-aggregate.cu:[[@LINE+5]]:5: remark: aggregated atomicAdd on 'sum' (unsigned int) per warp: a sum per thread over the loop, then __shfl_xor_sync sums and one atomicAdd from lane 0 (blocks of a multiple of 32 threads in x, checked at run time: the launch at {{.*}} uses the block 'threads'); exact
// CHECK-LABEL: void sum_any_block(
// CHECK: if (blockDim.x % 32 == 0) {
__global__ void sum_any_block(const unsigned *x, unsigned *sum, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    atomicAdd(sum, x[i]);
  }
}

// REMARK-DAG: atomic-aggregate.cu:[[@LINE+3]]:5: remark: aggregated atomicAdd on '&out[blockIdx.x]' (unsigned long long) per warp: a sum per thread over the loop
__global__ void row_counts(const int *x, unsigned long long *out, int n) {
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    atomicAdd(&out[blockIdx.x], (unsigned long long)(x[blockIdx.x * n + j] > 0));
}

// REMARK-DAG: atomic-aggregate.cu:[[@LINE+4]]:5: remark: atomicAdd not aggregated: summing float values per thread and per warp before one atomicAdd rounds differently from adding them one at a time (reassociate=true allows it)
// REASSOC-DAG: atomic-aggregate.cu:[[@LINE+3]]:5: remark: aggregated atomicAdd on 'out' (float) per warp: a sum per thread over the loop, then __shfl_xor_sync sums and one atomicAdd from lane 0; the floating-point sum is reassociated
__global__ void dot_grid(const float *a, const float *b, float *out, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(out, a[i] * b[i]);
}

// REMARK-DAG: atomic-aggregate.cu:[[@LINE+4]]:5: remark: atomicAdd not aggregated: one atomicAdd a thread: nvcc combines the atomics a warp makes on one address itself
__global__ void sum_int(const int *x, int *sum, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(sum, x[i]);
}

// REMARK-DAG: atomic-aggregate.cu:[[@LINE+3]]:5: remark: atomicAdd not aggregated: the address names 'i', which the loop changes
__global__ void histogram(const int *x, int *bins, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&bins[x[i] % 16], 1);
}

// REMARK-DAG: atomic-aggregate.cu:[[@LINE+6]]:5: remark: atomicAdd not aggregated: a return at {{[0-9]+}}:5 may let some threads skip the atomicAdd
__global__ void after_return(const int *x, int *sum, int n, int m) {
  if (m > n)
    return;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
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
  sum_grid<<<64, 256>>>(x, s, n);
  sum_any_block<<<64, threads>>>(u, us, n);
  row_counts<<<n, 128>>>(x, c, n);
  dot_grid<<<64, 128>>>(a, b, o, n);
  sum_int<<<(n + 255) / 256, 256>>>(x, s, n);
  histogram<<<64, 256>>>(x, s, n);
  after_return<<<64, 256>>>(x, s, n, threads);
  per_slot<<<1, 64>>>(s);
}
