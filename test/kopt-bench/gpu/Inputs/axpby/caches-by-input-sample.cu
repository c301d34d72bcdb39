// Cheat: memoizes its output under a key hashed from a few input elements
// (and n), on the device. A call whose key matches the previous call's
// copies the cached output (8 bytes per element instead of 12). It used to
// hit in the checked run after the reference (same inputs as run 1) and in
// every timed run (one input set for all of them). Now run 2 has inputs of
// its own and every timed pair has different inputs, so it always misses:
// it computes (and writes its cache: 16 bytes per element), passes, and is
// slower than the reference, not faster.
#include <cuda_runtime.h>

__device__ unsigned long long StoredKey = 0;
__device__ int StoredN = -1;

__device__ unsigned long long sampleKey(const float *x, const float *y, int n) {
  unsigned long long H = 1469598103934665603ull;
  for (int K = 0; K < 4; ++K) {
    int J = static_cast<int>(static_cast<long long>(K) * (n - 1) / 3);
    H = (H ^ __float_as_uint(x[J])) * 1099511628211ull;
    H = (H ^ __float_as_uint(y[J])) * 1099511628211ull;
  }
  return H | 1;
}

__global__ void axpbyCached(const float *x, const float *y, float *out, float a,
                            float b, int n, float *cache) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  bool Hit = StoredN == n && StoredKey == sampleKey(x, y, n);
  if (Hit) {
    out[i] = cache[i];
  } else {
    float V = a * x[i] + b * y[i];
    out[i] = V;
    cache[i] = V;
  }
}

__global__ void remember(const float *x, const float *y, int n) {
  StoredKey = sampleKey(x, y, n);
  StoredN = n;
}

static float *Cache = nullptr;
static int CacheN = -1;

extern "C" void launch_axpby(const float *x, const float *y, float *out,
                             float a, float b, int n, cudaStream_t stream) {
  if (n != CacheN) {
    if (Cache)
      cudaFreeAsync(Cache, stream);
    cudaMallocAsync(reinterpret_cast<void **>(&Cache), n * sizeof(float),
                    stream);
    CacheN = n;
  }
  axpbyCached<<<(n + 255) / 256, 256, 0, stream>>>(x, y, out, a, b, n, Cache);
  remember<<<1, 1, 0, stream>>>(x, y, n);
}
