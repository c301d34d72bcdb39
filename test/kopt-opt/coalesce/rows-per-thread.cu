// coalesce{rows-per-thread=4}: each block of a new kernel does the work of
// four of the original blocks along y (four loads in flight a thread); every
// launch runs it on a grid four times shorter, passing the original grid's
// y extent, beyond which a sub-tile does nothing.
// RUN: kopt-opt %s -passes='coalesce{rows-per-thread=4}' -Rpass=coalesce -Rpass-missed=coalesce -o %t.cu 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: %strip_checks %t.cu | FileCheck %s
// RUN: %if cuda-toolkit %{ %nvcc_check %t.cu %}
// A second run changes nothing: the original is no longer launched and the
// copy carries kopt_ names.
// RUN: kopt-opt %t.cu -passes='coalesce{rows-per-thread=4}' -o %t.again.cu
// RUN: diff %t.cu %t.again.cu
// RUN: kopt-opt %s -passes='coalesce{rows-per-thread=9}' -Rpass-missed=coalesce -o /dev/null 2>&1 | FileCheck %s --check-prefix=RANGE
// Eight 32 x 8 blocks need 64 x 33 tile elements: the copy's tile grows to
// hold them (at least 2048 elements for blocks it cannot see), up to the
// 48 KiB of static shared memory of a block; a block that needs more
// would run the unstaged fallback, slower than the original, so its
// kernel is refused ('tall', 32 x 32 blocks of doubles).
// RUN: kopt-opt %s -passes='coalesce{rows-per-thread=8}' -Rpass=coalesce -Rpass-missed=coalesce -o /dev/null 2>&1 | FileCheck %s --check-prefix=FIT
// FIT-DAG: remark: strided store staged through a shared-memory tile of 2112 float in 'transpose_kopt_coalesced', each block covering 8 of the original blocks along y; 2 launches run it [-Rpass=coalesce]
// FIT-DAG: remark: strided store staged through a shared-memory tile of 2112 float in 'fixed_kopt_coalesced', each block covering 8 of the original blocks along y; 2 launches run it, specialized to their 32 x 8 blocks [-Rpass=coalesce]
// FIT-DAG: remark: strided store not coalesced with rows-per-thread=8: the launch at {{[0-9]+}}:3 has 32 x 32 blocks: 8 of them need 8448 tile elements, more than 6144 (48 KiB of shared memory) [-Rpass-missed=coalesce]
// REQUIRES: filecheck
#include <cuda_runtime.h>

