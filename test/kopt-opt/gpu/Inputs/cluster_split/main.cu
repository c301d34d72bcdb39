// Block-per-group reductions for cluster-split's GPU test: a maximum
// (exact), an integer count with a float sum (the count exact, the sum
// within a tolerance) over a 64-bit range, a two-pass layer norm, a
// one-pass norm reduced with warp shuffles that reads shared scalars in its
// last loop, and a maximum kept by comparison (`if (e > m) m = e`). Each
// case prints the exact results' bits and, for the float results, whether
// they are within 1e-4 (relative) of a double-precision host reference, so
// the original's and the rewrite's outputs are compared with diff.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>
#include <vector>

__global__ void group_max(const float *x, float *y, int n) {
  __shared__ float red[1024];
  const float *row = x + (long long)blockIdx.x * n;
  float m = 0.0f;
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    m = fmaxf(m, fabsf(row[i]));
  red[threadIdx.x] = m;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + s]);
    __syncthreads();
  }
  const float scale = red[0] > 0.0f ? 1.0f / red[0] : 0.0f;
  float *out = y + (long long)blockIdx.x * n;
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    out[i] = row[i] * scale;
}

__global__ void count_and_sum(const float *x, float *sums, int *counts,
                              long long n, float cut) {
  __shared__ int cnt[1024];
  __shared__ float acc[1024];
  const long long base = blockIdx.x * n;
  int c = 0;
  float s = 0.0f;
  for (long long i = threadIdx.x; i < n; i += blockDim.x) {
    const float v = x[base + i];
    if (v > cut)
      ++c;
    s += v;
  }
  cnt[threadIdx.x] = c;
  __syncthreads();
  for (unsigned k = blockDim.x / 2; k > 0; k >>= 1) {
    if (threadIdx.x < k)
      cnt[threadIdx.x] += cnt[threadIdx.x + k];
    __syncthreads();
  }
  acc[threadIdx.x] = s;
  __syncthreads();
  for (unsigned k = blockDim.x / 2; k > 0; k >>= 1) {
    if (threadIdx.x < k)
      acc[threadIdx.x] += acc[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    counts[blockIdx.x] = cnt[0];
    sums[blockIdx.x] = acc[0];
  }
}

__global__ void layernorm(const float *x, float *y, int n, float eps) {
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
  const float rstd = rsqrtf(buf[0] / n + eps);
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    out[i] = (in[i] - mean) * rstd;
}

__device__ float warp_sum(float v) {
  for (int o = 16; o > 0; o >>= 1)
    v += __shfl_down_sync(0xffffffffu, v, o);
  return v;
}

// Sum and sum of squares in one pass (a start of 0.25 a thread, which rank
// 0 keeps), warp shuffles, the warps' totals in shared memory, mean and
// rstd in shared scalars read by the last loop.
__global__ void warp_norm(const float *x, float *y, int n) {
  __shared__ float warps[64];
  __shared__ float mean_s, rstd_s;
  const float *in = x + (long long)blockIdx.x * n;
  float s = 0.25f, q = 0.0f;
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    s += in[i];
    q = fmaf(in[i], in[i], q);
  }
  s = warp_sum(s);
  q = warp_sum(q);
  if (threadIdx.x % 32 == 0) {
    warps[threadIdx.x / 32] = s;
    warps[32 + threadIdx.x / 32] = q;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    float ts = 0.0f, tq = 0.0f;
    for (unsigned w = 0; w < blockDim.x / 32; ++w) {
      ts += warps[w];
      tq += warps[32 + w];
    }
    mean_s = (ts - 0.25f * blockDim.x) / n;
    rstd_s = rsqrtf(fmaxf(tq / n - mean_s * mean_s, 0.0f) + 1e-5f);
  }
  __syncthreads();
  float *out = y + (long long)blockIdx.x * n;
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    out[i] = (in[i] - mean_s) * rstd_s;
}

