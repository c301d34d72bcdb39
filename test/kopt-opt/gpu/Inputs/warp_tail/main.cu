// warp-reduce's in-order tail on the GPU: floating-point sums in
// shared-memory trees, a float tree in a kernel launched with every power
// of two from 32 to 1024 threads, a double tree in a helper that two
// kernels call, and a float tree whose loop stops above 32 and ends in
// NVIDIA's warp-synchronous helper (reduction #5), 64 to 1024 threads. Each row's total must equal, bit for bit, the CPU's replay
// of the tree (the same pairs added in the same order). The values span
// many binades, so a sum in another order rounds differently. Exit 0 when
// all hold, 1 when a total differs.
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

__global__ void tree_f32(const float *x, float *out) {
  __shared__ float partial[1024];
  const int row = blockIdx.x;
  partial[threadIdx.x] = x[row * blockDim.x + threadIdx.x];
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[row] = partial[0];
}

__device__ double block_sum(double v, double *buf) {
  buf[threadIdx.x] = v;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      buf[threadIdx.x] = buf[threadIdx.x + s] + buf[threadIdx.x];
    __syncthreads();
  }
  double total = buf[0];
  __syncthreads();
  return total;
}

__global__ void tree_f64_64(const double *x, double *out) {
  __shared__ double partial[64];
  double t = block_sum(x[blockIdx.x * 64 + threadIdx.x], partial);
  if (threadIdx.x == 0)
    out[blockIdx.x] = t;
}

__global__ void tree_f64_512(const double *x, double *out) {
  __shared__ double partial[512];
  double t = block_sum(x[blockIdx.x * 512 + threadIdx.x], partial);
  if (threadIdx.x == 0)
    out[blockIdx.x] = t;
}

__device__ void warpReduce(volatile float *sdata, unsigned int tid) {
  sdata[tid] += sdata[tid + 32];
  sdata[tid] += sdata[tid + 16];
  sdata[tid] += sdata[tid + 8];
  sdata[tid] += sdata[tid + 4];
  sdata[tid] += sdata[tid + 2];
  sdata[tid] += sdata[tid + 1];
}

__global__ void tree5_f32(const float *x, float *out) {
  __shared__ float sdata[1024];
  unsigned int tid = threadIdx.x;
  sdata[tid] = x[blockIdx.x * blockDim.x + tid];
  __syncthreads();
  for (unsigned int s = blockDim.x / 2; s > 32; s >>= 1) {
    if (tid < s)
      sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid < 32)
    warpReduce(sdata, tid);
  if (tid == 0)
    out[blockIdx.x] = sdata[0];
}

static void launch_tree5(const float *x, float *out, int rows, int threads) {
  switch (threads) {
  case 64: tree5_f32<<<rows, 64>>>(x, out); break;
  case 128: tree5_f32<<<rows, 128>>>(x, out); break;
  case 256: tree5_f32<<<rows, 256>>>(x, out); break;
  case 512: tree5_f32<<<rows, 512>>>(x, out); break;
  default: tree5_f32<<<rows, 1024>>>(x, out); break;
  }
}

static void launch_f32(const float *x, float *out, int rows, int threads) {
  switch (threads) {
  case 32: tree_f32<<<rows, 32>>>(x, out); break;
  case 64: tree_f32<<<rows, 64>>>(x, out); break;
  case 128: tree_f32<<<rows, 128>>>(x, out); break;
  case 256: tree_f32<<<rows, 256>>>(x, out); break;
  case 512: tree_f32<<<rows, 512>>>(x, out); break;
  default: tree_f32<<<rows, 1024>>>(x, out); break;
  }
}

static void launch_f64(const double *x, double *out, int rows, int threads) {
  if (threads == 64)
    tree_f64_64<<<rows, 64>>>(x, out);
  else
    tree_f64_512<<<rows, 512>>>(x, out);
}

static int failures = 0;

// Values of many magnitudes and both signs: sums in another order round
// differently.
template <typename T> static std::vector<T> values(int n, unsigned seed) {
  std::vector<T> v(n);
  std::srand(seed);
  for (int i = 0; i < n; ++i) {
    double m = 1.0 + std::rand() / (double)RAND_MAX;
    int e = std::rand() % 41 - 20;
    v[i] = (T)((std::rand() % 2 ? -1 : 1) * std::ldexp(m, e));
  }
  return v;
}

// The tree as written, replayed in order (x86-64 SSE rounds each add to T).
template <typename T> static T replay(const T *row, int threads) {
  std::vector<T> a(row, row + threads);
  for (int s = threads / 2; s > 0; s >>= 1)
    for (int t = 0; t < s; ++t)
      a[t] = a[t] + a[t + s];
  return a[0];
}

template <typename T>
static void check(const char *what, int threads, int rows, unsigned seed,
                  void (*launch)(const T *, T *, int, int)) {
  std::vector<T> h = values<T>(rows * threads, seed);
  T *x, *out;
  CHECK(cudaMalloc(&x, h.size() * sizeof(T)));
  CHECK(cudaMalloc(&out, rows * sizeof(T)));
  CHECK(cudaMemcpy(x, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
  launch(x, out, rows, threads);
  CHECK(cudaGetLastError());
  std::vector<T> got(rows);
  CHECK(cudaMemcpy(got.data(), out, rows * sizeof(T), cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int r = 0; r < rows; ++r) {
    T want = replay(h.data() + r * threads, threads);
    bad += std::memcmp(&want, &got[r], sizeof(T)) != 0;
  }
  std::printf("%s: %s, %d threads (%d of %d rows differ)\n",
              bad ? "FAILED" : "ok", what, threads, bad, rows);
  failures += bad != 0;
  CHECK(cudaFree(x));
  CHECK(cudaFree(out));
}

int main() {
  for (int threads = 32; threads <= 1024; threads *= 2)
    check<float>("float tree", threads, 257, 1000u + threads, launch_f32);
  for (int threads = 64; threads <= 1024; threads *= 2)
    check<float>("float tree, warp tail", threads, 257, 2000u + threads,
                 launch_tree5);
  check<double>("double helper", 64, 129, 7u, launch_f64);
  check<double>("double helper", 512, 129, 8u, launch_f64);
  std::printf("%d failed\n", failures);
  return failures ? 1 : 0;
}
