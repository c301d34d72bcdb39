// warp-reduce keeps a floating-point sum's order by default: the rounds of
// 32 and more stay in shared memory and the last five move to
// __shfl_down_sync in warp 0. The tail is kept only where the resource
// estimator reports no more registers for the kernels it changes
// (Inputs/fake-nvcc.py stands in for ptxas: 32 registers, 40 for the
// kernels named in $FAKE_PTXAS_RISE once a tail is in the source).
// RUN: kopt-opt %s --nvcc=%S/Inputs/fake-nvcc.py -passes=warp-reduce -Rpass=warp-reduce -Rpass-missed=warp-reduce -o %t.cu 2>&1 | FileCheck %s --check-prefix=KEPT
// RUN: %strip_checks %t.cu | FileCheck %s
// RUN: %if cuda-toolkit %{ %nvcc_check %t.cu %}
// A second run finds no tree to rewrite, and says why of each tail.
// RUN: kopt-opt %t.cu --nvcc=%S/Inputs/fake-nvcc.py -passes=warp-reduce -Rpass=warp-reduce -Rpass-missed=warp-reduce -o %t.again.cu 2>&1 | FileCheck %s --check-prefix=AGAIN
// RUN: diff %t.cu %t.again.cu
// A kernel that needs more registers with the tail keeps its tree; the
// helper's tail is refused for both of its callers.
// RUN: env FAKE_PTXAS_RISE=pair_b kopt-opt %s --nvcc=%S/Inputs/fake-nvcc.py -passes=warp-reduce -Rpass=warp-reduce -Rpass-missed=warp-reduce -o %t.rise.cu 2>&1 | FileCheck %s --check-prefix=RISE
// RUN: %strip_checks %t.rise.cu | grep -c 'kopt_wr += __shfl_down_sync' | grep -qx 1
// RUN: env FAKE_PTXAS_RISE=row_sum kopt-opt %s --nvcc=%S/Inputs/fake-nvcc.py -passes=warp-reduce -Rpass-missed=warp-reduce -o %t.rise2.cu 2>&1 | FileCheck %s --check-prefix=RISE2
// RUN: %strip_checks %t.rise2.cu | grep -c 'kopt_wr += __shfl_down_sync' | grep -qx 1
// More local memory refuses it too, also where the kernel spilled already.
// RUN: env FAKE_PTXAS_SPILL=row_sum kopt-opt %s --nvcc=%S/Inputs/fake-nvcc.py -passes=warp-reduce -Rpass-missed=warp-reduce -o %t.spill.cu 2>&1 | FileCheck %s --check-prefix=SPILL
// RUN: %strip_checks %t.spill.cu | grep -c 'kopt_wr += __shfl_down_sync' | grep -qx 1
// Without an estimate the tails are refused, unless the check is off.
// RUN: kopt-opt %s --nvcc=%t.none/nvcc -passes=warp-reduce -Rpass-missed=warp-reduce -o %t.none.cu 2>&1 | FileCheck %s --check-prefix=NONE
// RUN: diff %s %t.none.cu
// RUN: env FAKE_PTXAS_FAIL=1 kopt-opt %s --nvcc=%S/Inputs/fake-nvcc.py -passes=warp-reduce -Rpass-missed=warp-reduce -o %t.fail.cu 2>&1 | FileCheck %s --check-prefix=FAIL
// RUN: diff %s %t.fail.cu
// RUN: kopt-opt %s --nvcc=%t.none/nvcc -passes='warp-reduce{check-resources=false}' -Rpass=warp-reduce -o %t.unchecked.cu 2>&1 | FileCheck %s --check-prefix=UNCHECKED
// RUN: diff %t.cu %t.unchecked.cu
// REQUIRES: filecheck
#include <cuda_runtime.h>

