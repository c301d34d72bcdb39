// A vector access runs for every element, so it may only replace accesses the
// original makes for every element. The first kernel has the shape of
// llm.c's fused_classifier_kernel3, which -O once rewrote into unconditional
// float4 stores through a pointer the program passes as NULL.
// RUN: kopt-opt %s -passes=vectorize-loads -Rpass=vectorize-loads -Rpass-missed=vectorize-loads -o %t.cu 2>&1 | FileCheck %s
// RUN: %strip_checks %t.cu | FileCheck %s --check-prefix=OUT
// RUN: %if cuda-toolkit %{ %nvcc_check %t.cu %}
// REQUIRES: filecheck
#include <cuda_runtime.h>

// CHECK-DAG: conditional.cu:[[@LINE+11]]:{{[0-9]+}}: remark: block-stride loop not vectorized: the store to 'dlogits[row + i]' runs only when 'dlogits != NULL': a vector store would write every element [-Rpass-missed=vectorize-loads]
__global__ void optional_outputs(float *__restrict__ dlogits,
                                 float *__restrict__ probs,
                                 const float *__restrict__ logits, int V,
                                 float scale) {
  const int row = blockIdx.x * V;
  for (int i = threadIdx.x; i < V; i += blockDim.x) {
    float prob = expf(logits[row + i]) * scale;
    if (probs != NULL)
      probs[row + i] = prob;
    if (dlogits != NULL)
      dlogits[row + i] = prob - 1.0f;
  }
}

// A load the original makes only under a condition: reading every element
// could read memory the program never meant to be read.
// CHECK-DAG: conditional.cu:[[@LINE+5]]:{{[0-9]+}}: remark: grid-stride loop not vectorized: the load of 'bias[i]' runs only when 'bias': a vector load would read every element
__global__ void optional_bias(const float *__restrict__ x,
                              const float *__restrict__ bias,
                              float *__restrict__ y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    y[i] = x[i] + (bias ? bias[i] : 0.0f);
}

// An in-place update under a condition: the load is unconditional, the store
// is not; a vector store would still write elements the original leaves.
// CHECK-DAG: conditional.cu:[[@LINE+4]]:{{[0-9]+}}: remark: grid-stride loop not vectorized: the store to 'x[i]' runs only when 'x[i] < 0.0f': a vector store would write every element
__global__ void relu_in_place(float *__restrict__ x, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    if (x[i] < 0.0f)
      x[i] = 0.0f;
}

// The control: every access runs for every element.
// CHECK-DAG: conditional.cu:[[@LINE+3]]:{{[0-9]+}}: remark: vectorized the grid-stride loop: {{.*}} [-Rpass=vectorize-loads]
__global__ void always(const float *__restrict__ x, float *__restrict__ y,
                       int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}

// OUT-LABEL: void optional_outputs(
// OUT-NOT: kopt_vec
// OUT-LABEL: void always(
// OUT: kopt_vec_x
