// Three-pass softmaxes for online-softmax's GPU test: a block-per-row
// softmax (block-stride loops, shared-memory trees, the row sum and the
// outputs stored), the same over double in a template, a thread-per-row
// one (serial loops, `if (x > m)`, the term through a local) and a
// warp-per-row one (lane loops, shuffles). Each case compares the row sums
// and outputs with a double-precision host reference and prints "ok" or
// "BAD". Data: values of spread 4 around offsets 0 and 80 (exp(80)
// overflows a float: only the subtracted maximum keeps the sums finite),
// and masked rows whose first elements are -inf (a thread whose elements
// are all -inf adds nothing). Outputs are poisoned first.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <vector>

__global__ void block_softmax(const float *__restrict__ x,
                              float *__restrict__ y, float *__restrict__ sums,
                              int n) {
  __shared__ float red[1024];
  const float *in = x + (long long)blockIdx.x * n;
  float *out = y + (long long)blockIdx.x * n;
  float m = -INFINITY;
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    m = fmaxf(m, in[j]);
  red[threadIdx.x] = m;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + s]);
    __syncthreads();
  }
  const float row_max = red[0];
  __syncthreads();
  float sum = 0.0f;
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    sum += expf(in[j] - row_max);
  red[threadIdx.x] = sum;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      red[threadIdx.x] += red[threadIdx.x + s];
    __syncthreads();
  }
  const float row_sum = red[0];
  if (threadIdx.x == 0)
    sums[blockIdx.x] = row_sum;
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    out[j] = expf(in[j] - row_max) / row_sum;
}

template <typename T>
__global__ void block_sum_t(const T *__restrict__ x, T *__restrict__ sums,
                            int n) {
  __shared__ T red[1024];
  const T *in = x + (long long)blockIdx.x * n;
  T m = -1e300;
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    m = fmax(m, in[j]);
  red[threadIdx.x] = m;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      red[threadIdx.x] = fmax(red[threadIdx.x], red[threadIdx.x + s]);
    __syncthreads();
  }
  const T row_max = red[0];
  __syncthreads();
  T sum = 0;
  for (int j = threadIdx.x; j < n; j += blockDim.x) {
    T d = in[j] - row_max;
    sum = sum + exp(d);
  }
  red[threadIdx.x] = sum;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      red[threadIdx.x] += red[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    sums[blockIdx.x] = red[0];
}

__global__ void row_softmax(const float *__restrict__ x, float *__restrict__ y,
                            float *__restrict__ sums, int rows, int c) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows)
    return;
  const float *row = x + (long long)r * c;
  float maxval = -INFINITY;
  for (int j = 0; j < c; j++)
    if (row[j] > maxval)
      maxval = row[j];
  float total = 0.0f;
  for (int j = 0; j < c; j++) {
    float e = expf(row[j] - maxval);
    total += e;
  }
  sums[r] = total;
  for (int j = 0; j < c; j++)
    y[(long long)r * c + j] = expf(row[j] - maxval) / total;
}

__global__ void warp_softmax(const float *__restrict__ x,
                             float *__restrict__ y, float *__restrict__ sums,
                             int rows, int c) {
  int w = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
  if (w >= rows)
    return;
  const float *row = x + (long long)w * c;
  float m = -INFINITY;
  for (int i = lane; i < c; i += 32)
    m = fmaxf(m, row[i]);
  for (int o = 16; o > 0; o >>= 1)
    m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
  float s = 0.0f;
  for (int i = lane; i < c; i += 32)
    s += __expf(row[i] - m);
  for (int o = 16; o > 0; o >>= 1)
    s += __shfl_xor_sync(0xffffffffu, s, o);
  if (lane == 0)
    sums[w] = s;
  for (int i = lane; i < c; i += 32)
    y[(long long)w * c + i] = __expf(row[i] - m) / s;
}

static int Bad = 0;

/// Deterministic data: offset plus a value in [-2, 2]; with Mask, the
/// first third of each row -inf (the whole row where it has one element).
template <typename T>
std::vector<T> data(int rows, int n, double offset, bool Mask) {
  std::vector<T> h((size_t)rows * n);
  unsigned s = 12345u;
  for (size_t i = 0; i < h.size(); ++i) {
    s = s * 1664525u + 1013904223u;
    h[i] = (T)(offset + ((int)((s >> 8) % 20001) - 10000) / 5000.0);
    if (Mask && (int)(i % n) < (n + 2) / 3 && n > 1)
      h[i] = -INFINITY;
  }
  return h;
}

/// The reference sum of exp(x - max) of each row.
template <typename T>
std::vector<double> refSums(const std::vector<T> &h, int rows, int n,
                            std::vector<double> &maxes) {
  std::vector<double> out(rows);
  maxes.assign(rows, -INFINITY);
  for (int r = 0; r < rows; ++r) {
    for (int i = 0; i < n; ++i)
      maxes[r] = std::fmax(maxes[r], (double)h[(size_t)r * n + i]);
    double s = 0;
    for (int i = 0; i < n; ++i)
      s += std::exp((double)h[(size_t)r * n + i] - maxes[r]);
    out[r] = s;
  }
  return out;
}

