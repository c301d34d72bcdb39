// y = A x for a row-major m x n fp16 matrix and an fp16 vector, accumulated
// in f32: one thread per row, a serial loop over the row's n columns.
#include <cuda_fp16.h>

__global__ void matvec_rows(const __half *A, const __half *x, float *y, int m,
                            int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < m) {
    float acc = 0.0f;
    for (int k = 0; k < n; k++)
      acc += __half2float(A[row * n + k]) * __half2float(x[k]);
    y[row] = acc;
  }
}

extern "C" void launch_matvec_rows(const __half *A, const __half *x, float *y,
                                   int m, int n, cudaStream_t stream) {
  const int block = 256;
  matvec_rows<<<(m + block - 1) / block, block, 0, stream>>>(A, x, y, m, n);
}
