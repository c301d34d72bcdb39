#include <cuda_runtime.h>

// The sum and the count of the positive elements, as naive code keeps
// statistics: a grid-stride loop, work before the atomics and a condition
// around them.
__global__ void stats_kernel(const int *x, int *stats, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x) {
    int v = x[i];
    if (v > 0) {
      atomicAdd(&stats[0], v);
      atomicAdd(&stats[1], 1);
    }
  }
}

extern "C" void launch_stats(const int *x, int *stats, int n,
                             cudaStream_t stream) {
  cudaMemsetAsync(stats, 0, 2 * sizeof(int), stream);
  stats_kernel<<<1024, 256, 0, stream>>>(x, stats, n);
}