// KEPT-DAG: in-order.cu:[[@LINE+38]]:3: remark: moved the last five rounds of the shared-memory tree over 'partial' (+, float) into warp 0 as __shfl_down_sync, for blocks of 256 threads: each lane adds the pair the tree adds, in the same order (exact; reassociate=true rewrites the whole tree); ptxas: 'row_sum' 32 -> 32 registers [-Rpass=warp-reduce]
// RISE2: in-order.cu:[[@LINE+37]]:3: remark: tree not rewritten: the in-order tail was not kept: with it 'row_sum' needs 40 registers instead of 32 (ptxas), which may let fewer of its blocks run at once (check-resources=false skips the check) [-Rpass-missed=warp-reduce]
// SPILL: in-order.cu:[[@LINE+36]]:3: remark: tree not rewritten: the in-order tail was not kept: with it 'row_sum' uses more local memory (ptxas: 16 bytes stack frame, 16 bytes spill stores, 16 bytes spill loads; without it: 8 bytes stack frame, 8 bytes spill stores, 8 bytes spill loads) (check-resources=false skips the check) [-Rpass-missed=warp-reduce]
// NONE: in-order.cu:[[@LINE+35]]:3: remark: tree not rewritten: cannot check the in-order tail's registers: no nvcc at '{{.*}}none/nvcc' (check-resources=false skips the check) [-Rpass-missed=warp-reduce]
// FAIL: in-order.cu:[[@LINE+34]]:3: remark: tree not rewritten: cannot check the in-order tail's registers: the input does not compile: source.cu(1): error: fake compile error (check-resources=false skips the check) [-Rpass-missed=warp-reduce]
// UNCHECKED: in-order.cu:[[@LINE+33]]:3: remark: moved the last five rounds of the shared-memory tree over 'partial' (+, float) into warp 0 as __shfl_down_sync, for blocks of 256 threads: each lane adds the pair the tree adds, in the same order (exact; reassociate=true rewrites the whole tree) [-Rpass=warp-reduce]
// AGAIN: .cu:{{[0-9]+}}:5: remark: tree not rewritten: this is warp-reduce's in-order tail already [-Rpass-missed=warp-reduce]
// CHECK-LABEL: __global__ void row_sum(
// CHECK:        sum += x[row * cols + j];
// CHECK-NEXT:   {
// CHECK-NEXT:     // kopt warp-reduce (+, in order): the rounds of 32 and more in shared memory,
// CHECK-NEXT:     // the last five in warp 0, where lane t adds lane t + o's value as the tree does
// CHECK-NEXT:     partial[threadIdx.x] = sum;
// CHECK-NEXT:     __syncthreads();
// CHECK-NEXT:     for (int kopt_s = blockDim.x / 2; kopt_s > 16; kopt_s >>= 1) {
// CHECK-NEXT:       if (threadIdx.x < kopt_s)
// CHECK-NEXT:         partial[threadIdx.x] += partial[threadIdx.x + kopt_s];
// CHECK-NEXT:       __syncthreads();
// CHECK-NEXT:     }
// CHECK-NEXT:     if (threadIdx.x < 32) {
// CHECK-NEXT:       float kopt_wr = partial[threadIdx.x];
// CHECK-NEXT:       for (int kopt_o = 16; kopt_o > 0; kopt_o >>= 1)
// CHECK-NEXT:         kopt_wr += __shfl_down_sync(0xffffffffu, kopt_wr, kopt_o);
// CHECK-NEXT:       if (threadIdx.x == 0)
// CHECK-NEXT:         partial[0] = kopt_wr;
// CHECK-NEXT:     }
// CHECK-NEXT:     __syncthreads();
// CHECK-NEXT:   }
// CHECK-NEXT:   if (threadIdx.x == 0)
// CHECK-NEXT:     out[row] = partial[0];
__global__ void row_sum(const float *x, float *out, int cols) {
  __shared__ float partial[256];
  const int row = blockIdx.x;
  float sum = 0.0f;
  for (int j = threadIdx.x; j < cols; j += blockDim.x)
    sum += x[row * cols + j];
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[row] = partial[0];
}

// A double sum in a helper that two kernels call, with blocks of 32 (no
// shared round) and 128 threads; the tree's combine is written as
// `a = b + a`, which the tail adds as `a + b`: + commutes exactly.
// KEPT-DAG: in-order.cu:[[@LINE+14]]:3: remark: moved the last five rounds of the shared-memory tree over 'buf' (+, double) into warp 0 as __shfl_down_sync, for blocks of 32, 128 threads: each lane adds the pair the tree adds, in the same order (exact; reassociate=true rewrites the whole tree); ptxas: 'pair_a' 32 -> 32, 'pair_b' 32 -> 32 registers [-Rpass=warp-reduce]
// RISE-DAG: in-order.cu:[[@LINE+13]]:3: remark: tree not rewritten: the in-order tail was not kept: with it 'pair_b' needs 40 registers instead of 32 (ptxas), which may let fewer of its blocks run at once (check-resources=false skips the check) [-Rpass-missed=warp-reduce]
// RISE-DAG: in-order.cu:{{[0-9]+}}:3: remark: moved {{.*}} over 'partial' (+, float) {{.*}}; ptxas: 'row_sum' 32 -> 32 registers [-Rpass=warp-reduce]
// RISE-NOT: over 'buf' (+, double) into warp 0
// CHECK-LABEL: __device__ double block_sum(
// CHECK:          double kopt_wr = buf[threadIdx.x];
// CHECK:        double total = buf[0];
// CHECK-LABEL: __global__ void pair_a(
// CHECK-LABEL: __global__ void pair_b(
// AGAIN: .cu:{{[0-9]+}}:5: remark: tree not rewritten: this is warp-reduce's in-order tail already [-Rpass-missed=warp-reduce]
// AGAIN-NOT: remark
__device__ double block_sum(double v, double *buf) {
  buf[threadIdx.x] = v;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      buf[threadIdx.x] = buf[threadIdx.x + s] + buf[threadIdx.x];
    __syncthreads();
  }
  double total = buf[0];
  __syncthreads();
  return total;
}

__global__ void pair_a(const double *x, double *a) {
  __shared__ double partial[32];
  a[blockIdx.x] = block_sum(x[blockIdx.x * 32 + threadIdx.x], partial);
}

__global__ void pair_b(const double *x, double *a) {
  __shared__ double partial[128];
  a[blockIdx.x] = block_sum(x[blockIdx.x * 128 + threadIdx.x], partial);
}

void launch(const float *x, float *out, const double *dx, double *da,
            int rows, int cols) {
  row_sum<<<rows, 256>>>(x, out, cols);
  pair_a<<<rows, 32>>>(dx, da);
  pair_b<<<rows, 128>>>(dx, da);
}
