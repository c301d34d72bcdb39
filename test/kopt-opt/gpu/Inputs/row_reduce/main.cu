// Thread-per-row kernels in kopt's own words, for row-reduce's GPU test:
// the program prints a hash of every output of every case, so the original
// build and the rewritten one (kopt-opt -passes=row-reduce) can be compared
// bit for bit, and times each kernel on stderr.
#include <cstdio>
#include <cstdint>
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

// Layer norm, one thread a row: two carried sums, a split output loop, two
// stores outside loops.
__global__ void norm_rows(float *__restrict__ out, float *__restrict__ mean,
                          float *__restrict__ rstd, const float *__restrict__ x,
                          const float *__restrict__ w, int rows, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows) {
    const float *in = x + row * n;
    float m = 0.0f;
    for (int j = 0; j < n; j++)
      m += in[j];
    m = m / n;
    float v = 0.0f;
    for (int j = 0; j < n; j++) {
      float d = in[j] - m;
      v += d * d;
    }
    float s = 1.0f / sqrtf(v / n + 1e-5f);
    float *o = out + row * n;
    for (int j = 0; j < n; j++)
      o[j] = (in[j] - m) * s * w[j];
    mean[row] = m;
    rstd[row] = s;
  }
}

// Causal softmax: the carrying loop stores in the owner, a split loop starting
// at 1 and one starting at 0 read back.
__global__ void causal_rows(float *__restrict__ p, const float *__restrict__ a,
                            int rows, int n) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows)
    return;
  float *row = p + r * n;
  const int last = r % n;
  float top = -INFINITY;
  for (int j = 0; j <= last; j++)
    top = fmaxf(top, a[r * n + j]);
  float sum = 0.0f;
  for (int j = 0; j <= last; j++) {
    float e = expf(a[r * n + j] - top);
    sum += e;
    row[j] = e;
  }
  for (int j = 1; j < n; j++)
    row[j] = j <= last ? row[j] / sum : 0.0f;
  for (int j = 0; j < 1; j++)
    row[j] = row[j] / sum;
}

// Running sums written as the parameter plus the row's offset: the carrying
// loop stores in the owner, the split loop reads back there.
__global__ void center_rows(float *__restrict__ c, const float *__restrict__ x,
                            int rows, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows) {
    float run = 0.0f;
    for (int j = 0; j < n; j++) {
      run += x[row * n + j];
      c[row * n + j] = run;
    }
    for (int j = 0; j < n; j++)
      c[row * n + j] = c[row * n + j] / (fabsf(run) + 1.0f);
  }
}

static uint64_t hash(const std::vector<float> &v) {
  uint64_t h = 1469598103934665603ull;
  for (float f : v) {
    uint32_t b;
    memcpy(&b, &f, 4);
    h = (h ^ b) * 1099511628211ull;
  }
  return h;
}

int main() {
  const int shapes[][2] = {{1, 1}, {7, 33}, {129, 100}, {1000, 257},
                           {4096, 768}};
  const int blocks[] = {32, 48, 64, 256, 1024};
  for (auto &sh : shapes) {
    int rows = sh[0], n = sh[1];
    size_t count = size_t(rows) * n;
    std::vector<float> hx(count), hw(n);
    srand(rows * 7919 + n);
    for (float &f : hx)
      f = float(rand()) / RAND_MAX * 4.0f - 2.0f;
    for (float &f : hw)
      f = float(rand()) / RAND_MAX + 0.5f;
    float *x, *w, *out, *mean, *rstd, *p, *c;
    CHECK(cudaMalloc(&x, count * 4));
    CHECK(cudaMalloc(&w, n * 4));
    CHECK(cudaMalloc(&out, count * 4));
    CHECK(cudaMalloc(&p, count * 4));
    CHECK(cudaMalloc(&c, count * 4));
    CHECK(cudaMalloc(&mean, rows * 4));
    CHECK(cudaMalloc(&rstd, rows * 4));
    CHECK(cudaMemcpy(x, hx.data(), count * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(w, hw.data(), n * 4, cudaMemcpyHostToDevice));
    for (int b : blocks) {
      CHECK(cudaMemset(out, 0xff, count * 4));
      CHECK(cudaMemset(p, 0xff, count * 4));
      CHECK(cudaMemset(c, 0xff, count * 4));
      CHECK(cudaMemset(mean, 0xff, rows * 4));
      CHECK(cudaMemset(rstd, 0xff, rows * 4));
      cudaEvent_t e0, e1;
      CHECK(cudaEventCreate(&e0));
      CHECK(cudaEventCreate(&e1));
      float t1 = 0, t2 = 0;
      for (int rep = 0; rep < 2; ++rep) {
        CHECK(cudaEventRecord(e0));
        norm_rows<<<(rows + b - 1) / b, b>>>(out, mean, rstd, x, w, rows, n);
        CHECK(cudaEventRecord(e1));
        CHECK(cudaEventSynchronize(e1));
        CHECK(cudaEventElapsedTime(&t1, e0, e1));
        CHECK(cudaEventRecord(e0));
        causal_rows<<<(rows + b - 1) / b, b>>>(p, x, rows, n);
        CHECK(cudaEventRecord(e1));
        CHECK(cudaEventSynchronize(e1));
        CHECK(cudaEventElapsedTime(&t2, e0, e1));
      }
      center_rows<<<(rows + b - 1) / b, b>>>(c, x, rows, n);
      CHECK(cudaGetLastError());
      std::vector<float> ho(count), hp(count), hc(count), hm(rows), hr(rows);
      CHECK(cudaMemcpy(hc.data(), c, count * 4, cudaMemcpyDeviceToHost));
      CHECK(cudaMemcpy(ho.data(), out, count * 4, cudaMemcpyDeviceToHost));
      CHECK(cudaMemcpy(hp.data(), p, count * 4, cudaMemcpyDeviceToHost));
      CHECK(cudaMemcpy(hm.data(), mean, rows * 4, cudaMemcpyDeviceToHost));
      CHECK(cudaMemcpy(hr.data(), rstd, rows * 4, cudaMemcpyDeviceToHost));
      printf("rows %d n %d block %d: out %016llx mean %016llx rstd %016llx "
             "causal %016llx center %016llx\n",
             rows, n, b, (unsigned long long)hash(ho),
             (unsigned long long)hash(hm), (unsigned long long)hash(hr),
             (unsigned long long)hash(hp), (unsigned long long)hash(hc));
      fprintf(stderr, "rows %d n %d block %d: norm_rows %.4f ms, causal_rows "
                      "%.4f ms\n", rows, n, b, t1, t2);
    }
    CHECK(cudaFree(x));
    CHECK(cudaFree(w));
    CHECK(cudaFree(out));
    CHECK(cudaFree(p));
    CHECK(cudaFree(c));
    CHECK(cudaFree(mean));
    CHECK(cudaFree(rstd));
  }
  return 0;
}
