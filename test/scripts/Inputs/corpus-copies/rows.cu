// A thread-per-row kernel whose launcher takes its pointers from the caller:
// -O adds `halve_rows_kopt_restrict` and row-reduce's
// `halve_rows_kopt_restrict_kopt_rows`; both count for `halve_rows`.
#include <cuda_runtime.h>

__global__ void halve_rows(const float *x, float *y, int rows, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows) {
    float *out = y + row * n;
    for (int j = 0; j < n; j++)
      out[j] = 0.5f * x[row * n + j];
  }
}

void halve_forward(const float *x, float *y, int rows, int n) {
  halve_rows<<<(rows + 127) / 128, 128>>>(x, y, rows, n);
}
