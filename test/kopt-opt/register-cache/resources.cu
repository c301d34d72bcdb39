// register-cache compiles its rewrite with nvcc -Xptxas -v and keeps it only
// when ptxas reports no more stack frame or spills than for the input. 256
// elements per thread cannot live in registers.
// RUN: kopt-opt %s -passes=register-cache -Rpass=register-cache -Rpass-missed=register-cache -o %t.cu 2>&1 | FileCheck %s --check-prefix=OK
// RUN: %nvcc_check %t.cu
// RUN: kopt-opt %s -passes='register-cache{max-elems=256}' -Rpass=register-cache -Rpass-missed=register-cache -o %t.big.cu 2>&1 | FileCheck %s --check-prefix=SPILL
// RUN: cmp %s %t.big.cu
// RUN: kopt-opt %s -passes='register-cache{max-elems=256,check-resources=false}' -Rpass=register-cache -o %t.unchecked.cu 2>&1 | FileCheck %s --check-prefix=UNCHECKED
// RUN: kopt-opt %s --nvcc=%nvcc -passes=register-cache -Rpass=register-cache -o /dev/null 2>&1 | FileCheck %s --check-prefix=OK
// REQUIRES: filecheck, cuda-toolkit
#include <cuda_runtime.h>

// OK: resources.cu:[[@LINE+8]]:3: remark: kept 'x[row * n + j]' in registers for the loop at [[@LINE+17]]:3: 32 elements per thread (auto: 32 registers for 256-thread blocks); 'n' above 32 * blockDim.x takes the original loops; ptxas: {{[0-9]+}} -> {{[0-9]+}} registers, no local memory [-Rpass=register-cache]
// SPILL: resources.cu:[[@LINE+3]]:17: remark: registers not used as a cache: the rewrite uses local memory (ptxas: {{[1-9][0-9]*}} bytes stack frame, {{[0-9]+}} bytes spill stores, {{[0-9]+}} bytes spill loads; the input: 0, 0, 0): lower max-elems [-Rpass-missed=register-cache]
// SPILL-NOT: remark: kept
// UNCHECKED: remark: kept 'x[row * n + j]' in registers for the loop at {{.*}}: 256 elements per thread (max-elems=256); 'n' above 256 * blockDim.x takes the original loops [-Rpass=register-cache]
__global__ void softmax(const float *__restrict__ x, float *__restrict__ y, int n) {
  __shared__ float partial[256];
  const int row = blockIdx.x;
  float sum = 0.0f;
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    sum += expf(x[row * n + j]);
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    y[row * n + j] = expf(x[row * n + j]) / partial[0];
}

void launch(const float *x, float *y, int rows, int n) {
  softmax<<<rows, 256>>>(x, y, n);
}
