// Host code with OpenMP, as llm.c's matmul programs have it: <omp.h> (from
// libomp-22-dev, which scripts/install-deps installs) parses, the pragmas
// are kept as written, and the kernel is still rewritten.
// REQUIRES: filecheck, cuda-toolkit
// RUN: kopt-opt %s -O -o - | FileCheck %s
#include <omp.h>

__global__ void scale(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] *= 2.0f;
}

void cpu_scale(float *x, int n) {
#pragma omp parallel for
  for (int i = 0; i < n; ++i)
    x[i] *= 2.0f;
}

int threads() { return omp_get_max_threads(); }

void run(float *x, int n) { scale<<<(n + 255) / 256, 256>>>(x, n); }

// CHECK: __global__ void __launch_bounds__(256) scale(
// CHECK: #pragma omp parallel for
// CHECK: omp_get_max_threads()
