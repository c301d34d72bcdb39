// Launches its kernel from a thread of its own on a private stream, and
// names fork through token pasting (the preprocessed scan sees `fork`).
#include <cuda_runtime.h>
#include <thread>
#include <unistd.h>

#define CAT(a, b) a##b

__global__ void axpby(const float *x, const float *y, float *out, float a,
                      float b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = a * x[i] + b * y[i];
}

extern "C" void launch_axpby(const float *x, const float *y, float *out,
                             float a, float b, int n, cudaStream_t stream) {
  std::thread worker([=] {
    cudaStream_t mine;
    cudaStreamCreateWithFlags(&mine, cudaStreamNonBlocking);
    axpby<<<(n + 255) / 256, 256, 0, mine>>>(x, y, out, a, b, n);
    cudaStreamSynchronize(mine);
  });
  worker.join();
  if (n < 0)
    CAT(fo, rk)();
}
