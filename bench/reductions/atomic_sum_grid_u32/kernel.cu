#include <cuda_runtime.h>

__global__ void sum_kernel(const unsigned *x, unsigned *sum, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
    atomicAdd(sum, x[i]);
}

extern "C" void launch_sum(const unsigned *x, unsigned *sum, int n,
                           cudaStream_t stream) {
  cudaMemsetAsync(sum, 0, sizeof(unsigned), stream);
  sum_kernel<<<1024, 256, 0, stream>>>(x, sum, n);
}
