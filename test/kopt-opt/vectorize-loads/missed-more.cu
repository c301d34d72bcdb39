// More reasons vectorize-loads refuses; refused kernels are left untouched.
// RUN: kopt-opt %s -passes=vectorize-loads -Rpass-missed=vectorize-loads -o %t.cu 2>&1 | FileCheck %s
// RUN: diff %s %t.cu
// REQUIRES: filecheck
#include <cuda_runtime.h>

struct Vec3 { float x, y, z; };

// CHECK-DAG: remark: grid-stride loop not vectorized: 'x' points to volatile memory
__global__ void volatile_ptr(volatile float *__restrict__ x, float *__restrict__ y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    y[i] = x[i];
}

// CHECK-DAG: remark: grid-stride loop not vectorized: the pointer 'x' is modified in the kernel
__global__ void moved_ptr(const float *__restrict__ x, float *__restrict__ y, int n) {
  x += 1;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    y[i] = x[i];
}

// CHECK-DAG: remark: grid-stride loop not vectorized: 'x' has 12-byte elements, which do not tile a 16-byte vector
__global__ void twelve_bytes(const Vec3 *__restrict__ x, float *__restrict__ y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    y[i] = x[i].x;
}

// CHECK-DAG: remark: grid-stride loop not vectorized: the elements are already 16 bytes wide
__global__ void wide_elements(const float4 *__restrict__ x, float4 *__restrict__ y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    y[i] = x[i];
}

// CHECK-DAG: remark: grid-stride loop not vectorized: the address of 'y[i]' is taken
__global__ void address_taken(const float *__restrict__ x, float *__restrict__ y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&y[i], x[i]);
}

// CHECK-DAG: remark: grid-stride loop not vectorized: the bound 'n + threadIdx.x' is not the same for all threads and iterations
__global__ void varying_bound(const float *__restrict__ x, float *__restrict__ y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n + threadIdx.x; i += blockDim.x * gridDim.x)
    y[i] = x[i];
}

// CHECK-DAG: remark: block-stride loop not vectorized: it starts at an offset from threadIdx.x that is not written in its init as 'start + threadIdx.x'
__global__ void offset_start(const float *__restrict__ x, float *__restrict__ y, int n) {
  const int first = threadIdx.x + 1;
  for (int j = first; j < n; j += blockDim.x)
    y[j] = x[j];
}

// CHECK-DAG: remark: grid-stride loop not vectorized: the element computation contains the warp collective '__shfl_xor_sync'
__global__ void shuffles(const float *__restrict__ x, float *__restrict__ y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    y[i] = __shfl_xor_sync(0xffffffffu, x[i], 1);
}

// CHECK-DAG: remark: grid-stride loop not vectorized: the element computation contains a return statement
__global__ void returns(const float *__restrict__ x, float *__restrict__ y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    if (x[i] < 0.0f)
      return;
    y[i] = x[i];
  }
}

// CHECK-DAG: remark: grid-stride loop not vectorized: the element computation contains a continue of the element loop
__global__ void continues(const float *__restrict__ x, float *__restrict__ y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    if (x[i] < 0.0f)
      continue;
    y[i] = x[i];
  }
}

// A continue or break of an inner loop is fine, but here the kernel
// accumulates across elements: refused for that reason instead.
// CHECK-DAG: remark: grid-stride loop not vectorized: the loop carries 'total' from one element to the next
__global__ void inner_loop(const float *__restrict__ x, float *__restrict__ y, int n) {
  float total = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    for (int k = 0; k < 4; ++k) {
      if (k == 2)
        continue;
      total += x[i] * k;
    }
  }
  y[0] = total;
}

// CHECK-DAG: remark: grid-stride loop not vectorized: no element-wise global access 'p[i]' to vectorize
__global__ void nothing_elementwise(const float *__restrict__ x, float *__restrict__ y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    y[0] += x[0];
}
