// Two-pass variances for one-pass-variance's GPU test: a block-per-group
// layer norm (block-stride loops, a shared-memory tree, the variance and
// the normalized group stored), the same over double in a template, a
// thread-per-row norm (serial loops, an fmaf update) and a warp-per-row
// norm (lane loops, a pragma). Each case compares
// the variances and outputs with a double-precision host reference and
// prints "ok" or "BAD" with the errors; the data have a mean of 0 and of
// 1000 (a variance of about 1 under a mean of 1000 is what a sum of
// squares minus the squared sum would lose). Outputs are poisoned first.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>
#include <vector>

__global__ void block_norm(const float *__restrict__ x, float *__restrict__ y,
                           float *__restrict__ var, int n) {
  __shared__ float buf[1024];
  const float *in = x + (long long)blockIdx.x * n;
  float *out = y + (long long)blockIdx.x * n;
  float s = 0.0f;
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    s += in[i];
  buf[threadIdx.x] = s;
  __syncthreads();
  for (int st = blockDim.x / 2; st > 0; st /= 2) {
    if (threadIdx.x < st)
      buf[threadIdx.x] += buf[threadIdx.x + st];
    __syncthreads();
  }
  const float mean = buf[0] / n;
  __syncthreads();
  float v = 0.0f;
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    float d = in[i] - mean;
    v += d * d;
  }
  buf[threadIdx.x] = v;
  __syncthreads();
  for (int st = blockDim.x / 2; st > 0; st /= 2) {
    if (threadIdx.x < st)
      buf[threadIdx.x] += buf[threadIdx.x + st];
    __syncthreads();
  }
  const float variance = buf[0] / n;
  if (threadIdx.x == 0)
    var[blockIdx.x] = variance;
  const float rstd = rsqrtf(variance + 1e-5f);
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    out[i] = (in[i] - mean) * rstd;
}

template <typename T>
__global__ void block_var_t(const T *__restrict__ x, T *__restrict__ var,
                            int n) {
  __shared__ T buf[1024];
  const T *in = x + (long long)blockIdx.x * n;
  T s = 0;
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    s += in[i];
  buf[threadIdx.x] = s;
  __syncthreads();
  for (int st = blockDim.x / 2; st > 0; st /= 2) {
    if (threadIdx.x < st)
      buf[threadIdx.x] += buf[threadIdx.x + st];
    __syncthreads();
  }
  const T mean = buf[0] / n;
  __syncthreads();
  T v = 0;
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    v += (in[i] - mean) * (in[i] - mean);
  buf[threadIdx.x] = v;
  __syncthreads();
  for (int st = blockDim.x / 2; st > 0; st /= 2) {
    if (threadIdx.x < st)
      buf[threadIdx.x] += buf[threadIdx.x + st];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    var[blockIdx.x] = buf[0] / n;
}

__global__ void row_norm(const float *__restrict__ x, float *__restrict__ y,
                         float *__restrict__ var, int rows, int c) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows)
    return;
  const float *row = x + (long long)r * c;
  float m = 0.0f;
  for (int i = 0; i < c; i++)
    m += row[i];
  m = m / c;
  float v = 0.0f;
  for (int i = 0; i < c; i++) {
    float xshift = row[i] - m;
    v = fmaf(xshift, xshift, v);
  }
  v = v / c;
  var[r] = v;
  float s = 1.0f / sqrtf(v + 1e-5f);
  for (int i = 0; i < c; i++)
    y[(long long)r * c + i] = s * (row[i] - m);
}

// A warp a row: lane loops, the first under a pragma.
__global__ void warp_norm(const float *__restrict__ x, float *__restrict__ y,
                          float *__restrict__ var, int rows, int c) {
  int w = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
  if (w >= rows)
    return;
  const float *row = x + (long long)w * c;
  float sum = 0.0f;
#pragma unroll 4
  for (int i = lane; i < c; i += 32)
    sum += row[i];
  for (int o = 16; o > 0; o >>= 1)
    sum += __shfl_xor_sync(0xffffffffu, sum, o);
  const float m = sum / c;
  float v = 0.0f;
  for (int i = lane; i < c; i += 32) {
    float d = row[i] - m;
    v += d * d;
  }
  for (int o = 16; o > 0; o >>= 1)
    v += __shfl_xor_sync(0xffffffffu, v, o);
  if (lane == 0)
    var[w] = v / c;
  const float s = rsqrtf(v / c + 1e-5f);
  for (int i = lane; i < c; i += 32)
    y[(long long)w * c + i] = s * (row[i] - m);
}

