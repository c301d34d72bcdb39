// warp-reduce on trees whose block size is known only at run time, as
// llm.c's dev/cuda kernels write them: the tree starts from a block_size
// parameter, the barrier comes first in each round, and the launch's block
// size is a variable. The rewrite runs where the block is a 1-D power of
// two of at least 32 threads and block_size equals blockDim.x; other blocks
// (96 threads, a block_size that differs) run the original tree. Every
// row's total must equal, bit for bit, the CPU's replay of the tree as
// written (the same pairs in the same order), for sums (the in-order tail)
// and maxima (the whole tree in shuffles). Exit 0 when all hold.
#include <cmath>
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

__global__ void sum_rows(float *out, const float *inp, int C, int block_size) {
  extern __shared__ float shared[];
  int idx = blockIdx.x;
  int tid = threadIdx.x;
  const float *x = inp + idx * C;
  float sum = 0.0f;
  for (int i = tid; i < C; i += block_size)
    sum += x[i];
  shared[tid] = sum;
  __syncthreads();
  for (int stride = block_size / 2; stride >= 1; stride /= 2) {
    __syncthreads();
    if (tid < stride) {
      shared[tid] += shared[tid + stride];
    }
  }
  if (tid == 0)
    out[idx] = shared[0];
}

__global__ void max_rows(float *out, const float *inp, int C) {
  __shared__ float partial[1024];
  int bs = blockDim.x;
  const float *x = inp + blockIdx.x * C;
  float m = -INFINITY;
  for (int i = threadIdx.x; i < C; i += bs)
    m = fmaxf(m, x[i]);
  partial[threadIdx.x] = m;
  __syncthreads();
  for (int s = bs / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      partial[threadIdx.x] = fmaxf(partial[threadIdx.x], partial[threadIdx.x + s]);
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = partial[0];
}

static std::vector<float> values(int n, unsigned seed) {
  std::vector<float> v(n);
  std::srand(seed);
  for (int i = 0; i < n; ++i) {
    double m = 1.0 + std::rand() / (double)RAND_MAX;
    int e = std::rand() % 41 - 20;
    v[i] = (float)((std::rand() % 2 ? -1 : 1) * std::ldexp(m, e));
  }
  return v;
}

// What each kernel computes, replayed in order on the CPU: threads
// accumulate their strided slice, then the tree's rounds.
static float replay(const float *row, int C, int threads, int block_size,
                    bool max) {
  std::vector<float> a(threads);
  for (int t = 0; t < threads; ++t) {
    float v = max ? -INFINITY : 0.0f;
    for (int i = t; i < C; i += (max ? threads : block_size))
      v = max ? std::fmax(v, row[i]) : v + row[i];
    a[t] = v;
  }
  int start = max ? threads : block_size;
  for (int s = start / 2; s >= 1; s /= 2)
    for (int t = 0; t < s && t + s < threads; ++t)
      a[t] = max ? std::fmax(a[t], a[t + s]) : a[t] + a[t + s];
  return a[0];
}

int main() {
  const int rows = 40, C = 3001;
  std::vector<float> h = values(rows * C, 7);
  float *x, *out;
  CHECK(cudaMalloc(&x, h.size() * sizeof(float)));
  CHECK(cudaMalloc(&out, rows * sizeof(float)));
  CHECK(cudaMemcpy(x, h.data(), h.size() * sizeof(float),
                   cudaMemcpyHostToDevice));
  int failed = 0;
  // (threads, block_size): powers of two; 96 threads; a block_size that
  // is not blockDim.x (64 threads told 32: the tree covers half).
  const int cases[][2] = {{32, 32},   {64, 64},   {128, 128}, {256, 256},
                          {512, 512}, {1024, 1024}, {96, 96},  {64, 32}};
  for (const auto &c : cases) {
    int threads = c[0], block_size = c[1];
    for (int max = 0; max < 2; ++max) {
      if (max && threads != block_size)
        continue;
      if (max)
        max_rows<<<rows, threads>>>(out, x, C);
      else
        sum_rows<<<rows, threads, threads * sizeof(float)>>>(out, x, C,
                                                            block_size);
      CHECK(cudaGetLastError());
      std::vector<float> got(rows);
      CHECK(cudaMemcpy(got.data(), out, rows * sizeof(float),
                       cudaMemcpyDeviceToHost));
      int bad = 0;
      for (int r = 0; r < rows; ++r) {
        float want = replay(&h[r * C], C, threads, block_size, max);
        if (std::memcmp(&want, &got[r], sizeof want) != 0 && bad++ == 0)
          std::printf("FAILED: %s, %d threads, block_size %d, row %d: %a "
                      "want %a\n",
                      max ? "max" : "sum", threads, block_size, r, got[r],
                      want);
      }
      failed += bad != 0;
      if (!bad)
        std::printf("ok: %s, %d threads, block_size %d\n",
                    max ? "max" : "sum", threads, block_size);
    }
  }
  std::printf("%d failed\n", failed);
  return failed ? 1 : 0;
}
