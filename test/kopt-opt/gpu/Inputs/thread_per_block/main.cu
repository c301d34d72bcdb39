// Block-per-output kernels whose threads stride over channels, for
// thread-per-block's GPU test: an RMS norm over the channels of [b, f, hw]
// (a floating-point sum: checked against a double reference within a
// tolerance) and a channel maximum and count (exact: a hash of the bits).
// Outputs are poisoned before each case.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(x)                                                               \
  do {                                                                         \
    cudaError_t e = (x);                                                       \
    if (e != cudaSuccess) {                                                    \
      printf("CUDA error %s at %d\n", cudaGetErrorString(e), __LINE__);        \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

__global__ void rms_channels(const float *x, const float *w, float *y, int f,
                             int hw, float eps) {
  __shared__ float buf[128];
  const int pos = blockIdx.x;
  const long long base = (long long)(pos / hw) * f * hw + pos % hw;
  float s = 0.0f;
  for (int c = threadIdx.x; c < f; c += blockDim.x) {
    float v = x[base + (long long)c * hw];
    s += v * v;
  }
  buf[threadIdx.x] = s;
  __syncthreads();
  for (int st = blockDim.x / 2; st > 0; st /= 2) {
    if (threadIdx.x < st)
      buf[threadIdx.x] += buf[threadIdx.x + st];
    __syncthreads();
  }
  const float r = rsqrtf(buf[0] / f + eps);
  for (int c = threadIdx.x; c < f; c += blockDim.x)
    y[base + (long long)c * hw] = x[base + (long long)c * hw] * r * w[c];
}

// An exact reduction with a shared scalar besides the per-thread array.
__global__ void channel_max(const float *x, float *top, int *count, int f,
                            int hw) {
  __shared__ float buf[128];
  __shared__ int positives;
  const int pos = blockIdx.x;
  const long long base = (long long)(pos / hw) * f * hw + pos % hw;
  if (threadIdx.x == 0)
    positives = 0;
  __syncthreads();
  float m = -INFINITY;
  for (int c = threadIdx.x; c < f; c += blockDim.x) {
    m = fmaxf(m, x[base + (long long)c * hw]);
    if (x[base + (long long)c * hw] > 0.0f)
      atomicAdd(&count[pos], 1);
  }
  buf[threadIdx.x] = m;
  __syncthreads();
  for (int st = blockDim.x / 2; st > 0; st /= 2) {
    if (threadIdx.x < st)
      buf[threadIdx.x] = fmaxf(buf[threadIdx.x], buf[threadIdx.x + st]);
    __syncthreads();
  }
  if (threadIdx.x == 0)
    top[pos] = buf[0] + (float)positives;
}

template <typename T> static uint64_t hash(const std::vector<T> &v) {
  uint64_t h = 1469598103934665603ull;
  const unsigned char *p = reinterpret_cast<const unsigned char *>(v.data());
  for (size_t i = 0; i < v.size() * sizeof(T); ++i)
    h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

int main() {
  const int shapes[][3] = {{1, 1, 1},  {1, 7, 1},   {2, 1, 3},
                           {3, 7, 1001}, {1, 300, 5}, {4, 64, 4096}};
  for (auto &s : shapes) {
    int b = s[0], f = s[1], hw = s[2];
    size_t count = size_t(b) * f * hw;
    int outputs = b * hw;
    std::vector<float> hx(count), hw8(f);
    srand(b * 7919 + f * 31 + hw);
    for (float &v : hx)
      v = float(rand()) / RAND_MAX * 4.0f - 2.0f;
    for (float &v : hw8)
      v = float(rand()) / RAND_MAX + 0.5f;
    float *x, *w, *y, *top;
    int *cnt;
    CHECK(cudaMalloc(&x, count * 4));
    CHECK(cudaMalloc(&w, f * 4));
    CHECK(cudaMalloc(&y, count * 4));
    CHECK(cudaMalloc(&top, outputs * 4));
    CHECK(cudaMalloc(&cnt, outputs * 4));
    CHECK(cudaMemcpy(x, hx.data(), count * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(w, hw8.data(), f * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(y, 0xff, count * 4));
    CHECK(cudaMemset(top, 0xff, outputs * 4));
    CHECK(cudaMemset(cnt, 0, outputs * 4));
    rms_channels<<<outputs, 128>>>(x, w, y, f, hw, 1e-6f);
    channel_max<<<outputs, 128>>>(x, top, cnt, f, hw);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    std::vector<float> gy(count), gt(outputs);
    std::vector<int> gc(outputs);
    CHECK(cudaMemcpy(gy.data(), y, count * 4, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(gt.data(), top, outputs * 4, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(gc.data(), cnt, outputs * 4, cudaMemcpyDeviceToHost));
    bool ok = true;
    for (int p = 0; p < outputs; ++p) {
      size_t base = size_t(p / hw) * f * hw + p % hw;
      double ss = 0;
      for (int c = 0; c < f; ++c)
        ss += double(hx[base + size_t(c) * hw]) * hx[base + size_t(c) * hw];
      double r = 1.0 / std::sqrt(ss / f + 1e-6);
      for (int c = 0; c < f; ++c) {
        double want = hx[base + size_t(c) * hw] * r * hw8[c];
        ok &= std::fabs(gy[base + size_t(c) * hw] - want) <=
              1e-5 * (1 + std::fabs(want));
      }
    }
    printf("b %d f %d hw %d: rms %s max %016llx count %016llx\n", b, f, hw,
           ok ? "ok" : "WRONG", (unsigned long long)hash(gt),
           (unsigned long long)hash(gc));
    CHECK(cudaFree(x));
    CHECK(cudaFree(w));
    CHECK(cudaFree(y));
    CHECK(cudaFree(top));
    CHECK(cudaFree(cnt));
  }
  return 0;
}
