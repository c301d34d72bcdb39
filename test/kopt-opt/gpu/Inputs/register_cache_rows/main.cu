// register-cache through row pointers on the GPU: a two-pass norm that
// names its row (`const float *row = x + blockIdx.x * n`) and a chain of
// rows. The rewrite keeps the row in registers where n <= 32 * blockDim.x
// and runs the original loops otherwise; it changes no arithmetic, so the
// program prints the same bytes (a checksum of every output bit) before
// and after. Rows of 1, 1000, 8192 (cached) and 8193, 20000 (original
// loops) elements.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>
#include <vector>

#define CHECK(x)                                                               \
  do {                                                                         \
    cudaError_t e = (x);                                                       \
    if (e != cudaSuccess) {                                                    \
      std::printf("%s: %s\n", #x, cudaGetErrorString(e));                      \
      std::exit(2);                                                            \
    }                                                                          \
  } while (0)

__global__ void rownorm(const float *__restrict__ x, float *__restrict__ y,
                        int n) {
  __shared__ float partial[256];
  const float *row = x + (long long)blockIdx.x * n;
  float *out = y + (long long)blockIdx.x * n;
  float sum = 0.0f;
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    sum += row[j] * row[j];
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  const float scale = rsqrtf(partial[0] / n + 1e-5f);
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    out[j] = row[j] * scale;
}

__global__ void centred(const float *__restrict__ x, float *__restrict__ y,
                        int n) {
  const float *base = x + (long long)blockIdx.x * 2 * n;
  const float *row = &base[n];
  float m = 0.0f; // each thread's own maximum: no barrier between the loops
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    m = fmaxf(m, row[j]);
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    y[(long long)blockIdx.x * n + j] = row[j] - m;
}

int main() {
  const int rows = 6, lengths[] = {1, 1000, 8192, 8193, 20000};
  uint64_t checksum = 0;
  for (int n : lengths) {
    std::vector<float> h(2 * rows * n);
    for (size_t i = 0; i < h.size(); ++i)
      h[i] = (float)((i * 7919) % 1000) / 250.0f - 2.0f;
    float *x, *y;
    CHECK(cudaMalloc(&x, h.size() * sizeof(float)));
    CHECK(cudaMalloc(&y, rows * n * sizeof(float)));
    CHECK(cudaMemcpy(x, h.data(), h.size() * sizeof(float),
                     cudaMemcpyHostToDevice));
    std::vector<float> out(rows * n);
    for (int k = 0; k < 2; ++k) {
      if (k == 0)
        rownorm<<<rows, 256>>>(x, y, n);
      else
        centred<<<rows, 256>>>(x, y, n);
      CHECK(cudaGetLastError());
      CHECK(cudaMemcpy(out.data(), y, out.size() * sizeof(float),
                       cudaMemcpyDeviceToHost));
      uint64_t sum = 0;
      for (float v : out) {
        uint32_t b;
        std::memcpy(&b, &v, 4);
        sum = sum * 1000003u + b;
      }
      std::printf("%s n=%d: %016llx\n", k ? "centred" : "rownorm", n,
                  (unsigned long long)sum);
    }
    CHECK(cudaFree(x));
    CHECK(cudaFree(y));
  }
  return 0;
}
