// Index of the largest element of each row of an f32 matrix (the first one
// on ties, as torch.argmax). One block per row; each thread scans a
// block-stride slice, then a shared-memory tree keeps (value, index) pairs.
#include <cuda_runtime.h>

__global__ void argmax_kernel(const float *x, int *out, int cols) {
  __shared__ float best_val[256];
  __shared__ int best_idx[256];
  const int row = blockIdx.x;
  const int tid = threadIdx.x;
  float v = -INFINITY;
  int idx = cols; // larger than any real index: loses every tie
  for (int j = tid; j < cols; j += blockDim.x) {
    float e = x[row * cols + j];
    if (e > v) { // strict: this thread sees its indices in increasing order
      v = e;
      idx = j;
    }
  }
  best_val[tid] = v;
  best_idx[tid] = idx;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) {
      float ov = best_val[tid + s];
      int oi = best_idx[tid + s];
      if (ov > best_val[tid] || (ov == best_val[tid] && oi < best_idx[tid])) {
        best_val[tid] = ov;
        best_idx[tid] = oi;
      }
    }
    __syncthreads();
  }
  if (tid == 0)
    out[row] = best_idx[0];
}

extern "C" void launch_argmax(const float *x, int *out, int rows, int cols,
                              cudaStream_t stream) {
  argmax_kernel<<<rows, 256, 0, stream>>>(x, out, cols);
}
