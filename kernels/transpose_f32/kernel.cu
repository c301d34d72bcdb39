// out = transpose(in) for a rows x cols f32 matrix, one element per thread
// on a 2D grid: the reads are coalesced, the writes are strided by rows.
#include <cuda_runtime.h>

__global__ void transpose_kernel(const float *in, float *out, int rows,
                                 int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < rows && c < cols)
    out[c * rows + r] = in[r * cols + c];
}

extern "C" void launch_transpose(const float *in, float *out, int rows,
                                 int cols, cudaStream_t stream) {
  dim3 block(32, 8);
  dim3 grid((cols + block.x - 1) / block.x, (rows + block.y - 1) / block.y);
  transpose_kernel<<<grid, block, 0, stream>>>(in, out, rows, cols);
}
