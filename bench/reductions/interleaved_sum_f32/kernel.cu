#include <cuda_runtime.h>

__global__ void reduce1(const float *x, float *out) {
  __shared__ float sdata[1024];
  unsigned int tid = threadIdx.x;
  sdata[tid] = x[blockIdx.x * blockDim.x + tid];
  __syncthreads();
  for (unsigned int s = 1; s < blockDim.x; s *= 2) {
    if (tid % (2 * s) == 0)
      sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0)
    out[blockIdx.x] = sdata[0];
}

extern "C" void launch_rowsum(const float *x, float *out, int rows,
                              cudaStream_t stream) {
  reduce1<<<rows, 1024, 0, stream>>>(x, out);
}
