// coalesce on a template kernel: decided in each instantiation the file
// launches; the staged body replaces the template's in place (pinned by a
// static_assert to the checked arguments), the rows-per-thread copy starts
// at `template <...>` and its launches keep their arguments; the tile is
// spelled with T.
// RUN: kopt-opt %s -passes=coalesce -Rpass=coalesce -Rpass-missed=coalesce -o %t.cu 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: %strip_checks %t.cu | FileCheck %s
// RUN: %if cuda-toolkit %{ %nvcc_check %t.cu %}
// RUN: kopt-opt %t.cu -passes=coalesce -o %t.again.cu
// RUN: diff %t.cu %t.again.cu
// RUN: kopt-opt %s -passes='coalesce{rows-per-thread=4}' -o %t.rows.cu
// RUN: %strip_checks %t.rows.cu | FileCheck %s --check-prefix=ROWS
// RUN: grep -B1 'void transpose_kopt_coalesced' %t.rows.cu | grep -qx 'template <typename T>'
// RUN: %if cuda-toolkit %{ %nvcc_check %t.rows.cu %}
// REQUIRES: filecheck
#include <cuda_runtime.h>

// REMARK-DAG: templates.cu:[[@LINE+11]]:5: remark: strided store staged through a shared-memory tile of 2048 float: both global sides are contiguous (the original body runs when blockDim.z != 1) [-Rpass=coalesce]
// CHECK-LABEL: __global__ void transpose(
// CHECK-NEXT:    static_assert((__is_same(T, float)),
// CHECK:         __shared__ T kopt_tile[2048u];
// ROWS-LABEL: __global__ void transpose_kopt_coalesced(const T *in, T *out, int rows, int cols, unsigned kopt_grid_y) {
// ROWS:          __shared__ T kopt_tile[1056u];
template <typename T>
__global__ void transpose(const T *in, T *out, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < rows && c < cols)
    out[c * rows + r] = in[r * cols + c];
}

// float and double: one text (the tile spelled with T) for both.
// REMARK-DAG: templates.cu:[[@LINE+11]]:5: remark: strided store staged through a shared-memory tile of 2048 float: {{.*}} (in copy_t<float>)
// REMARK-DAG: templates.cu:[[@LINE+10]]:5: remark: strided store staged through a shared-memory tile of 2048 double: {{.*}} (in copy_t<double>)
// CHECK-LABEL: __global__ void copy_t(
// CHECK-NEXT:    static_assert((__is_same(T, float)) ||
// CHECK-NEXT:        (__is_same(T, double)),
// CHECK:         __shared__ T kopt_tile[2048u];
template <typename T>
__global__ void copy_t(const T *in, T *out, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < rows && c < cols)
    out[c * rows + r] = in[r * cols + c];
}

// ROWS-LABEL: void run(
// ROWS: transpose_kopt_coalesced<float><<<dim3(kopt_grid.x, (kopt_grid.y + 4u - 1u) / 4u, kopt_grid.z), block>>>(in, out, rows, cols, kopt_grid.y);
// ROWS: transpose_kopt_coalesced<<<dim3(kopt_grid.x, (kopt_grid.y + 4u - 1u) / 4u, kopt_grid.z), block>>>(in, out, cols, rows, kopt_grid.y);
void run(const float *in, float *out, const double *din, double *dout,
         int rows, int cols) {
  dim3 block(32, 8);
  dim3 grid((cols + 31) / 32, (rows + 7) / 8);
  transpose<float><<<grid, block>>>(in, out, rows, cols);
  transpose<<<grid, block>>>(in, out, cols, rows);
  copy_t<float><<<grid, block>>>(in, out, rows, cols);
  copy_t<double><<<grid, block>>>(din, dout, rows, cols);
}
