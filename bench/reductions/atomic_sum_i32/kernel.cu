#include <cuda_runtime.h>

__global__ void sum_kernel(const int *x, int *sum, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(sum, x[i]);
}

extern "C" void launch_sum(const int *x, int *sum, int n, cudaStream_t stream) {
  cudaMemsetAsync(sum, 0, sizeof(int), stream);
  sum_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x, sum, n);
}
