// Each reason vectorize-loads refuses, and that a refused kernel is left
// untouched.
// RUN: kopt-opt %s -passes=vectorize-loads -Rpass-missed=vectorize-loads -o %t.cu 2>&1 | FileCheck %s
// RUN: diff %s %t.cu
// REQUIRES: filecheck
#include <cuda_runtime.h>

// CHECK-DAG: missed.cu:[[@LINE+3]]:{{[0-9]+}}: remark: grid-stride loop not vectorized: 'x' is accessed at '2 * i' as well as at 'i': its accesses are not contiguous per thread
__global__ void strided(const float *__restrict__ x, float *__restrict__ y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    y[i] = x[i] + x[2 * i];
}

// A load that is not element-wise has no range to check at run time
// (element-wise ones do: disjoint.cu).
// CHECK-DAG: missed.cu:[[@LINE+3]]:{{[0-9]+}}: remark: grid-stride loop not vectorized: the store to 'y' may alias the load from 'w', which is not element-wise here, so its range is unknown: declare the pointers __restrict__
__global__ void aliasing(const float *x, const float *w, float *y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    y[i] = 2.0f * x[i] + w[0];
}

// `i <= n` also runs element n, which the vector loop over [0, n) would
// not.
// CHECK-DAG: missed.cu:[[@LINE+2]]:{{[0-9]+}}: remark: grid-stride loop not vectorized: its condition includes the bound ('<='); only 'i < n' is handled
__global__ void inclusive(const float *__restrict__ x, float *__restrict__ y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i <= n; i += blockDim.x * gridDim.x)
    y[i] = 2.0f * x[i];
}

// CHECK-DAG: missed.cu:[[@LINE+2]]:{{[0-9]+}}: remark: grid-stride loop not vectorized: the index 'i' (int) is narrower than its bound 'n' (size_t): vector index arithmetic could overflow
__global__ void narrow(const float *__restrict__ x, float *__restrict__ y, size_t n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    y[i] = x[i];
}

// CHECK-DAG: missed.cu:[[@LINE+4]]:{{[0-9]+}}: remark: grid-stride loop not vectorized: the element computation contains a barrier
__global__ void barrier(const float *__restrict__ x, float *__restrict__ y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    y[i] = x[i];
    __syncthreads();
  }
}

// CHECK-DAG: missed.cu:[[@LINE+3]]:{{[0-9]+}}: remark: grid-stride loop not vectorized: the element computation contains a use of threadIdx
__global__ void uses_tid(const float *__restrict__ x, float *__restrict__ y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    y[i] = x[i] + threadIdx.x;
}

// Another block computes each element of a grid-stride loop once
// vectorized (of a block-stride loop, another thread of the same block).
// CHECK-DAG: missed.cu:[[@LINE+3]]:{{[0-9]+}}: remark: grid-stride loop not vectorized: the element computation contains a use of blockIdx
__global__ void uses_block(const float *__restrict__ x, float *__restrict__ y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    y[i] = x[i] + blockIdx.x * blockDim.x;
}

// CHECK-DAG: missed.cu:[[@LINE+4]]:{{[0-9]+}}: remark: grid-stride loop not vectorized: the element computation contains a break out of the element loop
__global__ void breaks(const float *__restrict__ x, float *__restrict__ y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    if (x[i] < 0.0f)
      break;
    y[i] = x[i];
  }
}

// CHECK-DAG: missed.cu:[[@LINE+3]]:{{[0-9]+}}: remark: grid-stride loop not vectorized: the store to 'y[x[i]]' is not element-wise
__global__ void scatter(const int *__restrict__ x, int *__restrict__ y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    y[x[i]] = i;
}

// CHECK-DAG: missed.cu:[[@LINE+1]]:{{[0-9]+}}: remark: template kernel not rewritten: this file instantiates it nowhere (no launch or instantiation of 'templated' to analyse)
template <typename T> __global__ void templated(const T *x, T *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = x[i];
}

// CHECK-DAG: missed.cu:[[@LINE+1]]:{{[0-9]+}}: remark: no grid-stride or block-stride loop and no one-element-per-thread guard
__global__ void shapeless(float *y) { y[0] = 1.0f; }

// CHECK-DAG: missed.cu:[[@LINE+5]]:{{[0-9]+}}: remark: one-element-per-thread kernel not vectorized: the store to 'out' may alias the load from 'x', and the load at [[@LINE+5]]:{{[0-9]+}} follows the store at [[@LINE+4]]:{{[0-9]+}}
__global__ void load_after_store(const float *x, float *out, float *out2, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    out[i] = 1.0f;
    out2[i] = x[i];
  }
}

// CHECK-DAG: missed.cu:[[@LINE+1]]:{{[0-9]+}}: remark: one-element-per-thread kernel not vectorized: no launch site in this file, so the grid cannot be adjusted
__global__ void unlaunched(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = x[i];
}

// CHECK-DAG: missed.cu:[[@LINE+1]]:{{[0-9]+}}: remark: one-element-per-thread kernel not vectorized: 'by_pointer' is launched other than by <<<...>>> in this file, so its grid cannot be adjusted
__global__ void by_pointer(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = x[i];
}

void launch(const float *x, float *y, int n) {
  load_after_store<<<n / 256, 256>>>(x, y, y, n);
  void (*k)(const float *, float *, int) = by_pointer;
  cudaLaunchKernel((const void *)k, dim3(1), dim3(1), nullptr, 0, 0);
}
