// register-cache on a template kernel (one instantiation, float): a row
// centred on its mean, the row read twice. Rows of 1 to 9000 elements (with
// max-elems=8 the cache holds 8 per thread of 256: longer rows take the
// original loops).
// Prints a hash of every output; the original and the rewrite must print
// the same.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>
#include <vector>

template <typename T>
__global__ void centre(const T *__restrict__ x, T *__restrict__ y, int n) {
  __shared__ T part[256];
  __shared__ T total;
  const T *row = x + (size_t)blockIdx.x * n;
  T s = 0;
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    s += row[j];
  part[threadIdx.x] = s;
  __syncthreads();
  if (threadIdx.x == 0) {
    T t = 0;
    for (int i = 0; i < 256; ++i)
      t += part[i];
    total = t;
  }
  __syncthreads();
  T mean = total / n;
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    y[(size_t)blockIdx.x * n + j] = row[j] - mean;
}

int main() {
  const int rows = 3;
  for (int n : {1, 255, 256, 257, 4099, 8192, 8193, 9000}) {
    std::vector<float> h((size_t)rows * n);
    std::srand(n);
    for (float &v : h)
      v = (float)(std::rand() % 20001 - 10000) / 64.0f;
    float *x, *y;
    cudaMalloc(&x, h.size() * sizeof(float));
    cudaMalloc(&y, h.size() * sizeof(float));
    cudaMemcpy(x, h.data(), h.size() * sizeof(float), cudaMemcpyHostToDevice);
    centre<float><<<rows, 256>>>(x, y, n);
    if (cudaDeviceSynchronize() != cudaSuccess) {
      std::printf("n=%d: %s\n", n, cudaGetErrorString(cudaGetLastError()));
      return 2;
    }
    std::vector<float> out(h.size());
    cudaMemcpy(out.data(), y, out.size() * sizeof(float),
               cudaMemcpyDeviceToHost);
    uint64_t hash = 1469598103934665603ull;
    for (float v : out) {
      uint32_t b;
      std::memcpy(&b, &v, 4);
      hash = (hash ^ b) * 1099511628211ull;
    }
    std::printf("n=%d hash=%016llx\n", n, (unsigned long long)hash);
    cudaFree(x);
    cudaFree(y);
  }
  return 0;
}
