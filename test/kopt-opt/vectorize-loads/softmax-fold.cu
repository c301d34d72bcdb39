// online-softmax's running pair and closed form are a combine
// PartialCombine.h knows: the pair is the largest element and the sum of
// exponentials scaled to it of whichever elements a thread visited, so
// vectorize-loads{reassociate=true} may give threads other elements. A pair
// read otherwise after the loop exposes the partials.
// RUN: kopt-opt %s -passes='vectorize-loads{reassociate=true}' -Rpass=vectorize-loads -Rpass-missed=vectorize-loads -o %t.cu 2>&1 | FileCheck %s
// RUN: %if cuda-toolkit %{ %nvcc_check %t.cu %}
// After the fold itself:
// RUN: kopt-opt %kernels/softmax_f32/kernel.cu -passes='online-softmax{reassociate=true},vectorize-loads{reassociate=true}' -Rpass='online-softmax|vectorize-loads' -o /dev/null 2>&1 | FileCheck %s --check-prefix=AFTER
// AFTER: remark: the sum of exponentials of 'x[row * cols + j]' less 'row_max' comes from a running maximum
// AFTER: kernel.cu:15:3: remark: vectorized the block-stride loop: 'x' as float4
// REQUIRES: filecheck
#include <cuda_runtime.h>

// The fold as the pass writes it, a warp's shuffles and an atomic after it.
// CHECK-DAG: softmax-fold.cu:[[@LINE+5]]:3: remark: vectorized the block-stride loop: 'x' as float4
__global__ void folded(const float *__restrict__ x, float *out, int len,
                       float centre) {
  float kopt_sm_m = -3.40282347e+38f;
  float kopt_sm_s = 0.0f;
  for (int i = threadIdx.x; i < len; i += blockDim.x) {
    const float kopt_sm_e = x[i];
    const float kopt_sm_n = fmaxf(kopt_sm_m, kopt_sm_e);
    kopt_sm_s = kopt_sm_s * expf(kopt_sm_m - kopt_sm_n) +
                expf(kopt_sm_e - kopt_sm_n);
    kopt_sm_m = kopt_sm_n;
  }
  float sum = 0.0f;
  if (kopt_sm_s != 0.0f) {
    sum += kopt_sm_s * expf(kopt_sm_m - centre);
  }
  for (int o = 16; o > 0; o >>= 1)
    sum += __shfl_xor_sync(0xffffffffu, sum, o);
  if (threadIdx.x % 32 == 0)
    atomicAdd(&out[blockIdx.x], sum);
}

// The running maximum stored: each thread's value would change.
// CHECK-DAG: softmax-fold.cu:[[@LINE+8]]:{{[0-9]+}}: remark: block-stride loop not vectorized: the loop carries state other than partial sums, maxima and minima
__global__ void exposed(const float *__restrict__ x, float *out, int len,
                        float centre) {
  float kopt_sm_m = -3.40282347e+38f;
  float kopt_sm_s = 0.0f;
  for (int i = threadIdx.x; i < len; i += blockDim.x) {
    const float kopt_sm_e = x[i];
    const float kopt_sm_n = fmaxf(kopt_sm_m, kopt_sm_e);
    kopt_sm_s = kopt_sm_s * expf(kopt_sm_m - kopt_sm_n) +
                expf(kopt_sm_e - kopt_sm_n);
    kopt_sm_m = kopt_sm_n;
  }
  float sum = 0.0f;
  if (kopt_sm_s != 0.0f) {
    sum += kopt_sm_s * expf(kopt_sm_m - centre);
  }
  out[threadIdx.x] = sum + kopt_sm_m;
}