static int Bad = 0;
/// The largest errors per kernel and offset, printed to stderr at the end
/// (the tolerances' margins; stdout is compared between builds).
static double Worst[4][2][2];

/// Deterministic data: offset plus a value in [-1.7, 1.7].
template <typename T> std::vector<T> data(size_t count, double offset) {
  std::vector<T> h(count);
  unsigned s = 12345u;
  for (size_t i = 0; i < count; ++i) {
    s = s * 1664525u + 1013904223u;
    h[i] = (T)(offset + ((int)((s >> 8) % 20001) - 10000) / 5773.0);
  }
  return h;
}

/// Reference mean and variance of each of `groups` groups of n.
template <typename T>
void reference(const std::vector<T> &h, int groups, int n,
               std::vector<double> &mean, std::vector<double> &var) {
  mean.assign(groups, 0.0);
  var.assign(groups, 0.0);
  for (int g = 0; g < groups; ++g) {
    double s = 0;
    for (int i = 0; i < n; ++i)
      s += h[(size_t)g * n + i];
    mean[g] = s / n;
    double v = 0;
    for (int i = 0; i < n; ++i) {
      double d = h[(size_t)g * n + i] - mean[g];
      v += d * d;
    }
    var[g] = v / n;
  }
}

void report(const char *what, int groups, int n, int threads, double offset,
            double varErr, double outErr, double varTol, double outTol) {
  bool Ok = varErr <= varTol && outErr <= outTol;
  int K = what[0] == 'w'           ? 3
          : what[0] == 'r'         ? 2
          : std::strchr(what, '<') ? 1
                                   : 0;
  double *W = Worst[K][offset != 0];
  W[0] = std::fmax(W[0], varErr);
  W[1] = std::fmax(W[1], outErr);
  Bad += !Ok;
  std::printf("%s groups=%d n=%d threads=%d offset=%g %s", what, groups, n,
              threads, offset, Ok ? "ok\n" : "BAD");
  if (!Ok)
    std::printf(" var %.3g out %.3g\n", varErr, outErr);
}

void runBlock(int groups, int n, int threads, double offset) {
  size_t count = (size_t)groups * n;
  std::vector<float> h = data<float>(count, offset);
  std::vector<double> mean, var;
  reference(h, groups, n, mean, var);
  float *x, *y, *v;
  cudaMalloc(&x, count * 4 + 4);
  cudaMalloc(&y, count * 4 + 4);
  cudaMalloc(&v, groups * 4);
  cudaMemcpy(x, h.data(), count * 4, cudaMemcpyHostToDevice);
  cudaMemset(y, 0xff, count * 4 + 4);
  cudaMemset(v, 0xff, groups * 4);
  block_norm<<<groups, threads>>>(x, y, v, n);
  std::vector<float> hy(count), hv(groups);
  cudaMemcpy(hy.data(), y, count * 4, cudaMemcpyDeviceToHost);
  cudaMemcpy(hv.data(), v, groups * 4, cudaMemcpyDeviceToHost);
  double varErr = 0, outErr = 0;
  for (int g = 0; g < groups && n > 0; ++g) {
    varErr = std::fmax(varErr, std::fabs(hv[g] - var[g]) / var[g]);
    double rstd = 1 / std::sqrt(var[g] + 1e-5);
    for (int i = 0; i < n; ++i) {
      double want = (h[(size_t)g * n + i] - mean[g]) * rstd;
      double got = hy[(size_t)g * n + i];
      outErr =
          std::fmax(outErr, std::isnan(got) ? 1e30 : std::fabs(got - want));
    }
  }
  if (n == 0) // 0 / 0: the variance is NaN, as the original's
    varErr = std::isnan(hv[0]) ? 0 : 1;
  double scale = 1 + offset / 100;
  report("block_norm", groups, n, threads, offset, varErr, outErr, 1e-4 * scale,
         1e-4 * scale);
  cudaFree(x);
  cudaFree(y);
  cudaFree(v);
}