// A maximum kept by comparison, finished by thread 0 alone.
__global__ void group_top(const float *x, float *y, int n) {
  __shared__ float red[1024];
  const float *in = x + (long long)blockIdx.x * n;
  float m = -3.0e38f;
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    if (in[i] > m)
      m = in[i];
  red[threadIdx.x] = m;
  __syncthreads();
  if (threadIdx.x == 0) {
    float t = red[0];
    for (unsigned k = 1; k < blockDim.x; ++k)
      t = red[k] > t ? red[k] : t;
    y[blockIdx.x] = t;
  }
}

void run_group_max(const float *x, float *y, int groups, int n, int block) {
  group_max<<<groups, block>>>(x, y, n);
}
void run_count_and_sum(const float *x, float *sums, int *counts, int groups,
                       long long n, float cut, int block) {
  count_and_sum<<<groups, block>>>(x, sums, counts, n, cut);
}
void run_layernorm(const float *x, float *y, int groups, int n, int block) {
  layernorm<<<groups, block>>>(x, y, n, 1e-5f);
}
void run_warp_norm(const float *x, float *y, int groups, int n, int block) {
  warp_norm<<<groups, block>>>(x, y, n);
}
void run_group_top(const float *x, float *y, int groups, int n, int block) {
  group_top<<<groups, block>>>(x, y, n);
}

__global__ void fill(float *x, long long n, unsigned seed) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    unsigned h = (unsigned)(i * 2654435761u) ^ seed;
    h ^= h >> 15;
    h *= 2246822519u;
    h ^= h >> 13;
    x[i] = (float)(h & 0xffff) / 32768.0f - 1.0f + 0.25f;
  }
}

