// warp-reduce on template kernels, as CUB-style and tutorial code writes
// them (`template <typename T>`, `template <unsigned BLOCK>`): each
// instantiation the file launches is checked as a kernel of its own, and the
// template's text is rewritten only when every instantiation asks for the
// same text; it names T where the template does, and a static_assert pins
// the template to the arguments that were checked.
// RUN: kopt-opt %s -passes='warp-reduce{check-resources=false}' -Rpass=warp-reduce -Rpass-missed=warp-reduce -o %t.cu 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: %strip_checks %t.cu | FileCheck %s
// RUN: %if cuda-toolkit %{ %nvcc_check %t.cu %}
// RUN: kopt-opt %t.cu -passes='warp-reduce{check-resources=false}' -o %t.again.cu
// RUN: cmp %t.cu %t.again.cu
// The in-order tail of a float sum is checked against the resource estimate
// of each instantiation (the estimator compiles with nvcc).
// RUN: %if cuda-toolkit %{ kopt-opt %s -passes=warp-reduce -Rpass=warp-reduce -o /dev/null 2>&1 | FileCheck %s --check-prefix=ESTIMATED %}
// REQUIRES: filecheck
//
#include <cuda_runtime.h>

// CHECK-LABEL: __global__ void sum_t(
// CHECK-NEXT:    static_assert((__is_same(T, int)),
// CHECK:           T kopt_wr = x[blockIdx.x * 256 + threadIdx.x];
// REMARK-DAG: templates.cu:[[@LINE+5]]:3: remark: replaced the shared-memory tree over 'buf' (+, int) with __shfl_xor_sync warp reductions and one slot per warp, for blocks of 256 threads [-Rpass=warp-reduce]
template <typename T> __global__ void sum_t(const T *x, T *out) {
  __shared__ T buf[256];
  buf[threadIdx.x] = x[blockIdx.x * 256 + threadIdx.x];
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      buf[threadIdx.x] += buf[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = buf[0];
}

// NVIDIA's reduction samples: the block size a template parameter, each
// instantiation launched with its own.
// CHECK-LABEL: __global__ void block_sum(
// CHECK-NEXT:    static_assert(((BLOCK) == (128)) ||
// CHECK-NEXT:        ((BLOCK) == (512)),
// CHECK-NOT:     blockDim.x & (blockDim.x - 1)
// CHECK:           unsigned int kopt_wr = sum;
// REMARK-DAG: templates.cu:[[@LINE+10]]:3: remark: replaced the shared-memory tree over 'buf' (+, unsigned int) with __shfl_xor_sync warp reductions and one slot per warp, for blocks of 128 threads (in block_sum<128U>) [-Rpass=warp-reduce]
// REMARK-DAG: templates.cu:[[@LINE+9]]:3: remark: replaced the shared-memory tree over 'buf' (+, unsigned int) with __shfl_xor_sync warp reductions and one slot per warp, for blocks of 512 threads (in block_sum<512U>) [-Rpass=warp-reduce]
template <unsigned BLOCK>
__global__ void block_sum(const unsigned *x, unsigned *out, int n) {
  __shared__ unsigned buf[BLOCK];
  unsigned sum = 0;
  for (int i = threadIdx.x; i < n; i += BLOCK)
    sum += x[(size_t)blockIdx.x * n + i];
  buf[threadIdx.x] = sum;
  __syncthreads();
  for (unsigned s = BLOCK / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      buf[threadIdx.x] += buf[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = buf[0];
}

// A float sum keeps its order (the in-order tail), spelled with T.
// CHECK-LABEL: __global__ void row_sum(
// CHECK:         T kopt_wr = sdata[threadIdx.x];
// ESTIMATED: templates.cu:[[@LINE+10]]:3: remark: moved the last five rounds of the shared-memory tree over 'sdata' (+, float) into warp 0 as __shfl_down_sync, for blocks of 256 threads: {{.*}}; ptxas: 'row_sum' {{[0-9]+}} -> {{[0-9]+}} registers
// REMARK-DAG: templates.cu:[[@LINE+9]]:3: remark: moved the last five rounds of the shared-memory tree over 'sdata' (+, float) into warp 0 as __shfl_down_sync, for blocks of 256 threads: each lane adds the pair the tree adds, in the same order
template <typename T, int BLOCK>
__global__ void row_sum(const T *x, T *out, int n) {
  __shared__ T sdata[BLOCK];
  T acc = 0;
  for (int i = threadIdx.x; i < n; i += BLOCK)
    acc += x[(size_t)blockIdx.x * n + i];
  sdata[threadIdx.x] = acc;
  __syncthreads();
  for (int s = BLOCK / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      sdata[threadIdx.x] += sdata[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = sdata[0];
}

// int and float need different rewrites (a whole rewrite, an in-order
// tail): one text cannot serve both.
// CHECK-LABEL: __global__ void mixed_sum(
// CHECK-NOT:     kopt_wr
// CHECK:       }
// REMARK-DAG: templates.cu:[[@LINE+1]]:39: remark: template kernel not rewritten: its instantiations mixed_sum<int> and mixed_sum<float> would be rewritten differently [-Rpass-missed=warp-reduce]
template <typename T> __global__ void mixed_sum(const T *x, T *out) {
  __shared__ T buf[256];
  buf[threadIdx.x] = x[blockIdx.x * 256 + threadIdx.x];
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      buf[threadIdx.x] += buf[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = buf[0];
}

// One instantiation is launched with 48 threads: the template is refused.
// CHECK-LABEL: __global__ void odd_block(
// CHECK-NOT:     kopt_wr
// CHECK:       }
// REMARK-DAG: templates.cu:[[@LINE+6]]:3: remark: tree not rewritten: the launch at {{[0-9]+}}:3 uses 48 threads: the rewrite needs a power of two (the only sizes the tree is right for) of at least 32 (whole warps) (in odd_block<48>) [-Rpass-missed=warp-reduce]
// REMARK-DAG: templates.cu:[[@LINE+1]]:34: remark: template kernel not rewritten: its instantiations odd_block<48> and odd_block<64> would be rewritten differently
template <int N> __global__ void odd_block(int *p) {
  __shared__ int buf[N];
  buf[threadIdx.x] = p[threadIdx.x];
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      buf[threadIdx.x] += buf[threadIdx.x + s];
    __syncthreads();
  }
  p[0] = buf[0] + N;
}

// Never launched: nothing to analyse.
// REMARK-DAG: templates.cu:[[@LINE+1]]:39: remark: template kernel not rewritten: this file instantiates it nowhere
template <typename T> __global__ void unused(T *p) {
  __shared__ T buf[256];
  buf[threadIdx.x] = p[threadIdx.x];
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      buf[threadIdx.x] += buf[threadIdx.x + s];
    __syncthreads();
  }
  p[0] = buf[0];
}

// CHECK-LABEL: void launch(
void launch(const int *xi, int *outi, const unsigned *xu, unsigned *outu,
            const float *xf, float *outf, int *p, int rows, int n) {
  sum_t<int><<<rows, 256>>>(xi, outi);
  block_sum<128><<<rows, 128>>>(xu, outu, n);
  block_sum<512><<<rows, 512>>>(xu, outu, n);
  row_sum<float, 256><<<rows, 256>>>(xf, outf, n);
  mixed_sum<int><<<rows, 256>>>(xi, outi);
  mixed_sum<float><<<rows, 256>>>(xf, outf);
  odd_block<48><<<1, 48>>>(p);
  odd_block<64><<<1, 64>>>(p);
}
