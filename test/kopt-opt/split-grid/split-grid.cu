// split-grid: a kernel whose whole work is one grid-stride loop computes
// the same bits on any grid; each launch starts 8x the blocks when it holds
// fewer threads than the device (a run-time check, kopt_split_grid_fits,
// also keeps the loop's index in range). The kernels stay as they are.
// RUN: kopt-opt %s -passes=split-grid -Rpass=split-grid -Rpass-missed=split-grid -o %t.cu 2>&1 | FileCheck %s
// RUN: FileCheck %s --check-prefix=OUT < %t.cu
// RUN: grep -c "^static inline bool kopt_split_grid_fits" %t.cu | FileCheck %s --check-prefix=ONCE
// RUN: %if cuda-toolkit %{ %nvcc_check %t.cu %}
// A second run changes nothing: the launches are kopt's own.
// RUN: kopt-opt %t.cu -passes=split-grid -o %t.again.cu
// RUN: diff %t.cu %t.again.cu
// After restrict-const, the __restrict__ copy's launch is split.
// RUN: kopt-opt %s -passes=restrict-const,split-grid -Rpass=split-grid -o %t.rc.cu 2>&1 | FileCheck %s --check-prefix=RC
// RUN: FileCheck %s --check-prefix=RC-OUT < %t.rc.cu
// RUN: %if cuda-toolkit %{ %nvcc_check %t.rc.cu %}
// RUN: kopt-opt %s -passes='split-grid{factor=4}' -o - | FileCheck %s --check-prefix=FOUR
// RUN: kopt-opt %s -passes='split-grid{factor=1}' -Rpass-missed=split-grid -o /dev/null 2>&1 | FileCheck %s --check-prefix=ONE
// REQUIRES: filecheck
#include <cuda_runtime.h>

// CHECK-DAG: split-grid.cu:[[@LINE+1]]:17: remark: 1 launch of 'scale' start 8x the blocks when they hold fewer threads than the device: its grid-stride loop over 'i' runs each index once, the same way, on any grid [-Rpass=split-grid]
__global__ void scale(const float *x, float *__restrict__ y, float a, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
    y[i] = a * x[i];
}

void run_scale(const float *x, float *y, float a, int n) {
  scale<<<32, 256>>>(x, y, a, n);
}

__device__ float twice(float v) { return 2.0f * v; }

__device__ int calls;
__device__ float counted(float v) {
  ++calls;
  return v;
}

// The start and stride through locals, a 64-bit counter and bound, an
// element read back at one offset, a thread-private array, __ldg and a
// helper kopt proves pure ('twice': one `return` of its value parameter).
// CHECK-DAG: split-grid.cu:[[@LINE+1]]:17: remark: 1 launch of 'accumulate' start 8x the blocks when they hold fewer threads than the device: its grid-stride loop over 'i' runs each index once, the same way, on any grid [-Rpass=split-grid]
__global__ void accumulate(const float *__restrict__ x, float *__restrict__ y,
                           long long off, long long n) {
  const long long idx = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned stride = gridDim.x * blockDim.x;
  for (long long i = idx; i < n; i += stride) {
    float parts[2];
    parts[0] = __ldg(&x[i]);
    parts[1] = y[off + i];
    y[off + i] = twice(parts[0]) + parts[1] * blockDim.x;
  }
}

void run_accumulate(const float *x, float *y, long long off, long long n,
                    int blocks, cudaStream_t s) {
  accumulate<<<blocks, 128, 0, s>>>(x, y, off, n);
}

// No __restrict__: restrict-const's copy is split, the original is not.
// CHECK-DAG: split-grid.cu:[[@LINE+1]]:17: remark: grid-stride kernel not given a larger grid: 'y' is written and not __restrict__ (restrict-const adds a __restrict__ copy) [-Rpass-missed=split-grid]
__global__ void copy_plain(const float *x, float *y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
    y[i] = x[i];
}

