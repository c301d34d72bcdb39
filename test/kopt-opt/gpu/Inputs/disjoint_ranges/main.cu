// vectorize-loads' and staged-loads' run-time range checks on the GPU. The
// kernels take plain pointers, so the rewritten loops run only where the
// stored range and the loaded ones do not overlap. Each kernel runs on
// separate buffers, on ranges that touch (one ends where the other
// begins) and on overlapping ranges whose original result is well defined
// (each element is written and later read by the same thread), where a
// vector or staged read of the old value would give another result. Every
// result must be the CPU's, which replays each thread's iterations in
// order. Exit 0 when all hold.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

#define CHECK(x)                                                               \
  do {                                                                         \
    cudaError_t e = (x);                                                       \
    if (e != cudaSuccess) {                                                    \
      std::printf("%s: %s\n", #x, cudaGetErrorString(e));                      \
      std::exit(2);                                                            \
    }                                                                          \
  } while (0)

// vectorize-loads: a grid-stride loop.
__global__ void scale(const float *x, float *y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
    y[i] = 2.0f * x[i] + 1.0f;
}

// staged-loads: a block-stride loop that writes back what it reads and
// carries a sum (one block).
__global__ void add_sumsq(const float *x, float *res, float *out, int n) {
  float sum = 0.0f;
  for (int j = threadIdx.x; j < n; j += blockDim.x) {
    float r = x[j] + res[j];
    res[j] = r;
    sum += r * r;
  }
  out[threadIdx.x] = sum;
}

void launch_scale(const float *x, float *y, int n, int blocks, int threads) {
  scale<<<blocks, threads>>>(x, y, n);
}

void launch_add_sumsq(const float *x, float *res, float *out, int n) {
  add_sumsq<<<1, 256>>>(x, res, out, n);
}

static int failures = 0;

static void expect(bool ok, const char *what) {
  std::printf("%s: %s\n", ok ? "ok" : "FAILED", what);
  failures += !ok;
}

static void fill(float *h, int n) {
  for (int i = 0; i < n; ++i)
    h[i] = (float)(i % 13) * 0.25f - 1.0f;
}

// scale on y = buffer + shift, x = buffer, with T threads in all: thread t
// runs i = t, t + T, ... in order.
static void scaleOnCpu(float *h, int n, int shift, int T) {
  for (int t = 0; t < T; ++t)
    for (int i = t; i < n; i += T)
      h[shift + i] = 2.0f * h[i] + 1.0f;
}

static bool scaleCase(int n, int shift, int blocks, int threads) {
  int size = n + shift;
  float *h = (float *)std::malloc(size * sizeof(float));
  float *got = (float *)std::malloc(size * sizeof(float));
  fill(h, size);
  float *d;
  CHECK(cudaMalloc(&d, size * sizeof(float)));
  CHECK(cudaMemcpy(d, h, size * sizeof(float), cudaMemcpyHostToDevice));
  launch_scale(d, d + shift, n, blocks, threads);
  CHECK(cudaMemcpy(got, d, size * sizeof(float), cudaMemcpyDeviceToHost));
  scaleOnCpu(h, n, shift, blocks * threads);
  bool same = std::memcmp(h, got, size * sizeof(float)) == 0;
  CHECK(cudaFree(d));
  std::free(h);
  std::free(got);
  return same;
}

// add_sumsq on res = buffer + shift, x = buffer; thread t's sum in out[t].
static bool addSumsqCase(int n, int shift) {
  int size = n + shift;
  float *h = (float *)std::malloc(size * sizeof(float));
  float *got = (float *)std::malloc(size * sizeof(float));
  float sums[256] = {0}, gotSums[256];
  fill(h, size);
  float *d, *out;
  CHECK(cudaMalloc(&d, size * sizeof(float)));
  CHECK(cudaMalloc(&out, 256 * sizeof(float)));
  CHECK(cudaMemcpy(d, h, size * sizeof(float), cudaMemcpyHostToDevice));
  launch_add_sumsq(d, d + shift, out, n);
  CHECK(cudaMemcpy(got, d, size * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(gotSums, out, sizeof gotSums, cudaMemcpyDeviceToHost));
  for (int t = 0; t < 256; ++t)
    for (int j = t; j < n; j += 256) {
      float r = h[j] + h[shift + j];
      h[shift + j] = r;
      sums[t] += r * r;
    }
  bool same = std::memcmp(h, got, size * sizeof(float)) == 0 &&
              std::memcmp(sums, gotSums, sizeof sums) == 0;
  CHECK(cudaFree(d));
  CHECK(cudaFree(out));
  std::free(h);
  std::free(got);
  return same;
}

int main() {
  const int n = 1 << 16;
  // Separate ranges (y far behind x), touching ranges (y = x + n) and a
  // tail of 3 elements.
  expect(scaleCase(n, n + 1024, 64, 256), "scale, separate ranges");
  expect(scaleCase(n, n, 64, 256), "scale, touching ranges");
  expect(scaleCase(n + 3, n + 4, 8, 128), "scale, separate ranges, a tail");
  // y = x + 32 with 32 threads: thread t writes element i + 32 and reads it
  // in its next iteration; a vector read of elements 32.. by another thread
  // would see the old values. 16-byte aligned, so only the range check
  // sends it to the original loop.
  expect(scaleCase(n, 32, 1, 32), "scale, overlapping ranges");
  // res = x + 256 with 256 threads: the same, for staged-loads (its chunk
  // holds 2048 floats, so staging x would read elements before they are
  // written).
  expect(addSumsqCase(n, n), "add_sumsq, touching ranges");
  expect(addSumsqCase(n + 5, n + 8), "add_sumsq, separate ranges, a tail");
  expect(addSumsqCase(n, 256), "add_sumsq, overlapping ranges");
  // In place (y = x, res = x): each element is loaded, then stored, by its
  // own iteration only, so the checks let the rewritten loops run.
  expect(scaleCase(n, 0, 64, 256), "scale, in place");
  expect(addSumsqCase(n + 3, 0), "add_sumsq, in place, a tail");
  std::printf("%d failed\n", failures);
  return failures ? 1 : 0;
}
