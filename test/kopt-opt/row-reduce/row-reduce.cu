// row-reduce: a thread-per-row kernel runs with several threads a row in a
// copy, <kernel>_kopt_rows; loops that carry state run in each thread, the
// others are split; each launch picks the copy when its grid allows.
// RUN: kopt-opt %s -passes=row-reduce -Rpass=row-reduce -Rpass-missed=row-reduce -o %t.cu 2>&1 | FileCheck %s
// RUN: FileCheck %s --check-prefix=OUT < %t.cu
// RUN: %if cuda-toolkit %{ %nvcc_check %t.cu %}
// A second run changes nothing: the copies exist already.
// RUN: kopt-opt %t.cu -passes=row-reduce -o %t.again.cu
// RUN: diff %t.cu %t.again.cu
// RUN: kopt-opt %s -passes='row-reduce{threads-per-row=8}' -o - | FileCheck %s --check-prefix=EIGHT
// RUN: kopt-opt %s -passes='row-reduce{threads-per-row=3}' -Rpass-missed=row-reduce -o /dev/null 2>&1 | FileCheck %s --check-prefix=THREE
// REQUIRES: filecheck
#include <cuda_runtime.h>

// The maximum (fmaxf: exact) is split and combined; the float sum is not
// without reassociate=true.
// CHECK-DAG: row-reduce.cu:[[@LINE+1]]:17: remark: 'norm_rows_kopt_rows' runs each row of 'row' on 32 threads: 2 loops split among them (1 combining a reduction after it), 1 run by each in the original order, 1 stores outside loops by one; 1 launch run it with 32x the grid [-Rpass=row-reduce]
__global__ void norm_rows(const float *__restrict__ x, float *__restrict__ y,
                          float *__restrict__ scale, int rows, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows)
    return;
  const float *in = x + row * n;
  float top = -1e30f;
  for (int j = 0; j < n; j++)
    top = fmaxf(top, in[j]);
  float sum = 0.0f;
  for (int j = 0; j < n; j++)
    sum += expf(in[j] - top);
  float *out = y + row * n;
  for (int j = 0; j < n; ++j) {
    out[j] = expf(in[j] - top) / sum;
  }
  scale[row] = sum;
}
// OUT-LABEL: __global__ void norm_rows_kopt_rows(
// OUT:        const unsigned long long kopt_t =
// OUT-NEXT:       static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
// OUT-NEXT:   const unsigned kopt_lane = static_cast<unsigned>(kopt_t % 32u);
// OUT-NEXT:   int row = static_cast<unsigned int>(kopt_t / 32u);
// OUT:        { // kopt row-reduce: each thread folds its share into 'top', combined after the loop
// OUT-NEXT:   for (long long kopt_i = kopt_lane;
// OUT-NEXT:        kopt_i < static_cast<long long>(n); kopt_i += 32) { const int j = static_cast<int>(kopt_i); top = fmaxf(top, in[j]); }
// OUT-NEXT:   for (unsigned kopt_o = 16u; kopt_o > 0u; kopt_o /= 2u)
// OUT-NEXT:     top = fmaxf(top, __shfl_xor_sync(0xffffffffu, top, kopt_o, 32));
// OUT-NEXT:   }
// OUT:        for (int j = 0; j < n; j++)
// OUT-NEXT:     sum += expf(in[j] - top);
// OUT:        for (long long kopt_i = kopt_lane;
// OUT-NEXT:        kopt_i < static_cast<long long>(n); kopt_i += 32) {
// OUT-NEXT:     const int j = static_cast<int>(kopt_i);
// OUT-NEXT:     out[j] = expf(in[j] - top) / sum;
// OUT:        { if (kopt_lane == 0u) scale[row] = sum; }
// EIGHT: const unsigned kopt_lane = static_cast<unsigned>(kopt_t % 8u);
// EIGHT-NEXT: const unsigned kopt_mask = ((1u << 8) - 1u) << (threadIdx.x % 32u / 8u * 8u);
// EIGHT: top = fmaxf(top, __shfl_xor_sync(kopt_mask, top, kopt_o, 8));
// EIGHT: kopt_i += 8)
// EIGHT: norm_rows_kopt_rows<<<kopt_grid * 8, threads>>>