void run_copy_plain(const float *x, float *y, int n) {
  copy_plain<<<8, 256>>>(x, y, n);
}

__global__ void carried(const float *x, float *__restrict__ y, int n) {
  float acc = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x) {
// CHECK-DAG: split-grid.cu:[[@LINE+1]]:5: remark: grid-stride kernel not given a larger grid: the loop writes 'acc', declared outside it: state carried from one iteration to the next [-Rpass-missed=split-grid]
    acc += x[i];
    y[i] = acc;
  }
}

__global__ void own_thread(float *__restrict__ y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
// CHECK-DAG: split-grid.cu:[[@LINE+1]]:12: remark: grid-stride kernel not given a larger grid: 'threadIdx.x' is used outside the loop's start and step: the iteration depends on its thread [-Rpass-missed=split-grid]
    y[i] = threadIdx.x;
}

__global__ void grid_in_body(float *__restrict__ y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
// CHECK-DAG: split-grid.cu:[[@LINE+1]]:12: remark: grid-stride kernel not given a larger grid: 'gridDim.x' is used outside the loop's start and step: the iteration depends on its thread [-Rpass-missed=split-grid]
    y[i] = gridDim.x;
}

// CHECK-DAG: split-grid.cu:[[@LINE+1]]:17: remark: grid-stride kernel not given a larger grid: 'y' is written and not __restrict__ (restrict-const adds a __restrict__ copy) [-Rpass-missed=split-grid]
__global__ void not_restrict(const float *x, float *y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
    y[i] = x[i];
}

__global__ void two_offsets(float *__restrict__ y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
// CHECK-DAG: split-grid.cu:[[@LINE+1]]:12: remark: grid-stride kernel not given a larger grid: 'y' is accessed at two different offsets from the index [-Rpass-missed=split-grid]
    y[i] = y[i + 1];
}

__global__ void strided(const float *x, float *__restrict__ y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
// CHECK-DAG: split-grid.cu:[[@LINE+1]]:5: remark: grid-stride kernel not given a larger grid: 'y' is written, and used here other than as its element 'y[i]' of the loop's index [-Rpass-missed=split-grid]
    y[2 * i] = x[i];
}

__global__ void through_local(const float *x, float *__restrict__ y, int n) {
  float *out = y;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
// CHECK-DAG: split-grid.cu:[[@LINE+1]]:5: remark: grid-stride kernel not given a larger grid: the kernel writes 'out[i]', which is not a pointer parameter's element in the loop [-Rpass-missed=split-grid]
    out[i] = x[i];
}

// CHECK-DAG: split-grid.cu:[[@LINE+1]]:17: remark: grid-stride kernel not given a larger grid: the kernel uses shared memory [-Rpass-missed=split-grid]
__global__ void with_shared(const float *x, float *__restrict__ y, int n) {
  __shared__ float tile[256];
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
    y[i] = x[i] + tile[0];
}

__global__ void with_barrier(const float *x, float *__restrict__ y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x) {
    y[i] = x[i];
// CHECK-DAG: split-grid.cu:[[@LINE+1]]:5: remark: grid-stride kernel not given a larger grid: the kernel has '__syncthreads()', which ties an iteration to its thread [-Rpass-missed=split-grid]
    __syncthreads();
  }
}

__global__ void early_break(const float *x, float *__restrict__ y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x) {
    if (x[i] < 0.0f)
// CHECK-DAG: split-grid.cu:[[@LINE+1]]:7: remark: grid-stride kernel not given a larger grid: the loop body leaves the loop early [-Rpass-missed=split-grid]
      break;
    y[i] = x[i];
  }
}

__global__ void with_atomic(const float *x, float *__restrict__ y,
                            float *__restrict__ total, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x) {
    y[i] = x[i];
// CHECK-DAG: split-grid.cu:[[@LINE+1]]:5: remark: grid-stride kernel not given a larger grid: the kernel calls 'atomicAdd', which may act beyond its result [-Rpass-missed=split-grid]
    atomicAdd(total, x[i]);
  }
}

