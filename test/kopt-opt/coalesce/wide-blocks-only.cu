// coalesce{wide-blocks-only=true}, as -O runs it: only kernels whose every
// launch in the file has a constant block a multiple of 32 wide and one
// deep, where each warp's 32 strided stores fall in 32 sectors. A warp that
// spans several rows (8 x 16 blocks) already shares sectors between them,
// and staging it measured slower; a deep or unknown block may not be
// staged at all (the fallback body runs).
// RUN: kopt-opt %s -passes='coalesce{wide-blocks-only=true}' -Rpass=coalesce -Rpass-missed=coalesce -o %t.cu 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: %if cuda-toolkit %{ %nvcc_check %t.cu %}
// Without the rule every kernel with a known launch shape is staged.
// RUN: kopt-opt %s -passes=coalesce -Rpass=coalesce -o /dev/null 2>&1 | FileCheck %s --check-prefix=ALL
// -O runs it with rows-per-thread=8, before restrict-const (which does not
// version kopt's copies), so the launch runs the staged copy.
// RUN: kopt-opt %s -O -Rpass=coalesce -Rpass-missed=restrict-const -o %t.O.cu 2>&1 | FileCheck %s --check-prefix=O
// O-DAG: remark: __restrict__ not added: {{.*}}; no run-time version: 'wide_kopt_coalesced' is a copy kopt made [-Rpass-missed=restrict-const]
// RUN: grep -c '^ *wide_kopt_coalesced<<<' %t.O.cu | FileCheck %s --check-prefix=ONCE
// RUN: %if cuda-toolkit %{ %nvcc_check %t.O.cu %}
// REQUIRES: filecheck
// ONCE: 1
#include <cuda_runtime.h>

// REMARK-DAG: wide-blocks-only.cu:[[@LINE+6]]:5: remark: strided store staged through a shared-memory tile of 2048 float: both global sides are contiguous (the original body runs when blockDim.z != 1) [-Rpass=coalesce]
// O-DAG: wide-blocks-only.cu:[[@LINE+5]]:5: remark: strided store staged through a shared-memory tile of 2112 float in 'wide_kopt_coalesced', each block covering 8 of the original blocks along y; 1 launch runs it, specialized to their 32 x 8 blocks [-Rpass=coalesce]
__global__ void wide(const float *in, float *out, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < rows && c < cols)
    out[c * rows + r] = in[r * cols + c];
}

// REMARK-DAG: wide-blocks-only.cu:[[@LINE+6]]:5: remark: strided store not coalesced: the launch at [[@LINE+48]]:3 has 8 x 16 x 1 blocks, not a multiple of 32 wide and one deep (wide-blocks-only) [-Rpass-missed=coalesce]
// ALL-DAG: wide-blocks-only.cu:[[@LINE+5]]:5: remark: strided store staged
__global__ void narrow(const double *in, double *out, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < rows && c < cols)
    out[c * rows + r] = in[r * cols + c];
}

// REMARK-DAG: wide-blocks-only.cu:[[@LINE+6]]:5: remark: strided store not coalesced: the launch at [[@LINE+40]]:3 has 32 x 4 x 2 blocks, not a multiple of 32 wide and one deep (wide-blocks-only) [-Rpass-missed=coalesce]
// ALL-DAG: wide-blocks-only.cu:[[@LINE+5]]:5: remark: strided store staged
__global__ void deep(const float *in, float *out, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < rows && c < cols)
    out[c * rows + r] = in[r * cols + c];
}

// A kernel launched twice: one launch is wide, the other is not.
// REMARK-DAG: wide-blocks-only.cu:[[@LINE+6]]:5: remark: strided store not coalesced: the launch at [[@LINE+32]]:3 has 16 x 16 x 1 blocks, not a multiple of 32 wide and one deep (wide-blocks-only) [-Rpass-missed=coalesce]
// ALL-DAG: wide-blocks-only.cu:[[@LINE+5]]:5: remark: strided store staged
__global__ void mixed(const float *in, float *out, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < rows && c < cols)
    out[c * rows + r] = in[r * cols + c];
}

// REMARK-DAG: wide-blocks-only.cu:[[@LINE+5]]:5: remark: strided store not coalesced: the launch at [[@LINE+24]]:3 has a block whose extents are not constants (wide-blocks-only) [-Rpass-missed=coalesce]
__global__ void runtime(const float *in, float *out, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < rows && c < cols)
    out[c * rows + r] = in[r * cols + c];
}

// REMARK-DAG: wide-blocks-only.cu:[[@LINE+5]]:5: remark: strided store not coalesced: no launch of 'unlaunched' in this file (wide-blocks-only) [-Rpass-missed=coalesce]
__global__ void unlaunched(const float *in, float *out, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < rows && c < cols)
    out[c * rows + r] = in[r * cols + c];
}

void launch(const float *in, float *out, const double *din, double *dout,
            int rows, int cols, unsigned bx, cudaStream_t s) {
  dim3 grid((cols + 31) / 32, (rows + 7) / 8);
  wide<<<grid, dim3(32, 8), 0, s>>>(in, out, rows, cols);
  narrow<<<grid, dim3(8, 16), 0, s>>>(din, dout, rows, cols);
  deep<<<grid, dim3(32, 4, 2), 0, s>>>(in, out, rows, cols);
  mixed<<<grid, dim3(32, 8), 0, s>>>(in, out, rows, cols);
  mixed<<<grid, dim3(16, 16), 0, s>>>(in, out, rows, cols);
  runtime<<<grid, dim3(bx, 8), 0, s>>>(in, out, rows, cols);
}
