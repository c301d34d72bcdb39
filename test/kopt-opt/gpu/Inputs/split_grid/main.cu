// Grid-stride kernels launched on small fixed grids, for split-grid's GPU
// test: the program prints a hash of every output of every case, so the
// original build and the rewritten one (kopt-opt -passes=split-grid) can be
// compared bit for bit, and times each case on stderr. The last case puts
// the bound 10000 below INT_MAX: eight times the grid would carry the index
// past it, so the launch must keep its grid (or the kernel writes out of
// bounds and the program stops with a CUDA error).
#include <climits>
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
      printf("CUDA error %s at %d\n", cudaGetErrorString(e), __LINE__);        \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

// A helper kopt proves pure (one `return` of its value parameter).
__device__ float cube(float v) { return v * v * v; }

// An activation in a grid-stride loop (int index).
__global__ void gelu_stride(const float *__restrict__ x, float *__restrict__ y,
                            int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x) {
    float v = x[i];
    y[i] = 0.5f * v * (1.0f + tanhf(0.7978845608f * (v + 0.044715f * cube(v))));
  }
}

// 64-bit index through locals; the output is read back at an offset.
__global__ void axpy_offset(const float *__restrict__ x, float *__restrict__ y,
                            float a, long long off, long long n) {
  const long long idx = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned stride = gridDim.x * blockDim.x;
  for (long long i = idx; i < n; i += stride)
    y[off + i] = a * x[i] + y[off + i];
}

// Bytes, for a bound near INT_MAX.
__global__ void invert_bytes(const unsigned char *__restrict__ x,
                             unsigned char *__restrict__ y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
    y[i] = static_cast<unsigned char>(~x[i]);
}

template <typename T> static uint64_t hash(const std::vector<T> &v) {
  uint64_t h = 1469598103934665603ull;
  const unsigned char *p = reinterpret_cast<const unsigned char *>(v.data());
  size_t bytes = v.size() * sizeof(T), i = 0;
  for (; i + 8 <= bytes; i += 8) {
    uint64_t w;
    memcpy(&w, p + i, 8);
    h = (h ^ w) * 1099511628211ull;
  }
  for (; i < bytes; ++i)
    h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

int main() {
  const int sizes[] = {0, 1, 1000, (1 << 20) + 7, 1 << 24};
  const int grids[] = {1, 3, 32, 132};
  const int blocks[] = {32, 100, 256, 1024};
  const long long off = 5;
  cudaEvent_t e0, e1;
  CHECK(cudaEventCreate(&e0));
  CHECK(cudaEventCreate(&e1));
  for (int n : sizes) {
    std::vector<float> hx(n), hy0(n + off);
    srand(n + 17);
    for (float &f : hx)
      f = float(rand()) / RAND_MAX * 8.0f - 4.0f;
    for (float &f : hy0)
      f = float(rand()) / RAND_MAX;
    float *x, *y, *z;
    CHECK(cudaMalloc(&x, (n + 1) * sizeof(float)));
    CHECK(cudaMalloc(&y, (n + 1) * sizeof(float)));
    CHECK(cudaMalloc(&z, (n + off) * sizeof(float)));
    CHECK(cudaMemcpy(x, hx.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    for (int g : grids)
      for (int b : blocks) {
        CHECK(cudaMemset(y, 0xff, (n + 1) * sizeof(float)));
        CHECK(cudaMemcpy(z, hy0.data(), (n + off) * sizeof(float),
                         cudaMemcpyHostToDevice));
        float t = 0;
        CHECK(cudaEventRecord(e0));
        gelu_stride<<<g, b>>>(x, y, n);
        CHECK(cudaEventRecord(e1));
        axpy_offset<<<g, b>>>(x, z, 1.5f, off, n);
        CHECK(cudaGetLastError());
        CHECK(cudaEventSynchronize(e1));
        CHECK(cudaEventElapsedTime(&t, e0, e1));
        std::vector<float> hy(n + 1), hz(n + off);
        CHECK(cudaMemcpy(hy.data(), y, (n + 1) * sizeof(float),
                         cudaMemcpyDeviceToHost));
        CHECK(cudaMemcpy(hz.data(), z, (n + off) * sizeof(float),
                         cudaMemcpyDeviceToHost));
        printf("n %d grid %d block %d: gelu %016llx axpy %016llx\n", n, g, b,
               (unsigned long long)hash(hy), (unsigned long long)hash(hz));
        fprintf(stderr, "n %d grid %d block %d: gelu_stride %.4f ms\n", n, g, b,
                t);
      }
    CHECK(cudaFree(x));
    CHECK(cudaFree(y));
    CHECK(cudaFree(z));
  }
  // A bound 10000 below INT_MAX: 32 x 256 threads leave the index in int,
  // eight times as many would not.
  const int big = INT_MAX - 10000;
  std::vector<unsigned char> hb(big);
  for (size_t i = 0; i < hb.size(); ++i)
    hb[i] = static_cast<unsigned char>(i * 2654435761u >> 13);
  unsigned char *bx, *by;
  CHECK(cudaMalloc(&bx, big));
  CHECK(cudaMalloc(&by, big));
  CHECK(cudaMemcpy(bx, hb.data(), big, cudaMemcpyHostToDevice));
  CHECK(cudaMemset(by, 0x5a, big));
  invert_bytes<<<32, 256>>>(bx, by, big);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(hb.data(), by, big, cudaMemcpyDeviceToHost));
  printf("n %d grid 32 block 256: invert %016llx\n", big,
         (unsigned long long)hash(hb));
  CHECK(cudaFree(bx));
  CHECK(cudaFree(by));
  return 0;
}