__global__ void user_call(const float *x, float *__restrict__ y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
// CHECK-DAG: split-grid.cu:[[@LINE+1]]:12: remark: grid-stride kernel not given a larger grid: the kernel calls 'counted', which kopt does not prove pure [-Rpass-missed=split-grid]
    y[i] = counted(x[i]);
}

__global__ void bound_expr(const float *x, float *__restrict__ y, int n) {
// CHECK-DAG: split-grid.cu:[[@LINE+1]]:59: remark: grid-stride kernel not given a larger grid: the bound '2 * n' is not a kernel parameter [-Rpass-missed=split-grid]
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < 2 * n;
       i += blockDim.x * gridDim.x)
    y[i] = x[i];
}

__global__ void unsigned_index(const float *x, float *__restrict__ y,
                               unsigned n) {
// CHECK-DAG: split-grid.cu:[[@LINE+1]]:3: remark: grid-stride kernel not given a larger grid: the counter 'i' is not a signed integer of at least 32 bits [-Rpass-missed=split-grid]
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
    y[i] = x[i];
}

__global__ void wide_bound(const float *x, float *__restrict__ y,
                           long long n) {
// CHECK-DAG: split-grid.cu:[[@LINE+1]]:59: remark: grid-stride kernel not given a larger grid: the bound 'n' is not a signed integer no wider than the counter [-Rpass-missed=split-grid]
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
    y[i] = x[i];
}

__global__ void inclusive(const float *x, float *__restrict__ y, int n) {
// CHECK-DAG: split-grid.cu:[[@LINE+1]]:3: remark: grid-stride kernel not given a larger grid: the loop's condition is `<=`, not `<` [-Rpass-missed=split-grid]
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i <= n;
       i += blockDim.x * gridDim.x)
    y[i] = x[i];
}

__global__ void after_loop(const float *x, float *__restrict__ y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
    y[i] = x[i];
// CHECK-DAG: split-grid.cu:[[@LINE+1]]:3: remark: grid-stride kernel not given a larger grid: the kernel does more than declarations and its grid-stride loop: 'if (blockIdx.x == 0 && threadIdx.x == 0) y[0]...' [-Rpass-missed=split-grid]
  if (blockIdx.x == 0 && threadIdx.x == 0)
    y[0] = 0.0f;
}

__global__ void narrow_stride(const float *x, float *__restrict__ y, int n) {
  const short stride = blockDim.x * gridDim.x;
// CHECK-DAG: split-grid.cu:[[@LINE+1]]:67: remark: grid-stride kernel not given a larger grid: the loop's start or step goes through 'stride', narrower than 32 bits [-Rpass-missed=split-grid]
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    y[i] = x[i];
}

// CHECK-DAG: split-grid.cu:[[@LINE+1]]:17: remark: grid-stride kernel not given a larger grid: no loop at the kernel's top level is `for (i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)` [-Rpass-missed=split-grid]
__global__ void block_stride(const float *x, float *__restrict__ y, int n) {
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    y[i] = x[i];
}

__global__ void dim3_launched(const float *x, float *__restrict__ y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
    y[i] = x[i];
}