// A carrying loop stores only in the thread that owns the element; a later
// split loop reads it back there (the same lane owns j in both), and a loop
// that starts at 1 begins at each thread's first owned value.
// CHECK-DAG: row-reduce.cu:[[@LINE+1]]:17: remark: 'causal_rows_kopt_rows' runs each row of 'r' on 32 threads: 2 loops split among them, 1 run by each in the original order (1 stores by the owning thread), 0 stores outside loops by one; 1 launch run it with 32x the grid [-Rpass=row-reduce]
__global__ void causal_rows(float *__restrict__ p, const float *__restrict__ a,
                            int rows, int n) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float *row = p + r * n;
    float acc = 0.0f;
    for (int j = 0; j <= r % n; j++) {
      acc += a[r * n + j];
      row[j] = acc;
    }
    for (int j = 1; j < n; j++)
      row[j] *= 0.5f;
    for (int j = 0; j < n; j++) {
      if (j > r % n)
        row[j] = 0.0f;
    }
  }
}
// OUT-LABEL: __global__ void causal_rows_kopt_rows(
// OUT:      { if (static_cast<unsigned>(j) % 32u == kopt_lane) row[j] = acc; }
// OUT:      for (long long kopt_i = static_cast<long long>(static_cast<int>(1)) +
// OUT-NEXT:          static_cast<long long>((kopt_lane - static_cast<unsigned>(static_cast<int>(1))) % 32u);
// OUT-NEXT:      kopt_i < static_cast<long long>(n); kopt_i += 32) { const int j = static_cast<int>(kopt_i); row[j] *= 0.5f; }

// Refusals, one reason each.
// CHECK-DAG: row-reduce.cu:[[@LINE+1]]:17: remark: thread-per-row kernel not re-mapped: 'y' is written and not __restrict__ (restrict-const adds a __restrict__ copy) [-Rpass-missed=row-reduce]
__global__ void not_restrict(const float *x, float *y, int rows, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows)
    for (int j = 0; j < n; j++)
      y[row * n + j] = 2.0f * x[row * n + j];
}

// CHECK-DAG: row-reduce.cu:[[@LINE+9]]:12: remark: thread-per-row kernel not re-mapped: 'out[j]' is read in a loop that carries state (or leaves early), where another thread of the row may own it [-Rpass-missed=row-reduce]
__global__ void reads_back(float *__restrict__ y, const float *__restrict__ x,
                           int rows, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows) {
    float *out = y + row * n;
    float s = 0.0f;
    for (int j = 0; j < n; j++) {
      out[j] = x[row * n + j];
      s += out[j];
    }
    for (int j = 0; j < n; j++)
      out[j] /= s;
  }
}

// CHECK-DAG: row-reduce.cu:[[@LINE+7]]:5: remark: thread-per-row kernel not re-mapped: the loop sums the floating-point 's': dividing it among the row's threads adds in another order (reassociate=true allows it; results may differ in rounding) [-Rpass-missed=row-reduce]
__global__ void dot_rows(const float *__restrict__ a,
                         const float *__restrict__ b, float *__restrict__ out,
                         int rows, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows) {
    float s = 0.0f;
    for (int j = 0; j < n; j++)
      s += a[row * n + j] * b[j];
    out[row] = s;
  }
}

// CHECK-DAG: row-reduce.cu:[[@LINE+8]]:7: remark: thread-per-row kernel not re-mapped: 'out[k]' is not 'y' indexed by the loop's counter 'j' (plus an offset the same in every loop) [-Rpass-missed=row-reduce]
__global__ void wrong_index(const float *__restrict__ x, float *__restrict__ y,
                            int rows, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows) {
    float *out = y + row * n;
    for (int j = 0; j < n; j++) {
      int k = n - 1 - j;
      out[k] = x[row * n + j];
    }
  }
}

// CHECK-DAG: row-reduce.cu:[[@LINE+6]]:7: remark: thread-per-row kernel not re-mapped: the kernel calls 'atomicAdd', which each of the row's threads would run [-Rpass-missed=row-reduce]
__global__ void counts(const float *__restrict__ x, float *__restrict__ y,
                       int *__restrict__ hits, int rows, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows)
    for (int j = 0; j < n; j++) {
      atomicAdd(hits, 1);
      y[row * n + j] = x[row * n + j];
    }
}

// CHECK-DAG: row-reduce.cu:[[@LINE+5]]:30: remark: thread-per-row kernel not re-mapped: 'threadIdx.x' is used outside the row index's initializer [-Rpass-missed=row-reduce]
__global__ void lane_use(const float *__restrict__ x, float *__restrict__ y,
                         int rows, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows)
    y[row] = x[row] + (float)threadIdx.x;
  for (int j = 0; j < n; j++)
    y[rows + j] = 0.0f;
}

