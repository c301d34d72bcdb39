// one-pass-variance's closed form is a combine PartialCombine.h knows: the
// sums it reads give each thread's sum of squared deviations for whichever
// elements the thread visited, so vectorize-loads{reassociate=true} may
// give threads other elements. A closed form whose shift changes after the
// loop, or that reads the sums otherwise, exposes the partials.
// RUN: kopt-opt %s -passes='vectorize-loads{reassociate=true}' -Rpass=vectorize-loads -Rpass-missed=vectorize-loads -o %t.cu 2>&1 | FileCheck %s
// RUN: %if cuda-toolkit %{ %nvcc_check %t.cu %}
// After the fold itself:
// RUN: kopt-opt %kernels/layernorm_groups_f32/kernel.cu -passes='restrict-const,one-pass-variance{reassociate=true},vectorize-loads{reassociate=true}' -Rpass='one-pass-variance|vectorize-loads' -o /dev/null 2>&1 | FileCheck %s --check-prefix=AFTER
// AFTER: remark: the squared deviations of 'in[i]' from 'mean' come from sums
// AFTER: kernel.cu:12:3: remark: vectorized the block-stride loop: 'in' as float4
// REQUIRES: filecheck
#include <cuda_runtime.h>

// The fold as the pass writes it, the block's tree after it.
// CHECK-DAG: variance-fold.cu:[[@LINE+6]]:3: remark: vectorized the block-stride loop: 'x' as float4
__global__ void folded(const float *__restrict__ x, float *out, int len,
                       float mean) {
  float k = x[threadIdx.x % 4];
  float s = 0.0f, q = 0.0f;
  unsigned long long n = 0;
  for (int i = threadIdx.x; i < len; i += blockDim.x) {
    float d = x[i] - k;
    s += d;
    q += d * d;
    ++n;
  }
  float v = 0.0f;
  if (n != 0) {
    const float c = mean - k;
    v += q - c * (2.0f * s - static_cast<float>(n) * c);
  }
  __shared__ float buf[256];
  buf[threadIdx.x] = v;
  __syncthreads();
  for (int st = blockDim.x / 2; st > 0; st /= 2) {
    if (threadIdx.x < st)
      buf[threadIdx.x] += buf[threadIdx.x + st];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = buf[0];
}

// The shift changes after the loop: the closed form no longer cancels it.
// CHECK-DAG: variance-fold.cu:[[@LINE+16]]:{{[0-9]+}}: remark: block-stride loop not vectorized: vectorizing changes which elements each thread folds into 's'
__global__ void moved_shift(const float *__restrict__ x, float *out, int len,
                            float mean) {
  float k = x[threadIdx.x % 4];
  float s = 0.0f, q = 0.0f;
  unsigned long long n = 0;
  for (int i = threadIdx.x; i < len; i += blockDim.x) {
    float d = x[i] - k;
    s += d;
    q += d * d;
    ++n;
  }
  k += 1.0f;
  float v = 0.0f;
  if (n != 0) {
    const float c = mean - k;
    v += q - c * (2.0f * s - static_cast<float>(n) * c);
  }
  __shared__ float buf[256];
  buf[threadIdx.x] = v;
  __syncthreads();
  for (int st = blockDim.x / 2; st > 0; st /= 2) {
    if (threadIdx.x < st)
      buf[threadIdx.x] += buf[threadIdx.x + st];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = buf[0];
}

// A square of a sum is not the closed form (3 * s, not 2 * s).
// CHECK-DAG: variance-fold.cu:[[@LINE+15]]:{{[0-9]+}}: remark: block-stride loop not vectorized: vectorizing changes which elements each thread folds into 's'
__global__ void wrong_form(const float *__restrict__ x, float *out, int len,
                           float mean) {
  float k = x[threadIdx.x % 4];
  float s = 0.0f, q = 0.0f;
  unsigned long long n = 0;
  for (int i = threadIdx.x; i < len; i += blockDim.x) {
    float d = x[i] - k;
    s += d;
    q += d * d;
    ++n;
  }
  float v = 0.0f;
  if (n != 0) {
    const float c = mean - k;
    v += q - c * (3.0f * s - static_cast<float>(n) * c);
  }
  __shared__ float buf[256];
  buf[threadIdx.x] = v;
  __syncthreads();
  for (int st = blockDim.x / 2; st > 0; st /= 2) {
    if (threadIdx.x < st)
      buf[threadIdx.x] += buf[threadIdx.x + st];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = buf[0];
}