void run_rest(const float *x, float *y, float *t, int n, long long wide) {
  carried<<<4, 256>>>(x, y, n);
  own_thread<<<4, 256>>>(y, n);
  grid_in_body<<<4, 256>>>(y, n);
  not_restrict<<<4, 256>>>(x, y, n);
  two_offsets<<<4, 256>>>(y, n);
  strided<<<4, 256>>>(x, y, n);
  through_local<<<4, 256>>>(x, y, n);
  with_shared<<<4, 256>>>(x, y, n);
  with_barrier<<<4, 256>>>(x, y, n);
  early_break<<<4, 256>>>(x, y, n);
  with_atomic<<<4, 256>>>(x, y, t, n);
  user_call<<<4, 256>>>(x, y, n);
  bound_expr<<<4, 256>>>(x, y, n);
  unsigned_index<<<4, 256>>>(x, y, n);
  wide_bound<<<4, 256>>>(x, y, wide);
  inclusive<<<4, 256>>>(x, y, n);
  after_loop<<<4, 256>>>(x, y, n);
  narrow_stride<<<4, 256>>>(x, y, n);
  block_stride<<<4, 256>>>(x, y, n);
// CHECK-DAG: split-grid.cu:[[@LINE+1]]:3: remark: grid-stride kernel not given a larger grid: the launch at [[@LINE+1]]:3 has a dim3 grid (the larger grid is in x alone) [-Rpass-missed=split-grid]
  dim3_launched<<<dim3(4), 256>>>(x, y, n);
}

// OUT-LABEL: static inline bool kopt_split_grid_fits(
// OUT:         if (kopt_threads > 2147483647LL || kopt_threads > kopt_limit ||
// OUT-NEXT:        kopt_n > kopt_limit - kopt_threads)
// OUT:         return kopt_grid * kopt_block < static_cast<long long>(kopt_sms) * kopt_per_sm;
// OUT-LABEL: void run_scale(
// OUT:       // kopt split-grid: 8x the blocks when the launch leaves the GPU idle
// OUT-NEXT:  const auto kopt_grid = (32);
// OUT-NEXT:  if (kopt_grid >= 1 && kopt_grid <= 2147483647 / 8 &&
// OUT-NEXT:      kopt_split_grid_fits(kopt_grid, 8, 256, static_cast<int>(n), 2147483647LL))
// OUT-NEXT:    scale<<<kopt_grid * 8, 256>>>(x, y, a, n);
// OUT-NEXT:  else
// OUT-NEXT:    scale<<<kopt_grid, 256>>>(x, y, a, n);
// OUT-LABEL: void run_accumulate(
// OUT:       const auto kopt_grid = (blocks);
// OUT:       kopt_split_grid_fits(kopt_grid, 8, 128, static_cast<long long>(n), 9223372036854775807LL))
// OUT-NEXT:    accumulate<<<kopt_grid * 8, 128, 0, s>>>(x, y, off, n);
// OUT-NEXT:  else
// OUT-NEXT:    accumulate<<<kopt_grid, 128, 0, s>>>(x, y, off, n);
// OUT-LABEL: void run_copy_plain(
// OUT-NEXT:    copy_plain<<<8, 256>>>(x, y, n);
// OUT-LABEL: void run_rest(
// OUT-NEXT:    carried<<<4, 256>>>(x, y, n);
// ONCE: 1
// RC-DAG: remark: 1 launch of 'copy_plain_kopt_restrict' start 8x the blocks
// RC-DAG: remark: 1 launch of 'not_restrict_kopt_restrict' start 8x the blocks
// RC-OUT-LABEL: void run_copy_plain(
// RC-OUT-NEXT:  if (kopt_distinct_allocations("rw", (x), (y)))
// RC-OUT:           copy_plain_kopt_restrict<<<kopt_grid * 8, 256>>>(x, y, n);
// RC-OUT-NEXT:    else
// RC-OUT-NEXT:      copy_plain_kopt_restrict<<<kopt_grid, 256>>>(x, y, n);
// RC-OUT-NEXT:  }
// RC-OUT-NEXT:  else
// RC-OUT-NEXT:    copy_plain<<<8, 256>>>(x, y, n);
// FOUR: kopt_split_grid_fits(kopt_grid, 4, 256, static_cast<int>(n), 2147483647LL))
// FOUR-NEXT: scale<<<kopt_grid * 4, 256>>>(x, y, a, n);
// ONE: remark: grid-stride kernel not given a larger grid: factor=1 is not from 2 to 64 [-Rpass-missed=split-grid]