void report(const char *what, int rows, int n, int threads, double offset,
            bool Mask, double sumErr, double outErr, double tol) {
  bool Ok = sumErr <= tol && outErr <= tol;
  Bad += !Ok;
  std::printf("%s rows=%d n=%d threads=%d offset=%g mask=%d %s", what, rows, n,
              threads, offset, Mask, Ok ? "ok\n" : "BAD");
  if (!Ok)
    std::printf(" sum %.3g out %.3g\n", sumErr, outErr);
}

/// Relative error of a float result against a double reference (NaN: 1).
double rel(double got, double want) {
  if (std::isnan(got))
    return 1;
  return std::fabs(got - want) / std::fmax(std::fabs(want), 1e-30);
}

enum Kind { Block, Row, Warp };

void run(Kind K, int rows, int n, int threads, double offset, bool Mask) {
  size_t count = (size_t)rows * n;
  std::vector<float> h = data<float>(rows, n, offset, Mask);
  std::vector<double> maxes;
  std::vector<double> want = refSums(h, rows, n, maxes);
  float *x, *y, *sums;
  cudaMalloc(&x, count * 4 + 4);
  cudaMalloc(&y, count * 4 + 4);
  cudaMalloc(&sums, rows * 4);
  cudaMemcpy(x, h.data(), count * 4, cudaMemcpyHostToDevice);
  cudaMemset(y, 0xff, count * 4 + 4);
  cudaMemset(sums, 0xff, rows * 4);
  if (K == Block)
    block_softmax<<<rows, threads>>>(x, y, sums, n);
  else if (K == Row)
    row_softmax<<<(rows + 127) / 128, 128>>>(x, y, sums, rows, n);
  else
    warp_softmax<<<(rows + 3) / 4, 128>>>(x, y, sums, rows, n);
  std::vector<float> hy(count), hs(rows);
  cudaMemcpy(hy.data(), y, count * 4, cudaMemcpyDeviceToHost);
  cudaMemcpy(hs.data(), sums, rows * 4, cudaMemcpyDeviceToHost);
  double sumErr = 0, outErr = 0;
  for (int r = 0; r < rows; ++r) {
    sumErr = std::fmax(sumErr, rel(hs[r], want[r]));
    for (int i = 0; i < n; ++i) {
      double w = std::exp((double)h[(size_t)r * n + i] - maxes[r]) / want[r];
      outErr = std::fmax(outErr, w < 1e-30 ? (hy[(size_t)r * n + i] != 0)
                                           : rel(hy[(size_t)r * n + i], w));
    }
  }
  // Float sums of n terms in any order, expf's few ulps (__expf's more).
  double tol = 2e-6 * (4 + std::sqrt((double)n)) * (K == Warp ? 4 : 1);
  const char *Names[] = {"block_softmax", "row_softmax", "warp_softmax"};
  report(Names[K], rows, n, K == Block ? threads : K == Row ? 1 : 32, offset,
         Mask, sumErr, outErr, tol);
  cudaFree(x);
  cudaFree(y);
  cudaFree(sums);
}

void runDouble(int rows, int n, int threads, double offset) {
  std::vector<double> h = data<double>(rows, n, offset, false);
  std::vector<double> maxes;
  std::vector<double> want = refSums(h, rows, n, maxes);
  double *x, *sums;
  cudaMalloc(&x, h.size() * 8 + 8);
  cudaMalloc(&sums, rows * 8);
  cudaMemcpy(x, h.data(), h.size() * 8, cudaMemcpyHostToDevice);
  cudaMemset(sums, 0xff, rows * 8);
  block_sum_t<double><<<rows, threads>>>(x, sums, n);
  std::vector<double> hs(rows);
  cudaMemcpy(hs.data(), sums, rows * 8, cudaMemcpyDeviceToHost);
  double sumErr = 0;
  for (int r = 0; r < rows; ++r)
    sumErr = std::fmax(sumErr, rel(hs[r], want[r]));
  report("block_sum_t<double>", rows, n, threads, offset, false, sumErr, 0,
         1e-12);
  cudaFree(x);
  cudaFree(sums);
}

int main() {
  for (double offset : {0.0, 80.0})
    for (bool Mask : {false, true}) {
      for (int rows : {1, 3})
        for (int n : {1, 7, 33, 1000, 100003})
          for (int threads : {32, 256, 1024})
            run(Block, rows, n, threads, offset, Mask);
      for (int rows : {1, 7, 300})
        for (int n : {1, 5, 768, 3000}) {
          run(Row, rows, n, 1, offset, Mask);
          run(Warp, rows, n, 32, offset, Mask);
        }
    }
  for (int n : {1, 33, 4097, 100003})
    runDouble(5, n, 256, 3.0);
  if (cudaError_t E = cudaDeviceSynchronize(); E != cudaSuccess) {
    std::printf("CUDA error: %s\n", cudaGetErrorString(E));
    return 1;
  }
  std::printf("%d bad\n", Bad);
  return 0;
}