// A loop written in a macro (as Caffe's and PyTorch's CUDA_KERNEL_LOOP):
// the remark prints what it names from the AST.
#define KOPT_KERNEL_LOOP(i, n)                                                 \
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n);                 \
       i += blockDim.x * gridDim.x)
// CHECK-DAG: row-reduce.cu:[[@LINE+3]]:3: remark: thread-per-row kernel not re-mapped: 'blockDim.x' is used outside the row index's initializer [-Rpass-missed=row-reduce]
__global__ void macro_loop(const float *__restrict__ x, float *__restrict__ y,
                           int rows) {
  KOPT_KERNEL_LOOP(row, rows) { y[row] = 2.0f * x[row]; }
}

// CHECK-DAG: row-reduce.cu:[[@LINE+1]]:17: remark: thread-per-row kernel not re-mapped: the kernel uses shared memory [-Rpass-missed=row-reduce]
__global__ void shared_rows(const float *__restrict__ x, float *__restrict__ y,
                            int rows, int n) {
  __shared__ float tmp[32];
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  tmp[0] = 0.0f;
  if (row < rows)
    for (int j = 0; j < n; j++)
      y[row * n + j] = x[row * n + j] + tmp[0];
}

// CHECK-DAG: row-reduce.cu:[[@LINE+6]]:26: remark: thread-per-row kernel not re-mapped: the counter 'j' (long) and its bound (long) are not integers of at most 32 bits, one signedness, the counter as wide as the bound (and signed for '<=') [-Rpass-missed=row-reduce]
__global__ void wide_rows(const float *__restrict__ x, float *__restrict__ y,
                          int rows, long n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows) {
    float *out = y + row * n;
    for (long j = 0; j < n; j++)
      out[j] = x[row * n + j];
  }
}

// A template is re-mapped as its instantiations are (copy_rows<float> here):
// the copy keeps the template header, the launch its arguments.
// CHECK-DAG: row-reduce.cu:[[@LINE+4]]:17: remark: 'copy_rows_kopt_rows' runs each row of 'row' on 32 threads: 1 loop split among them, 0 run by each in the original order, 0 stores outside loops by one; 1 launch run it with 32x the grid [-Rpass=row-reduce]
// OUT: template <typename T>
// OUT-NEXT: __global__ void copy_rows_kopt_rows(const T *__restrict__ x,
template <typename T>
__global__ void copy_rows(const T *__restrict__ x, T *__restrict__ y, int rows,
                          int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows)
    for (int j = 0; j < n; j++)
      y[row * n + j] = x[row * n + j];
}

// CHECK-DAG: row-reduce.cu:[[DIM3:[0-9]+]]:3: remark: thread-per-row kernel not re-mapped: the launch at [[DIM3]]:3 has a dim3 grid (the larger grid is in x alone) [-Rpass-missed=row-reduce]
__global__ void dim3_rows(const float *__restrict__ x, float *__restrict__ y,
                          int rows, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows) {
    float *out = y + row * n;
    for (int j = 0; j < n; j++)
      out[j] = x[row * n + j];
  }
}

// CHECK-DAG: row-reduce.cu:[[@LINE+8]]:15: remark: thread-per-row kernel not re-mapped: 'm[row]' reads what only one thread of the row writes [-Rpass-missed=row-reduce]
__global__ void reads_lane0(const float *__restrict__ x, float *__restrict__ y,
                            float *__restrict__ m, int rows, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows) {
    float *out = y + row * n;
    m[row] = x[row * n];
    m[row] = m[row] + 1.0f;
    float k = m[row];
    for (int j = 0; j < n; j++)
      out[j] = k * x[row * n + j];
  }
}

// The element may be written as the parameter plus an offset that is the
// same in every loop (`y[row * n + j]`), not only through a row pointer.
// CHECK-DAG: row-reduce.cu:[[@LINE+1]]:17: remark: 'offset_rows_kopt_rows' runs each row of 'row' on 32 threads: 2 loops split among them, 1 run by each in the original order, 0 stores outside loops by one; 1 launch run it with 32x the grid [-Rpass=row-reduce]
__global__ void offset_rows(const float *__restrict__ x, float *__restrict__ y,
                            int rows, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows) {
    float s = 0.0f;
    for (int j = 0; j < n; j++)
      s += x[row * n + j];
    for (int j = 0; j < n; j++)
      y[row * n + j] = x[row * n + j] - s;
    for (int j = 0; j < n; j++)
      y[j + row * n] *= 2.0f;
  }
}
// OUT-LABEL: __global__ void offset_rows_kopt_rows(
// OUT:          y[row * n + j] = x[row * n + j] - s;
// OUT:        for (long long kopt_i = kopt_lane;

