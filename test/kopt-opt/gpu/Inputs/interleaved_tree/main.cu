// warp-reduce on interleaved trees (NVIDIA's reductions #1 and #2, the way
// beginners write a block sum): floating-point sums whose totals must equal,
// bit for bit, the CPU's replay of the tree (adjacent pairs, then pairs of
// pairs, ...), for every power of two from 32 to 1024 threads. The values
// span many binades, so a sum in another order rounds differently. Exit 0
// when all hold, 1 when a total differs.
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

// Reduction #1: divergent branches on t % (2 * s).
__global__ void reduce1(const float *x, float *out) {
  extern __shared__ float sdata[];
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

// Reduction #2: strided index, bank conflicts.
__global__ void reduce2(const float *x, float *out) {
  extern __shared__ float sdata[];
  unsigned int tid = threadIdx.x;
  sdata[tid] = x[blockIdx.x * blockDim.x + tid];
  __syncthreads();
  for (unsigned int s = 1; s < blockDim.x; s *= 2) {
    int index = 2 * s * tid;
    if (index < blockDim.x)
      sdata[index] = sdata[index] + sdata[index + s];
    __syncthreads();
  }
  if (tid == 0)
    out[blockIdx.x] = sdata[0];
}

static void launch1(const float *x, float *out, int rows, int threads) {
  reduce1<<<rows, threads, threads * sizeof(float)>>>(x, out);
}

static void launch2(const float *x, float *out, int rows, int threads) {
  reduce2<<<rows, threads, threads * sizeof(float)>>>(x, out);
}

static int failures = 0;

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

// The interleaved tree as written, replayed in order.
static float replay(const float *row, int threads) {
  std::vector<float> a(row, row + threads);
  for (int s = 1; s < threads; s *= 2)
    for (int t = 0; t + s < threads; t += 2 * s)
      a[t] = a[t] + a[t + s];
  return a[0];
}

static void check(const char *what, int threads, int rows, unsigned seed,
                  void (*launch)(const float *, float *, int, int)) {
  std::vector<float> h = values(rows * threads, seed);
  float *x, *out;
  CHECK(cudaMalloc(&x, h.size() * sizeof(float)));
  CHECK(cudaMalloc(&out, rows * sizeof(float)));
  CHECK(cudaMemcpy(x, h.data(), h.size() * sizeof(float),
                   cudaMemcpyHostToDevice));
  launch(x, out, rows, threads);
  CHECK(cudaGetLastError());
  std::vector<float> got(rows);
  CHECK(cudaMemcpy(got.data(), out, rows * sizeof(float),
                   cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int r = 0; r < rows; ++r) {
    float want = replay(h.data() + r * threads, threads);
    bad += std::memcmp(&want, &got[r], sizeof(float)) != 0;
  }
  std::printf("%s: %s, %d threads (%d of %d rows differ)\n",
              bad ? "FAILED" : "ok", what, threads, bad, rows);
  failures += bad != 0;
  CHECK(cudaFree(x));
  CHECK(cudaFree(out));
}

int main() {
  for (int threads = 32; threads <= 1024; threads *= 2) {
    check("reduce1", threads, 257, 100u + threads, launch1);
    check("reduce2", threads, 257, 200u + threads, launch2);
  }
  std::printf("%d failed\n", failures);
  return failures ? 1 : 0;
}
