// Thread-per-row reductions for row-reduce's GPU test of split reductions.
// Exact reductions (integer sums, fmaxf/fminf over rows holding +0, -0 and
// NaN) print a hash of their outputs, which must be the same bits in every
// build; floating-point sums print whether they lie within a tolerance of a
// double-precision reference (the rewritten builds add in another order).
// A last case indexes past 2^31 through a 64-bit row offset with sums of
// small integers, which are exact in any order, and prints their hash.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#define CHECK(x)                                                               \
  do {                                                                         \
    cudaError_t e = (x);                                                       \
    if (e != cudaSuccess) {                                                    \
      printf("CUDA error %s at %d\n", cudaGetErrorString(e), __LINE__);        \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

// A dot product a row, fp16 in, f32 accumulation, 64-bit row offsets.
__global__ void dot_rows(const __half *__restrict__ A,
                         const __half *__restrict__ x, float *__restrict__ y,
                         int m, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < m) {
    float acc = 0.0f;
    for (int k = 0; k < n; k++)
      acc += __half2float(A[(long long)row * n + k]) * __half2float(x[k]);
    y[row] = acc;
  }
}

// Exact reductions in one loop: a count, a 64-bit integer sum written with
// -=, a maximum and a minimum.
__global__ void stats_rows(const float *__restrict__ v, int *__restrict__ cnt,
                           long long *__restrict__ isum,
                           float *__restrict__ hi, float *__restrict__ lo,
                           int m, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= m)
    return;
  int c = 0;
  long long s = 1000;
  float top = -INFINITY, bottom = INFINITY;
  for (int j = 0; j < n; ++j) {
    float e = v[row * n + j];
    if (e > 0.0f)
      c++;
    s -= (long long)(e * 8.0f);
    top = fmaxf(top, e);
    bottom = fminf(e, bottom);
  }
  cnt[row] = c;
  isum[row] = s;
  hi[row] = top;
  lo[row] = bottom;
}

// Integer selections, written as real code writes a maximum and a minimum
// (exact: the same bits in any order).
__global__ void iselect_rows(const int *__restrict__ iv, int *__restrict__ hi,
                             int *__restrict__ lo, int m, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= m)
    return;
  int big = -2147483647 - 1, small = 2147483647;
  for (int j = 0; j < n; ++j) {
    if (iv[(long long)row * n + j] > big)
      big = iv[(long long)row * n + j];
    small = iv[(long long)row * n + j] <= small ? iv[(long long)row * n + j]
                                                 : small;
  }
  hi[row] = big;
  lo[row] = small;
}

// A floating-point selection (NaNs never taken) and a dot product through
// fmaf: split with reassociate=true.
__global__ void fselect_rows(const float *__restrict__ v,
                             const float *__restrict__ w,
                             float *__restrict__ top, float *__restrict__ dot,
                             int m, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < m) {
    float best = -INFINITY, d = 0.0f;
    for (int j = 0; j < n; ++j) {
      const float e = v[row * n + j];
      if (best < e) {
        best = e;
      }
      d = fmaf(w[row * n + j], w[row * n + j], d);
    }
    top[row] = best;
    dot[row] = d;
  }
}

// The square through a helper kopt proves pure (one `return` of its value
// parameter): its calls run in each of a row's threads like sqrtf.
__device__ float squared(float v) { return v * v; }

// Layer norm a row: two floating-point sums, then a split output loop.
__global__ void norm_rows(const float *__restrict__ x, float *__restrict__ out,
                          int m, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < m) {
    const float *in = x + row * n;
    float mean = 0.0f;
    for (int j = 0; j < n; j++)
      mean += in[j];
    mean /= n;
    float var = 0.0f;
    for (int j = 0; j < n; j++)
      var += squared(in[j] - mean);
    float r = 1.0f / sqrtf(var / n + 1e-5f);
    for (int j = 0; j < n; j++)
      out[row * n + j] = (in[j] - mean) * r;
  }
}

