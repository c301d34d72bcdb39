// atomic-aggregate: a loop holding atomicAdds on block-uniform addresses
// (the whole body, or after work and under conditions in it) keeps a sum
// per thread and address, and each warp adds its sum once.
// Integer sums are exact; float sums need reassociate=true. Refused: one
// atomicAdd a thread (nvcc aggregates those itself), an address that
// differs between threads or that the loop changes or declares, a loop not
// in uniform control flow or with a return, a result used, a sum the loop
// also reads. Launches of unknown blocks get a run-time check.
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

// Work before the atomics, an if/else on two addresses: a sum each.
// REMARK-DAG: atomic-aggregate.cu:[[@LINE+19]]:7: remark: aggregated atomicAdd on '&counts[0]' (int) per warp
// REMARK-DAG: atomic-aggregate.cu:[[@LINE+20]]:7: remark: aggregated atomicAdd on '&counts[1]' (int) per warp
// CHECK-LABEL: void sign_counts(
// CHECK: unsigned kopt_av0 = 0;
// CHECK-NEXT: bool kopt_ac0 = false;
// CHECK-NEXT: unsigned kopt_av1 = 0;
// CHECK-NEXT: bool kopt_ac1 = false;
// CHECK-NEXT: for (int i
// CHECK: int v = x[i] / 2;
// CHECK-NEXT: if (v > 0)
// CHECK-NEXT: { kopt_av0 += (unsigned)(int)(v); kopt_ac0 = true; }
// CHECK-NEXT: else
// CHECK-NEXT: { kopt_av1 += (unsigned)(int)(1); kopt_ac1 = true; }
// CHECK: atomicAdd(&counts[0], (int)kopt_av0);
// CHECK: atomicAdd(&counts[1], (int)kopt_av1);
__global__ void sign_counts(const int *x, int *counts, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    int v = x[i] / 2;
    if (v > 0)
      atomicAdd(&counts[0], v);
    else
      atomicAdd(&counts[1], 1);
  }
}

// Two atomics on one address share one sum; an inner loop and a while loop.
// REMARK-DAG: atomic-aggregate.cu:[[@LINE+10]]:21: remark: aggregated atomicAdd on 'sum' (unsigned int)
// REMARK-DAG: atomic-aggregate.cu:[[@LINE+10]]:12: remark: aggregated atomicAdd on 'sum' (unsigned int)
// CHECK-LABEL: void odd_even(
// CHECK: unsigned int kopt_av = 0;
// CHECK-NOT: kopt_av1
// CHECK: atomicAdd(sum, kopt_av);
__global__ void odd_even(const unsigned *x, unsigned *sum, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  while (i < n) {
    for (int j = 0; j < 2; ++j)
      if (x[i] & 1) atomicAdd(sum, x[i]);
      else atomicAdd(sum, 3 * x[i]);
    i += blockDim.x * gridDim.x;
  }
}

// Refused: the result is used; the loop reads the sum (and so its other
// atomicAdd stays too); a return inside the loop; an address the loop
// declares.
// REMARK-DAG: atomic-aggregate.cu:[[@LINE+4]]:14: remark: atomicAdd not aggregated: its result is used, or it is not a statement of its own
// REMARK-DAG: atomic-aggregate.cu:[[@LINE+4]]:5: remark: atomicAdd not aggregated: the loop also uses 'ctr' at [[@LINE+3]]:24 other than as the address of an atomicAdd statement: it would see the sum before the threads add their parts
__global__ void tickets(const int *x, int *ctr, int *out, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    out[i] = atomicAdd(ctr, 1);
    atomicAdd(ctr, x[i]);
  }
}
// REMARK-DAG: atomic-aggregate.cu:[[@LINE+3]]:5: remark: atomicAdd not aggregated: the loop also uses 'sum' at [[@LINE+4]]:10 other than as the address
__global__ void capped(const int *x, int *sum, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    atomicAdd(sum, x[i]);
    if (*sum > 100)
      break;
  }
}
// REMARK-DAG: atomic-aggregate.cu:[[@LINE+4]]:5: remark: atomicAdd not aggregated: the return at [[@LINE+3]]:19 leaves the loop: that thread would skip the add of its sum
__global__ void until_negative(const int *x, int *sum, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    if (x[i] < 0) return;
    atomicAdd(sum, x[i]);
  }
}
// REMARK-DAG: atomic-aggregate.cu:[[@LINE+4]]:5: remark: atomicAdd not aggregated: the address names 'dst', which the loop declares
__global__ void per_block(const int *x, int *sum, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    int *dst = sum + blockIdx.x;
    atomicAdd(dst, x[i]);
  }
}

// REMARK-DAG: atomic-aggregate.cu:[[@LINE+5]]:5: remark: atomicAdd not aggregated: the loop also uses 'out' at [[@LINE+6]]:13 other than as the address
__global__ void through_local(const int *x, int *out, int n) {
  int *dst = out + blockIdx.x;
  int seen = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    atomicAdd(dst, x[i]);
    seen += out[0] > 5;
  }
  if (seen < 0)
    out[1] = seen;
}

// Floats: two sums (a sum and a sum of squares) under reassociate=true.
// REASSOC-DAG: atomic-aggregate.cu:[[@LINE+5]]:5: remark: aggregated atomicAdd on '&s[0]' (float)
// REASSOC-DAG: atomic-aggregate.cu:[[@LINE+5]]:5: remark: aggregated atomicAdd on '&s[1]' (float)
__global__ void moments(const float *x, float *s, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    float v = x[i];
    atomicAdd(&s[0], v);
    atomicAdd(&s[1], v * v);
  }
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
  sign_counts<<<64, 256>>>(x, s, n);
  odd_even<<<64, 256>>>(u, us, n);
  tickets<<<64, 256>>>(x, s, s, n);
  capped<<<64, 256>>>(x, s, n);
  until_negative<<<64, 256>>>(x, s, n);
  per_block<<<64, 256>>>(x, s, n);
  through_local<<<64, 256>>>(x, s, n);
  moments<<<64, 256>>>(a, o, n);
}
