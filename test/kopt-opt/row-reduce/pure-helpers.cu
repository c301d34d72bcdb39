// row-reduce: calls of the program's own helpers that kopt proves pure (one
// `return` of their value parameters, no side effects) run in every thread
// of a row like CUDA's math functions; other helpers are refused by name.
// RUN: kopt-opt %s -passes='row-reduce{reassociate=true}' -Rpass=row-reduce -Rpass-missed=row-reduce -o %t.cu 2>&1 | FileCheck %s --implicit-check-not=remark:
// RUN: FileCheck %s --check-prefix=OUT < %t.cu
// RUN: %if cuda-toolkit %{ %nvcc_check %t.cu %}
// REQUIRES: filecheck
#include <cuda_runtime.h>

__device__ __forceinline__ float sq(float v) { return v * v; }
template <typename T> __device__ T magnitude(T v) { return v < T(0) ? -v : v; }

// CHECK-DAG: pure-helpers.cu:[[@LINE+1]]:17: remark: 'row_norms_kopt_rows' runs each row of 'row' on 32 threads: 2 loops split among them (2 combining a reduction after it, floating-point sums in another order), 0 run by each in the original order, 2 stores outside loops by one; 1 launch run it with 32x the grid [-Rpass=row-reduce]
__global__ void row_norms(const float *__restrict__ x, float *__restrict__ l2,
                          float *__restrict__ linf, int rows, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows)
    return;
  float s = 0.0f;
  for (int j = 0; j < n; j++)
    s += sq(x[row * n + j]);
  float top = 0.0f;
  for (int j = 0; j < n; j++)
    top = fmaxf(top, magnitude(x[row * n + j]));
  l2[row] = sqrtf(s);
  linf[row] = top;
}
// OUT-LABEL: __global__ void row_norms_kopt_rows(
// OUT: kopt_i < static_cast<long long>(n); kopt_i += 32) { const int j = static_cast<int>(kopt_i); s += sq(x[row * n + j]); }
// OUT: top = fmaxf(top, magnitude(x[row * n + j]));

__device__ int calls;
__device__ float counted(float v) {
  ++calls;
  return v;
}

// A helper that writes memory would run once per thread of the row.
__global__ void row_counted(const float *__restrict__ x, float *__restrict__ y,
                            int rows, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows)
    return;
  float s = 0.0f;
  for (int j = 0; j < n; j++)
// CHECK-DAG: pure-helpers.cu:[[@LINE+1]]:10: remark: thread-per-row kernel not re-mapped: the kernel calls 'counted', which kopt does not prove pure [-Rpass-missed=row-reduce]
    s += counted(x[row * n + j]);
  y[row] = s;
}

// Pure in its body, but it takes a reference: refused (a constexpr function
// may write through one).
__device__ constexpr float through_ref(const float &v) { return v; }

__global__ void row_ref(const float *__restrict__ x, float *__restrict__ y,
                        int rows, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows)
    return;
  float s = 0.0f;
  for (int j = 0; j < n; j++)
// CHECK-DAG: pure-helpers.cu:[[@LINE+1]]:10: remark: thread-per-row kernel not re-mapped: the kernel calls 'through_ref', which kopt does not prove pure [-Rpass-missed=row-reduce]
    s += through_ref(x[row * n + j]);
  y[row] = s;
}

void launch(const float *x, float *a, float *b, int rows, int n) {
  row_norms<<<(rows + 127) / 128, 128>>>(x, a, b, rows, n);
  row_counted<<<(rows + 127) / 128, 128>>>(x, a, rows, n);
  row_ref<<<(rows + 127) / 128, 128>>>(x, a, rows, n);
}