template <typename T> static uint64_t hash(const std::vector<T> &v) {
  uint64_t h = 1469598103934665603ull;
  const unsigned char *p = reinterpret_cast<const unsigned char *>(v.data());
  for (size_t i = 0; i < v.size() * sizeof(T); ++i)
    h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

template <typename T> static T *upload(const std::vector<T> &h) {
  T *d;
  CHECK(cudaMalloc(&d, h.size() * sizeof(T) + 1));
  CHECK(cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}

template <typename T> static std::vector<T> download(const T *d, size_t n) {
  std::vector<T> h(n);
  CHECK(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
  return h;
}

static bool close(double got, double want, double tol) {
  return std::fabs(got - want) <= tol * (1.0 + std::fabs(want));
}

static void runCase(int m, int n, int block) {
  srand(m * 7919 + n * 31 + block);
  size_t count = size_t(m) * n;
  std::vector<__half> hA(count), hx(n);
  std::vector<float> hv(count);
  for (size_t i = 0; i < count; ++i) {
    hA[i] = __float2half(float(rand()) / RAND_MAX * 2.0f - 1.0f);
    int r = rand() % 16;
    hv[i] = r == 0 ? 0.0f : r == 1 ? -0.0f : r == 2 && i % 5 == 0 ? NAN
                               : float(rand()) / RAND_MAX * 4.0f - 2.0f;
  }
  for (int k = 0; k < n; ++k)
    hx[k] = __float2half(float(rand()) / RAND_MAX * 2.0f - 1.0f);
  std::vector<float> hn(hv);
  for (float &f : hn)
    if (std::isnan(f))
      f = 1.5f;
  std::vector<int> hi32(count);
  for (size_t i = 0; i < count; ++i)
    hi32[i] = rand() % 2001 - 1000;
  __half *A = upload(hA), *x = upload(hx);
  float *v = upload(hv), *xn = upload(hn);
  int *iv = upload(hi32), *ihi, *ilo;
  float *ftop, *fdot;
  CHECK(cudaMalloc(&ihi, m * 4));
  CHECK(cudaMalloc(&ilo, m * 4));
  CHECK(cudaMalloc(&ftop, m * 4));
  CHECK(cudaMalloc(&fdot, m * 4));
  float *y, *hi, *lo, *out;
  int *cnt;
  long long *isum;
  CHECK(cudaMalloc(&y, m * 4));
  CHECK(cudaMalloc(&hi, m * 4));
  CHECK(cudaMalloc(&lo, m * 4));
  CHECK(cudaMalloc(&cnt, m * 4));
  CHECK(cudaMalloc(&isum, m * 8));
  CHECK(cudaMalloc(&out, count * 4 + 4));
  CHECK(cudaMemset(y, 0xff, m * 4));
  CHECK(cudaMemset(out, 0xff, count * 4));
  CHECK(cudaMemset(hi, 0xff, m * 4));
  int grid = (m + block - 1) / block;
  dot_rows<<<grid, block>>>(A, x, y, m, n);
  stats_rows<<<grid, block>>>(v, cnt, isum, hi, lo, m, n);
  norm_rows<<<grid, block>>>(xn, out, m, n);
  iselect_rows<<<grid, block>>>(iv, ihi, ilo, m, n);
  fselect_rows<<<grid, block>>>(v, xn, ftop, fdot, m, n);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<float> gy = download(y, m), gout = download(out, count);
  std::vector<float> gtop = download(ftop, m), gdot = download(fdot, m);
  bool dotOk = true, normOk = true, selOk = true;
  for (int r = 0; r < m; ++r) {
    // The selection's value (-0.0 == +0.0: which one is the order's).
    float best = -INFINITY;
    double d = 0;
    for (int k = 0; k < n; ++k) {
      float e = hv[size_t(r) * n + k];
      best = best < e ? e : best;
      d += double(hn[size_t(r) * n + k]) * hn[size_t(r) * n + k];
    }
    selOk &= gtop[r] == best && close(gdot[r], d, 1e-5 * std::sqrt(double(n)));
    double want = 0, mean = 0, var = 0;
    for (int k = 0; k < n; ++k)
      want += double(__half2float(hA[size_t(r) * n + k])) *
              __half2float(hx[k]);
    dotOk &= close(gy[r], want, 1e-4 * std::sqrt(double(n)));
    for (int k = 0; k < n; ++k)
      mean += hn[size_t(r) * n + k];
    mean /= n;
    for (int k = 0; k < n; ++k)
      var += (hn[size_t(r) * n + k] - mean) * (hn[size_t(r) * n + k] - mean);
    double rs = 1.0 / std::sqrt(var / n + 1e-5);
    for (int k = 0; k < n; ++k)
      normOk &= close(gout[size_t(r) * n + k],
                      (hn[size_t(r) * n + k] - mean) * rs, 1e-4);
  }
  printf("m %d n %d block %d: dot %s norm %s select %s counts %016llx "
         "sums %016llx max %016llx min %016llx imax %016llx imin %016llx\n",
         m, n, block, dotOk ? "ok" : "WRONG", normOk ? "ok" : "WRONG",
         selOk ? "ok" : "WRONG", (unsigned long long)hash(download(cnt, m)),
         (unsigned long long)hash(download(isum, m)),
         (unsigned long long)hash(download(hi, m)),
         (unsigned long long)hash(download(lo, m)),
         (unsigned long long)hash(download(ihi, m)),
         (unsigned long long)hash(download(ilo, m)));
  for (void *p : {(void *)A, (void *)x, (void *)v, (void *)xn, (void *)y,
                  (void *)hi, (void *)lo, (void *)cnt, (void *)isum,
                  (void *)out, (void *)iv, (void *)ihi, (void *)ilo,
                  (void *)ftop, (void *)fdot})
    CHECK(cudaFree(p));
}

// Rows past 2^31 elements from the start: -1, 0 and 1 in fp16 (mean 0)
// and a vector of ones, so every partial sum, in any order, is an integer
// far below 2^24: exact in f32.
__global__ void fill(__half *A, long long count) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
       i < count; i += (long long)gridDim.x * blockDim.x) {
    unsigned long long h = (unsigned long long)i * 0x9E3779B97F4A7C15ull;
    int v = int(h >> 62); // 0, 1, 2, 3
    A[i] = __int2half_rn(v == 0 ? -1 : v == 3 ? 1 : 0);
  }
}

static void runWide(int m, int n, int block) {
  long long count = (long long)m * n;
  __half *A, *x;
  float *y;
  CHECK(cudaMalloc(&A, count * 2));
  CHECK(cudaMalloc(&x, size_t(n) * 2));
  CHECK(cudaMalloc(&y, m * 4));
  fill<<<4096, 256>>>(A, count);
  std::vector<__half> ones(n, __float2half(1.0f));
  CHECK(cudaMemcpy(x, ones.data(), size_t(n) * 2, cudaMemcpyHostToDevice));
  CHECK(cudaMemset(y, 0xff, m * 4));
  dot_rows<<<(m + block - 1) / block, block>>>(A, x, y, m, n);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  printf("wide m %d n %d block %d: dot %016llx\n", m, n, block,
         (unsigned long long)hash(download(y, m)));
  CHECK(cudaFree(A));
  CHECK(cudaFree(x));
  CHECK(cudaFree(y));
}

int main() {
  const int shapes[][2] = {{1, 1}, {1, 7}, {5, 1}, {37, 1001}, {300, 33},
                           {1000, 2049}};
  const int blocks[] = {32, 48, 96, 256, 1024};
  for (auto &s : shapes)
    for (int b : blocks)
      runCase(s[0], s[1], b);
  runWide(5, 600000000, 256);
  return 0;
}