// REMARK-DAG: rows-per-thread.cu:[[@LINE+6]]:5: remark: strided store staged through a shared-memory tile of 2048 float in 'transpose_kopt_coalesced', each block covering 4 of the original blocks along y; 2 launches run it [-Rpass=coalesce]
// RANGE-DAG: rows-per-thread.cu:[[@LINE+5]]:5: remark: strided store not coalesced: rows-per-thread=9 is not between 1 and 8 [-Rpass-missed=coalesce]
__global__ void transpose(const float *in, float *out, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < rows && c < cols)
    out[c * rows + r] = in[r * cols + c];
}
// The original stays as it was, after it the copy.
// CHECK-LABEL: void transpose(
// CHECK-NEXT: int c = blockIdx.x * blockDim.x + threadIdx.x;
// CHECK: void transpose_kopt_coalesced(const float *in, float *out, int rows, int cols, unsigned kopt_grid_y) {
// CHECK-NEXT: // kopt coalesce: the store is staged through shared memory, 4 of the original blocks a block
// CHECK-NEXT: __shared__ float kopt_tile[2048u];
// CHECK-NEXT: const unsigned kopt_rows = 4u * blockDim.y;
// CHECK-NEXT: const unsigned kopt_pad = kopt_rows <= 32u && 32u % kopt_rows == 0u ? 32u / kopt_rows : 1u;
// CHECK-NEXT: const unsigned kopt_pitch = blockDim.x + kopt_pad;
// CHECK-NEXT: if (blockDim.z == 1u && kopt_rows * kopt_pitch <= 2048u) {
// Phase 1 loads the four values into registers, then stores them into the
// tile: all four loads are in flight together.
// CHECK-NEXT: float kopt_in[4u];
// CHECK-NEXT: #pragma unroll
// CHECK-NEXT: for (unsigned kopt_j = 0; kopt_j < 4u; ++kopt_j) {
// CHECK-NEXT: const unsigned kopt_by = blockIdx.y * 4u + kopt_j;
// CHECK-NEXT: if (kopt_by < kopt_grid_y) {
// CHECK-NEXT: int c = blockIdx.x * blockDim.x + threadIdx.x;
// CHECK-NEXT: int r = kopt_by * blockDim.y + threadIdx.y;
// CHECK-NEXT: if (r < rows && c < cols)
// CHECK-NEXT: kopt_in[kopt_j] = in[r * cols + c];
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: #pragma unroll
// CHECK-NEXT: for (unsigned kopt_j = 0; kopt_j < 4u; ++kopt_j) {
// CHECK-NEXT: const unsigned kopt_by = blockIdx.y * 4u + kopt_j;
// CHECK-NEXT: if (kopt_by < kopt_grid_y) {
// CHECK-NEXT: int c = blockIdx.x * blockDim.x + threadIdx.x;
// CHECK-NEXT: int r = kopt_by * blockDim.y + threadIdx.y;
// CHECK-NEXT: if (r < rows && c < cols)
// CHECK-NEXT: kopt_tile[(kopt_j * blockDim.y + threadIdx.y) * kopt_pitch + threadIdx.x] = kopt_in[kopt_j];
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: __syncthreads();
// Where 4 divides blockDim.x, a thread stores the same tile row every
// round: its divisions run once, and its four shared loads are issued
// before the guarded stores.
// CHECK-NEXT: if (blockDim.x % 4u == 0u) {
// CHECK-NEXT: const unsigned kopt_l = threadIdx.y * blockDim.x + threadIdx.x;
// CHECK-NEXT: const unsigned kopt_row = kopt_l % kopt_rows;
// CHECK-NEXT: const unsigned kopt_ty = kopt_row % blockDim.y;
// CHECK-NEXT: const unsigned kopt_by = blockIdx.y * 4u + kopt_row / blockDim.y;
// CHECK-NEXT: float kopt_val[4u];
// CHECK-NEXT: #pragma unroll
// CHECK-NEXT: for (unsigned kopt_j = 0; kopt_j < 4u; ++kopt_j)
// CHECK-NEXT: kopt_val[kopt_j] = kopt_tile[kopt_row * kopt_pitch + kopt_j * (blockDim.x / 4u) + kopt_l / kopt_rows];
// CHECK-NEXT: #pragma unroll
// CHECK-NEXT: for (unsigned kopt_j = 0; kopt_j < 4u; ++kopt_j) {
// CHECK-NEXT: const unsigned kopt_tx = kopt_j * (blockDim.x / 4u) + kopt_l / kopt_rows;
// CHECK-NEXT: if (kopt_by < kopt_grid_y) {
// CHECK-NEXT: int c = blockIdx.x * blockDim.x + kopt_tx;
// CHECK-NEXT: int r = kopt_by * blockDim.y + kopt_ty;
// CHECK-NEXT: if (r < rows && c < cols)
// CHECK-NEXT: out[c * rows + r] = kopt_val[kopt_j];
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: } else {
// CHECK-NEXT: for (unsigned kopt_j = 0; kopt_j < 4u; ++kopt_j) {
// CHECK-NEXT: const unsigned kopt_t = (kopt_j * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
// CHECK-NEXT: const unsigned kopt_row = kopt_t % kopt_rows;
// CHECK-NEXT: const unsigned kopt_tx = kopt_t / kopt_rows;
// CHECK-NEXT: const unsigned kopt_ty = kopt_row % blockDim.y;
// CHECK-NEXT: const unsigned kopt_by = blockIdx.y * 4u + kopt_row / blockDim.y;
// CHECK-NEXT: if (kopt_by < kopt_grid_y) {
// CHECK-NEXT: int c = blockIdx.x * blockDim.x + kopt_tx;
// CHECK-NEXT: int r = kopt_by * blockDim.y + kopt_ty;
// CHECK-NEXT: if (r < rows && c < cols)
// CHECK-NEXT: out[c * rows + r] = kopt_tile[kopt_row * kopt_pitch + kopt_tx];
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: } else {
// CHECK-NEXT: for (unsigned kopt_j = 0; kopt_j < 4u; ++kopt_j) {
// CHECK-NEXT: const unsigned kopt_by = blockIdx.y * 4u + kopt_j;
// CHECK-NEXT: if (kopt_by < kopt_grid_y) {
// CHECK-NEXT: int c = blockIdx.x * blockDim.x + threadIdx.x;
// CHECK-NEXT: int r = kopt_by * blockDim.y + threadIdx.y;
// CHECK-NEXT: if (r < rows && c < cols)
// CHECK-NEXT: out[c * rows + r] = in[r * cols + c];

// A launch that is the body of an if becomes a block there.
void launch(const float *in, float *out, int rows, int cols, cudaStream_t s) {
  dim3 block(32, 8);
  dim3 grid((cols + 31) / 32, (rows + 7) / 8);
  if (rows > 0)
    transpose<<<grid, block, 0, s>>>(in, out, rows, cols);
}
// CHECK-LABEL: void launch(
// CHECK: if (rows > 0)
// CHECK-NEXT: {
// CHECK-NEXT: // kopt coalesce: 4 of the original blocks a block along y
// CHECK-NEXT: const dim3 kopt_grid(grid);
// CHECK-NEXT: transpose_kopt_coalesced<<<dim3(kopt_grid.x, (kopt_grid.y + 4u - 1u) / 4u, kopt_grid.z), block, 0, s>>>(in, out, rows, cols, kopt_grid.y);
// CHECK-NEXT: }

// A second launch with a block the caller chooses: the copy's blockDim is
// not known, so it is written for any block (above).
void launchWith(const float *in, float *out, int rows, int cols, dim3 block,
                cudaStream_t s) {
  dim3 grid((cols + block.x - 1) / block.x, (rows + block.y - 1) / block.y);
  transpose<<<grid, block, 0, s>>>(in, out, rows, cols);
}

// Every launch of 'fixed' runs 32 x 8 blocks, so its copy runs nothing
// else: blockDim's extents become constants, the tile holds exactly the
// 4 x 8 rows of 33 (32 + 1 against bank conflicts), and neither the fallback
// nor the path for widths that 4 does not divide is written.
// REMARK-DAG: rows-per-thread.cu:[[@LINE+5]]:5: remark: strided store staged through a shared-memory tile of 1056 float in 'fixed_kopt_coalesced', each block covering 4 of the original blocks along y; 2 launches run it, specialized to their 32 x 8 blocks [-Rpass=coalesce]
__global__ void fixed(const float *in, float *out, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < rows && c < cols)
    out[c * rows + r] = in[r * cols + c] * blockDim.z;
}
// CHECK-LABEL: void fixed_kopt_coalesced(const float *in, float *out, int rows, int cols, unsigned kopt_grid_y) {
// CHECK-NEXT: // kopt coalesce: the store is staged through shared memory, 4 of the original blocks a block of 32 x 8 threads
// CHECK-NEXT: __shared__ float kopt_tile[1056u];
// CHECK-NEXT: const unsigned kopt_rows = 32u;
// CHECK-NEXT: const unsigned kopt_pitch = 33u;
// CHECK-NEXT: float kopt_in[4u];
// CHECK-NEXT: #pragma unroll
// CHECK-NEXT: for (unsigned kopt_j = 0; kopt_j < 4u; ++kopt_j) {
// CHECK-NEXT: const unsigned kopt_by = blockIdx.y * 4u + kopt_j;
// CHECK-NEXT: if (kopt_by < kopt_grid_y) {
// CHECK-NEXT: int c = blockIdx.x * 32u + threadIdx.x;
// CHECK-NEXT: int r = kopt_by * 8u + threadIdx.y;
// CHECK-NEXT: if (r < rows && c < cols)
// CHECK-NEXT: kopt_in[kopt_j] = in[r * cols + c] * 1u;
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: #pragma unroll
// CHECK-NEXT: for (unsigned kopt_j = 0; kopt_j < 4u; ++kopt_j) {
// CHECK-NEXT: const unsigned kopt_by = blockIdx.y * 4u + kopt_j;
// CHECK-NEXT: if (kopt_by < kopt_grid_y) {
// CHECK-NEXT: int c = blockIdx.x * 32u + threadIdx.x;
// CHECK-NEXT: int r = kopt_by * 8u + threadIdx.y;
// CHECK-NEXT: if (r < rows && c < cols)
// CHECK-NEXT: kopt_tile[(kopt_j * 8u + threadIdx.y) * kopt_pitch + threadIdx.x] = kopt_in[kopt_j];
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: __syncthreads();
// CHECK-NEXT: const unsigned kopt_l = threadIdx.y * 32u + threadIdx.x;
// CHECK-NEXT: const unsigned kopt_row = kopt_l % kopt_rows;
// CHECK-NEXT: const unsigned kopt_ty = kopt_row % 8u;
// CHECK-NEXT: const unsigned kopt_by = blockIdx.y * 4u + kopt_row / 8u;
// CHECK-NEXT: float kopt_val[4u];
// CHECK-NEXT: #pragma unroll
// CHECK-NEXT: for (unsigned kopt_j = 0; kopt_j < 4u; ++kopt_j)
// CHECK-NEXT: kopt_val[kopt_j] = kopt_tile[kopt_row * kopt_pitch + kopt_j * (32u / 4u) + kopt_l / kopt_rows];
// CHECK-NEXT: #pragma unroll
// CHECK-NEXT: for (unsigned kopt_j = 0; kopt_j < 4u; ++kopt_j) {
// CHECK-NEXT: const unsigned kopt_tx = kopt_j * (32u / 4u) + kopt_l / kopt_rows;
// CHECK-NEXT: if (kopt_by < kopt_grid_y) {
// CHECK-NEXT: int c = blockIdx.x * 32u + kopt_tx;
// CHECK-NEXT: int r = kopt_by * 8u + kopt_ty;
// CHECK-NEXT: if (r < rows && c < cols)
// CHECK-NEXT: out[c * rows + r] = kopt_val[kopt_j];
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: }

