// thread-utilization reports block-stride loops over fewer elements than
// the block has threads, and with fix=true lowers the block size.
// RUN: kopt-opt %s -passes=thread-utilization -Rpass=thread-utilization -Rpass-missed=thread-utilization -o %t.report.cu 2>&1 | FileCheck %s --check-prefix=REPORT
// RUN: diff %s %t.report.cu
// RUN: kopt-opt %s -passes='thread-utilization{fix=true}' -Rpass-missed=thread-utilization -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXACT
// RUN: kopt-opt %s -passes='thread-utilization{fix=true,reassociate=true}' -Rpass=thread-utilization -Rpass-missed=thread-utilization -o %t.cu 2>&1 | FileCheck %s --check-prefix=FIX
// RUN: %strip_checks %t.cu | FileCheck %s
// RUN: %if cuda-toolkit %{ %nvcc_check %t.cu %}
// REQUIRES: filecheck
#include <cuda_runtime.h>

// 64 columns, passed as a constant by the only launch: 192 of 256 threads
// idle; fixed with 64 threads (the tree needs a power of two). The sums
// then pair other elements: only with reassociate=true.
// EXACT-DAG: thread-utilization.cu:[[@LINE+8]]:17: remark: idle threads of 'narrow_rows' not fixed: the floating-point accumulation at [[@LINE+12]]:5 is split across threads by the block size
// REPORT-DAG: thread-utilization.cu:[[@LINE+10]]:3: remark: block-stride loop over 64 elements keeps 64 of 256 threads busy (192 idle); fix=true lowers the block size [-Rpass-missed=thread-utilization]
// FIX-DAG: thread-utilization.cu:[[@LINE+9]]:3: remark: block-stride loop over 64 elements keeps 64 of 256 threads busy (192 idle) [-Rpass-missed=thread-utilization]
// FIX-DAG: thread-utilization.cu:[[@LINE+5]]:17: remark: 'narrow_rows' launched with 64 threads per block instead of 256 (its block-stride loops cover at most 64 elements); shared array 'partial' resized to 64 [-Rpass=thread-utilization]
// CHECK: __shared__ float partial[64];
// CHECK: narrow_rows<<<rows, 64>>>(x, y, 64);
// CHECK: constant_bound<<<rows, 128>>>(y);
// CHECK: wide<<<rows, 256>>>(y, 4096);
__global__ void narrow_rows(const float *x, float *out, int cols) {
  __shared__ float partial[256];
  float s = 0.0f;
  for (int j = threadIdx.x; j < cols; j += blockDim.x)
    s += x[blockIdx.x * cols + j];
  partial[threadIdx.x] = s;
  __syncthreads();
  for (int k = blockDim.x / 2; k > 0; k >>= 1) {
    if (threadIdx.x < k)
      partial[threadIdx.x] += partial[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = partial[0];
}

// A constant bound in the kernel; 100 elements need 128 threads.
// FIX-DAG: thread-utilization.cu:[[@LINE+2]]:17: remark: 'constant_bound' launched with 128 threads per block instead of 512 (its block-stride loops cover at most 100 elements) [-Rpass=thread-utilization]
// REPORT-DAG: thread-utilization.cu:[[@LINE+2]]:3: remark: block-stride loop over 100 elements keeps 100 of 512 threads busy (412 idle); fix=true lowers the block size
__global__ void constant_bound(float *x) {
  for (int j = threadIdx.x; j < 100; j += blockDim.x)
    x[blockIdx.x * 100 + j] = 0.0f;
}

// Busy: no remark.
// REPORT-NOT: {{.*}}wide
__global__ void wide(float *x, int cols) {
  for (int j = threadIdx.x; j < cols; j += blockDim.x)
    x[blockIdx.x * cols + j] = 0.0f;
}

// Unknown sizes, and a kernel that cannot be relaunched.
// REPORT-DAG: thread-utilization.cu:[[@LINE+4]]:3: remark: thread utilization of the block-stride loop not checked: its bound 'n' is not known at the launch at {{[0-9]+}}:3 [-Rpass-missed=thread-utilization]
// REPORT-DAG: thread-utilization.cu:[[@LINE+5]]:3: remark: block-stride loop over 32 elements keeps 32 of 256 threads busy (224 idle)
// FIX-DAG: thread-utilization.cu:[[@LINE+1]]:17: remark: idle threads of 'partly_known' not fixed: the block-stride loop at [[@LINE+2]]:3: its bound 'n' is not known at the launch at {{[0-9]+}}:3 [-Rpass-missed=thread-utilization]
__global__ void partly_known(float *x, int n) {
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    x[j] = 0.0f;
  for (int j = threadIdx.x; j < 32; j += blockDim.x)
    x[j] += 1.0f;
}
// REPORT-DAG: thread-utilization.cu:[[@LINE+2]]:17: remark: thread utilization of 'runtime_block' not checked: the block size 'threads' at {{[0-9]+}}:3 is not a compile-time constant [-Rpass-missed=thread-utilization]
// FIX-DAG: thread-utilization.cu:[[@LINE+5]]:17: remark: idle threads of 'fixed_size' not fixed: it uses the constant 256, its block size, at [[@LINE+7]]:11 [-Rpass-missed=thread-utilization]
__global__ void runtime_block(float *x) {
  for (int j = threadIdx.x; j < 16; j += blockDim.x)
    x[j] = 0.0f;
}
__global__ void fixed_size(float *x) {
  for (int j = threadIdx.x; j < 40; j += blockDim.x)
    x[j + 256] = 0.0f;
}
// 40 elements under 64 threads: a power of two needs 64 anyway.
// FIX-DAG: thread-utilization.cu:[[@LINE+1]]:17: remark: idle threads of 'small_block' not fixed: covering 40 elements takes 64 threads, no fewer than 64 [-Rpass-missed=thread-utilization]
__global__ void small_block(float *x) {
  for (int j = threadIdx.x; j < 40; j += blockDim.x)
    x[j] = 0.0f;
}

void launch(const float *x, float *y, int rows, int n, int threads) {
  narrow_rows<<<rows, 256>>>(x, y, 64);
  constant_bound<<<rows, 512>>>(y);
  wide<<<rows, 256>>>(y, 4096);
  partly_known<<<1, 256>>>(y, n);
  runtime_block<<<1, threads>>>(y);
  fixed_size<<<1, 256>>>(y);
  small_block<<<1, 64>>>(y);
}