void runDouble(int groups, int n, int threads, double offset) {
  size_t count = (size_t)groups * n;
  std::vector<double> h = data<double>(count, offset);
  std::vector<double> mean, var;
  reference(h, groups, n, mean, var);
  double *x, *v;
  cudaMalloc(&x, count * 8 + 8);
  cudaMalloc(&v, groups * 8);
  cudaMemcpy(x, h.data(), count * 8, cudaMemcpyHostToDevice);
  cudaMemset(v, 0xff, groups * 8);
  block_var_t<double><<<groups, threads>>>(x, v, n);
  std::vector<double> hv(groups);
  cudaMemcpy(hv.data(), v, groups * 8, cudaMemcpyDeviceToHost);
  double varErr = 0;
  for (int g = 0; g < groups; ++g)
    varErr = std::fmax(varErr, std::fabs(hv[g] - var[g]) / var[g]);
  report("block_var_t<double>", groups, n, threads, offset, varErr, 0, 1e-12,
         0);
  cudaFree(x);
  cudaFree(v);
}

void runRows(int rows, int c, double offset, bool Warps) {
  size_t count = (size_t)rows * c;
  std::vector<float> h = data<float>(count, offset);
  std::vector<double> mean, var;
  reference(h, rows, c, mean, var);
  float *x, *y, *v;
  cudaMalloc(&x, count * 4 + 4);
  cudaMalloc(&y, count * 4 + 4);
  cudaMalloc(&v, rows * 4);
  cudaMemcpy(x, h.data(), count * 4, cudaMemcpyHostToDevice);
  cudaMemset(y, 0xff, count * 4 + 4);
  cudaMemset(v, 0xff, rows * 4);
  if (Warps)
    warp_norm<<<(rows + 3) / 4, 128>>>(x, y, v, rows, c);
  else
    row_norm<<<(rows + 127) / 128, 128>>>(x, y, v, rows, c);
  std::vector<float> hy(count), hv(rows);
  cudaMemcpy(hy.data(), y, count * 4, cudaMemcpyDeviceToHost);
  cudaMemcpy(hv.data(), v, rows * 4, cudaMemcpyDeviceToHost);
  double varErr = 0, outErr = 0;
  for (int r = 0; r < rows; ++r) {
    varErr = std::fmax(varErr, std::fabs(hv[r] - var[r]) / var[r]);
    double s = 1 / std::sqrt(var[r] + 1e-5);
    for (int i = 0; i < c; ++i) {
      double got = hy[(size_t)r * c + i];
      double want = s * (h[(size_t)r * c + i] - mean[r]);
      outErr =
          std::fmax(outErr, std::isnan(got) ? 1e30 : std::fabs(got - want));
    }
  }
  // Serial float sums of c elements: c ulps of the mean's size at worst.
  double scale = (1 + offset / 100) * (1 + c / 1000.0);
  report(Warps ? "warp_norm" : "row_norm", rows, c, Warps ? 32 : 1, offset,
         varErr, outErr, 1e-4 * scale, 1e-4 * scale);
  cudaFree(x);
  cudaFree(y);
  cudaFree(v);
}

int main() {
  for (double offset : {0.0, 1000.0}) {
    for (int groups : {1, 3, 16})
      for (int n : {1, 31, 33, 257, 4097, 100003})
        for (int threads : {32, 128, 1024})
          runBlock(groups, n, threads, offset);
    runBlock(2, 0, 128, offset);
    for (int n : {1, 33, 4097, 100003})
      runDouble(5, n, 256, offset);
    for (int rows : {1, 7, 1000})
      for (int c : {1, 5, 768, 3000})
        for (bool Warps : {false, true})
          runRows(rows, c, offset, Warps);
  }
  if (cudaError_t E = cudaDeviceSynchronize(); E != cudaSuccess) {
    std::printf("CUDA error: %s\n", cudaGetErrorString(E));
    return 1;
  }
  const char *Names[] = {"block_norm", "block_var_t<double>", "row_norm",
                         "warp_norm"};
  for (int K = 0; K < 4; ++K)
    for (int O = 0; O < 2; ++O)
      std::fprintf(stderr, "%s offset=%d: worst var %.3g out %.3g\n", Names[K],
                   O ? 1000 : 0, Worst[K][O][0], Worst[K][O][1]);
  std::printf("%d bad\n", Bad);
  return 0;
}
