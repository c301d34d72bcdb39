// warp-reduce on template kernels: a tree over T, trees from a block size
// that is a template parameter (each instantiation launched with its own,
// and NVIDIA's sample's switch over a run-time thread count), and a float
// sum that keeps its order. Integer totals must equal the CPU's; float
// totals must equal, bit for bit, the CPU's replay of the tree as written.
// Prints one line a case and "N failed"; exit 0 when all hold.
#include <algorithm>
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

template <typename T> __global__ void sum_t(const T *x, T *out) {
  __shared__ T buf[256];
  buf[threadIdx.x] = x[blockIdx.x * 256 + threadIdx.x];
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      buf[threadIdx.x] += buf[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = buf[0];
}

template <unsigned BLOCK>
__global__ void block_sum(const unsigned *x, unsigned *out, int n) {
  __shared__ unsigned buf[BLOCK];
  unsigned sum = 0;
  for (int i = threadIdx.x; i < n; i += BLOCK)
    sum += x[(size_t)blockIdx.x * n + i];
  buf[threadIdx.x] = sum;
  __syncthreads();
  for (unsigned s = BLOCK / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      buf[threadIdx.x] += buf[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = buf[0];
}

template <typename T, int BLOCK>
__global__ void row_sum(const T *x, T *out, int n) {
  __shared__ T sdata[BLOCK];
  T acc = 0;
  for (int i = threadIdx.x; i < n; i += BLOCK)
    acc += x[(size_t)blockIdx.x * n + i];
  sdata[threadIdx.x] = acc;
  __syncthreads();
  for (int s = BLOCK / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      sdata[threadIdx.x] += sdata[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = sdata[0];
}

// NVIDIA's reduction sample: a switch over the run-time thread count
// picks the instantiation; the launch's block is a variable.
template <unsigned blockSize>
__global__ void pick_max(const int *x, int *out, int n) {
  extern __shared__ int smem[];
  unsigned tid = threadIdx.x;
  int m = -2147483647 - 1;
  for (int i = tid; i < n; i += blockSize)
    m = max(m, x[(size_t)blockIdx.x * n + i]);
  smem[tid] = m;
  __syncthreads();
  for (unsigned s = blockSize / 2; s > 0; s >>= 1) {
    if (tid < s)
      smem[tid] = max(smem[tid], smem[tid + s]);
    __syncthreads();
  }
  if (tid == 0)
    out[blockIdx.x] = smem[0];
}

static void launch_max(int threads, int rows, const int *x, int *out, int n) {
  size_t bytes = threads * sizeof(int);
  switch (threads) {
  case 1024:
    pick_max<1024><<<rows, threads, bytes>>>(x, out, n);
    break;
  case 256:
    pick_max<256><<<rows, threads, bytes>>>(x, out, n);
    break;
  case 64:
    pick_max<64><<<rows, threads, bytes>>>(x, out, n);
    break;
  }
}

static int failed = 0;

static void report(const char *name, bool ok) {
  std::printf("%s: %s\n", ok ? "ok" : "FAILED", name);
  failed += !ok;
}

template <typename T> static T *upload(const std::vector<T> &h) {
  T *d;
  CHECK(cudaMalloc(&d, h.size() * sizeof(T)));
  CHECK(cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}

template <typename T> static std::vector<T> download(const T *d, int n) {
  std::vector<T> h(n);
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
  return h;
}

int main() {
  const int rows = 37, n = 3001;
  std::srand(11);
  std::vector<int> hi(rows * n);
  for (int &v : hi)
    v = std::rand() % 2000001 - 1000000;
  std::vector<unsigned> hu(rows * n);
  for (unsigned &v : hu)
    v = (unsigned)std::rand() * 2654435761u;
  std::vector<float> hf(rows * n);
  for (float &v : hf)
    v = (float)((std::rand() % 2 ? -1 : 1) *
                std::ldexp(1.0 + std::rand() / (double)RAND_MAX,
                           std::rand() % 41 - 20));
  int *xi = upload(hi), *oi;
  unsigned *xu = upload(hu), *ou;
  float *xf = upload(hf), *of;
  CHECK(cudaMalloc(&oi, rows * sizeof(int)));
  CHECK(cudaMalloc(&ou, rows * sizeof(unsigned)));
  CHECK(cudaMalloc(&of, rows * sizeof(float)));

  sum_t<int><<<rows, 256>>>(xi, oi);
  std::vector<int> gi = download(oi, rows);
  bool ok = true;
  for (int r = 0; r < rows; ++r) {
    int want = 0;
    for (int t = 0; t < 256; ++t)
      want += hi[r * 256 + t];
    ok &= gi[r] == want;
  }
  report("sum_t<int>", ok);

  for (int b = 0; b < 2; ++b) {
    if (b == 0)
      block_sum<128><<<rows, 128>>>(xu, ou, n);
    else
      block_sum<512><<<rows, 512>>>(xu, ou, n);
    std::vector<unsigned> gu = download(ou, rows);
    ok = true;
    for (int r = 0; r < rows; ++r) {
      unsigned want = 0;
      for (int i = 0; i < n; ++i)
        want += hu[(size_t)r * n + i];
      ok &= gu[r] == want;
    }
    report(b == 0 ? "block_sum<128>" : "block_sum<512>", ok);
  }

  row_sum<float, 256><<<rows, 256>>>(xf, of, n);
  std::vector<float> gf = download(of, rows);
  ok = true;
  for (int r = 0; r < rows; ++r) {
    std::vector<float> a(256, 0.0f);
    for (int t = 0; t < 256; ++t)
      for (int i = t; i < n; i += 256)
        a[t] += hf[(size_t)r * n + i];
    for (int s = 128; s > 0; s >>= 1)
      for (int t = 0; t < s; ++t)
        a[t] += a[t + s];
    ok &= std::memcmp(&a[0], &gf[r], sizeof(float)) == 0;
  }
  report("row_sum<float, 256> (bit for bit)", ok);

  for (int threads : {64, 256, 1024}) {
    launch_max(threads, rows, xi, oi, n);
    std::vector<int> gm = download(oi, rows);
    ok = true;
    for (int r = 0; r < rows; ++r) {
      int want = hi[(size_t)r * n];
      for (int i = 1; i < n; ++i)
        want = std::max(want, hi[(size_t)r * n + i]);
      ok &= gm[r] == want;
    }
    char name[64];
    std::snprintf(name, sizeof name, "pick_max<%d>", threads);
    report(name, ok);
  }
  std::printf("%d failed\n", failed);
  return failed != 0;
}