// CHECK-DAG: row-reduce.cu:[[@LINE+8]]:7: remark: thread-per-row kernel not re-mapped: 'y' is indexed with two offsets ('row*n', 'row*n+1') [-Rpass-missed=row-reduce]
__global__ void two_offsets(const float *__restrict__ x, float *__restrict__ y,
                            int rows, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows) {
    for (int j = 0; j < n; j++)
      y[row * n + j] = x[row * n + j];
    for (int j = 0; j < n - 1; j++)
      y[row * n + 1 + j] += 1.0f;
  }
}

// CHECK-DAG: row-reduce.cu:[[@LINE+7]]:7: remark: thread-per-row kernel not re-mapped: 'y[k + j]' is not 'y' indexed by the loop's counter 'j' (plus an offset the same in every loop) [-Rpass-missed=row-reduce]
__global__ void varying_offset(const float *__restrict__ x,
                               float *__restrict__ y, int rows, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows)
    for (int j = 0; j < n; j++) {
      int k = row * n;
      y[k + j] = x[row * n + j];
    }
}

// A write through a local array of pointers is memory, not a local.
// CHECK-DAG: row-reduce.cu:[[@LINE+7]]:7: remark: thread-per-row kernel not re-mapped: cannot tell which parameter 'outs[0]' points into [-Rpass-missed=row-reduce]
__global__ void pointer_table(const float *__restrict__ x,
                              float *__restrict__ y, int rows, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  float *outs[1] = {y + row * n};
  if (row < rows)
    for (int j = 0; j < n; j++)
      outs[0][j] = x[row * n + j];
}

// OUT-LABEL: void launch(
// OUT:        // kopt row-reduce: 32 threads a row when the grid allows
// OUT-NEXT:   const auto kopt_grid = ((rows + threads - 1) / threads);
// OUT-NEXT:   if (kopt_grid >= 1 && kopt_grid <= 2147483647 / 32)
// OUT-NEXT:     norm_rows_kopt_rows<<<kopt_grid * 32, threads>>>(x, y, scale, rows, n);
// OUT-NEXT:   else
// OUT-NEXT:     norm_rows<<<kopt_grid, threads>>>(x, y, scale, rows, n);
void launch(const float *x, float *y, float *scale, float *p, int *hits,
            int rows, int n, long wide) {
  const int threads = 64;
  norm_rows<<<(rows + threads - 1) / threads, threads>>>(x, y, scale, rows, n);
  causal_rows<<<(rows + 47) / 48, 48>>>(p, x, rows, n);
  not_restrict<<<rows, 1>>>(x, y, rows, n);
  reads_back<<<rows, 1>>>(y, x, rows, n);
  dot_rows<<<rows, 1>>>(x, x, y, rows, n);
  wrong_index<<<rows, 1>>>(x, y, rows, n);
  counts<<<rows, 1>>>(x, y, hits, rows, n);
  lane_use<<<rows, 1>>>(x, y, rows, n);
  shared_rows<<<rows, 1>>>(x, y, rows, n);
  wide_rows<<<rows, 1>>>(x, y, rows, wide);
  copy_rows<float><<<rows, 1>>>(x, y, rows, n);
  // OUT: copy_rows_kopt_rows<float><<<kopt_grid * 32, 1>>>(x, y, rows, n);
  dim3_rows<<<dim3(rows), 1>>>(x, y, rows, n);
  reads_lane0<<<rows, 1>>>(x, y, scale, rows, n);
  pointer_table<<<rows, 1>>>(x, y, rows, n);
  offset_rows<<<rows, 1>>>(x, y, rows, n);
  two_offsets<<<rows, 1>>>(x, y, rows, n);
  varying_offset<<<rows, 1>>>(x, y, rows, n);
  macro_loop<<<rows, 1>>>(x, y, rows);
}
// THREE: remark: thread-per-row kernel not re-mapped: threads-per-row=3 is not a power of two from 2 to 1024