#define CHECK(E)                                                               \
  do {                                                                         \
    cudaError_t Err = (E);                                                     \
    if (Err != cudaSuccess) {                                                  \
      printf("CUDA error %s at %d\n", cudaGetErrorString(Err), __LINE__);      \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

static unsigned long long bitsHash(const void *P, size_t Bytes) {
  const unsigned char *B = static_cast<const unsigned char *>(P);
  unsigned long long H = 1469598103934665603ull;
  for (size_t I = 0; I < Bytes; ++I)
    H = (H ^ B[I]) * 1099511628211ull;
  return H;
}

static bool near(double Got, double Want, double Scale) {
  return std::fabs(Got - Want) <= 1e-4 * (std::fabs(Want) + Scale);
}

int main() {
  const int Blocks[] = {32, 128, 1024};
  const int Groups[] = {1, 3, 16, 2000};
  const int Ns[] = {0, 1, 31, 33, 257, 4097, 100003};
  size_t Most = 2000ull * 100003;
  float *X, *Y, *Sums;
  int *Counts;
  CHECK(cudaMalloc(&X, Most * sizeof(float)));
  CHECK(cudaMalloc(&Y, Most * sizeof(float)));
  CHECK(cudaMalloc(&Sums, 2000 * sizeof(float)));
  CHECK(cudaMalloc(&Counts, 2000 * sizeof(int)));
  fill<<<1024, 256>>>(X, (long long)Most, 7u);
  std::vector<float> Hx(Most), Hy(Most), Hs(2000);
  std::vector<int> Hc(2000);
  CHECK(cudaMemcpy(Hx.data(), X, Most * sizeof(float), cudaMemcpyDeviceToHost));
  for (int G : Groups)
    for (int N : Ns)
      for (int B : Blocks) {
        if ((long long)G * N > (long long)Most)
          continue;
        size_t Elems = (size_t)G * N;
        CHECK(cudaMemset(Y, 0xff, Most * sizeof(float)));
        run_group_max(X, Y, G, N, B);
        CHECK(cudaDeviceSynchronize());
        CHECK(cudaMemcpy(Hy.data(), Y, Elems * sizeof(float),
                         cudaMemcpyDeviceToHost));
        printf("max g=%d n=%d b=%d bits=%016llx\n", G, N, B,
               bitsHash(Hy.data(), Elems * sizeof(float)));

        CHECK(cudaMemset(Counts, 0xff, 2000 * sizeof(int)));
        run_count_and_sum(X, Sums, Counts, G, N, 0.5f, B);
        CHECK(cudaDeviceSynchronize());
        CHECK(cudaMemcpy(Hc.data(), Counts, G * sizeof(int),
                         cudaMemcpyDeviceToHost));
        CHECK(cudaMemcpy(Hs.data(), Sums, G * sizeof(float),
                         cudaMemcpyDeviceToHost));
        bool SumsOk = true;
        for (int Gi = 0; Gi < G; ++Gi) {
          double Want = 0, Abs = 0;
          for (int I = 0; I < N; ++I) {
            Want += Hx[(size_t)Gi * N + I];
            Abs += std::fabs(Hx[(size_t)Gi * N + I]);
          }
          SumsOk &= near(Hs[Gi], Want, Abs);
        }
        printf("count g=%d n=%d b=%d bits=%016llx sums=%s\n", G, N, B,
               bitsHash(Hc.data(), G * sizeof(int)), SumsOk ? "ok" : "BAD");

        CHECK(cudaMemset(Y, 0xff, Most * sizeof(float)));
        run_layernorm(X, Y, G, N, B);
        CHECK(cudaDeviceSynchronize());
        CHECK(cudaMemcpy(Hy.data(), Y, Elems * sizeof(float),
                         cudaMemcpyDeviceToHost));
        bool NormOk = true;
        for (int Gi = 0; Gi < G && N > 0; ++Gi) {
          const float *In = &Hx[(size_t)Gi * N];
          double Mean = 0, Var = 0;
          for (int I = 0; I < N; ++I)
            Mean += In[I];
          Mean /= N;
          for (int I = 0; I < N; ++I)
            Var += (In[I] - Mean) * (In[I] - Mean);
          double Rstd = 1.0 / std::sqrt(Var / N + 1e-5);
          for (int I = 0; I < N; ++I)
            NormOk &= near(Hy[(size_t)Gi * N + I], (In[I] - Mean) * Rstd, 1.0);
        }
        printf("norm g=%d n=%d b=%d %s\n", G, N, B, NormOk ? "ok" : "BAD");

        CHECK(cudaMemset(Y, 0xff, Most * sizeof(float)));
        run_warp_norm(X, Y, G, N, B);
        CHECK(cudaDeviceSynchronize());
        CHECK(cudaMemcpy(Hy.data(), Y, Elems * sizeof(float),
                         cudaMemcpyDeviceToHost));
        bool WarpOk = true;
        for (int Gi = 0; Gi < G && N > 0; ++Gi) {
          const float *In = &Hx[(size_t)Gi * N];
          double Mean = 0, Sq = 0;
          for (int I = 0; I < N; ++I) {
            Mean += In[I];
            Sq += (double)In[I] * In[I];
          }
          Mean /= N;
          double Rstd = 1.0 / std::sqrt(std::max(Sq / N - Mean * Mean, 0.0) +
                                        1e-5);
          for (int I = 0; I < N; ++I)
            WarpOk &= near(Hy[(size_t)Gi * N + I], (In[I] - Mean) * Rstd, 1.0);
        }
        printf("warp norm g=%d n=%d b=%d %s\n", G, N, B,
               WarpOk ? "ok" : "BAD");

        CHECK(cudaMemset(Y, 0xff, Most * sizeof(float)));
        run_group_top(X, Y, G, N, B);
        CHECK(cudaDeviceSynchronize());
        CHECK(cudaMemcpy(Hy.data(), Y, G * sizeof(float),
                         cudaMemcpyDeviceToHost));
        printf("top g=%d n=%d b=%d bits=%016llx\n", G, N, B,
               bitsHash(Hy.data(), G * sizeof(float)));
      }
  // One group past 2^31 elements: the count's 64-bit index.
  const long long Big = (1ll << 31) + 5;
  float *Xb;
  if (cudaMalloc(&Xb, Big * sizeof(float)) == cudaSuccess) {
    fill<<<1024, 256>>>(Xb, Big, 11u);
    run_count_and_sum(Xb, Sums, Counts, 1, Big, 0.5f, 1024);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(Hc.data(), Counts, sizeof(int), cudaMemcpyDeviceToHost));
    printf("count g=1 n=%lld b=1024 count=%d\n", Big, Hc[0]);
    CHECK(cudaFree(Xb));
  } else {
    printf("count g=1 n=%lld skipped: no memory\n", Big);
  }
  return 0;
}