void launchFixed(const float *in, float *out, int rows, int cols,
                 cudaStream_t s) {
  dim3 grid((cols + 31) / 32, (rows + 7) / 8);
  fixed<<<grid, dim3(32, 8), 0, s>>>(in, out, rows, cols);
  fixed<<<grid, dim3(32, 8, 1), 0, s>>>(in, out, rows, cols);
}

// Refused: a kernel whose address is taken (a launch kopt cannot see could
// still run it with the original grid).
// REMARK-DAG: rows-per-thread.cu:[[@LINE+5]]:5: remark: strided store not coalesced with rows-per-thread=4: 'byPointer' is referenced other than by a launch [-Rpass-missed=coalesce]
__global__ void byPointer(const float *in, float *out, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < rows && c < cols)
    out[c * rows + r] = in[r * cols + c];
}
void *kernelAddress() { return (void *)byPointer; }

// Refused: no launch in this file.
// REMARK-DAG: rows-per-thread.cu:[[@LINE+5]]:5: remark: strided store not coalesced with rows-per-thread=4: no launch of 'elsewhere' in this file [-Rpass-missed=coalesce]
__global__ void elsewhere(const float *in, float *out, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < rows && c < cols)
    out[c * rows + r] = in[r * cols + c];
}

// Four 32 x 32 blocks of doubles fit (4224 elements, 33 KiB); eight do not
// (FIT above).
// REMARK-DAG: rows-per-thread.cu:[[@LINE+5]]:5: remark: strided store staged through a shared-memory tile of 4224 double in 'tall_kopt_coalesced', each block covering 4 of the original blocks along y; 1 launch runs it, specialized to their 32 x 32 blocks [-Rpass=coalesce]
__global__ void tall(const double *in, double *out, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < rows && c < cols)
    out[c * rows + r] = in[r * cols + c];
}

void launchTall(const double *in, double *out, int rows, int cols) {
  dim3 grid((cols + 31) / 32, (rows + 31) / 32);
  tall<<<grid, dim3(32, 32)>>>(in, out, rows, cols);
}
