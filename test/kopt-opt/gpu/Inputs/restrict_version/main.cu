// restrict-const's run-time version on the GPU. The kernel's launcher takes
// its pointers from the caller, so kopt-opt adds `shift_kopt_restrict` and a
// check at the launch. Built after the rewrite with -DKOPT_REWRITTEN, main
// also asks the check directly what it says of distinct, shared (written or
// only read), null, host and managed memory. Either way the results must be the CPU's, both for
// distinct buffers and for an in-place launch (in == out), where only the
// original may run. Exit 0 when everything holds.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(x)                                                               \
  do {                                                                         \
    cudaError_t e = (x);                                                       \
    if (e != cudaSuccess) {                                                    \
      std::printf("%s: %s\n", #x, cudaGetErrorString(e));                      \
      std::exit(2);                                                            \
    }                                                                          \
  } while (0)

__global__ void shift(const float *in, float *out, float bias, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i] * 0.5f + bias;
}

void shift_forward(const float *in, float *out, float bias, int n) {
  shift<<<(n + 255) / 256, 256>>>(in, out, bias, n);
}

// Two inputs the kernel only reads: PyTorch's caching allocator hands out
// small tensors from one allocation, and the __restrict__ copy may run.
__global__ void add(const float *a, const float *b, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = a[i] + b[i];
}

void add_forward(const float *a, const float *b, float *out, int n) {
  add<<<(n + 255) / 256, 256>>>(a, b, out, n);
}

// A template kernel: each instantiation's launch picks the template copy.
template <typename T, int N>
__global__ void scale_t(T *y, const T *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = x[i] * N;
}

void scale3_forward(float *y, const float *x, int n) {
  scale_t<float, 3><<<(n + 255) / 256, 256>>>(y, x, n);
}

void scale5_forward(float *y, const float *x, int n) {
  scale_t<float, 5><<<(n + 255) / 256, 256>>>(y, x, n);
}

static int failures = 0;

static void expect(bool ok, const char *what) {
  std::printf("%s: %s\n", ok ? "ok" : "FAILED", what);
  failures += !ok;
}

int main() {
  const int n = 1 << 20;
  float *host = (float *)std::malloc(n * sizeof(float));
  float *got = (float *)std::malloc(n * sizeof(float));
  for (int i = 0; i < n; ++i)
    host[i] = (float)(i % 977) - 300.0f;
  float *in, *out;
  CHECK(cudaMalloc(&in, n * sizeof(float)));
  CHECK(cudaMalloc(&out, n * sizeof(float)));
  CHECK(cudaMemcpy(in, host, n * sizeof(float), cudaMemcpyHostToDevice));

  shift_forward(in, out, 1.0f, n);
  CHECK(cudaMemcpy(got, out, n * sizeof(float), cudaMemcpyDeviceToHost));
  bool same = true;
  for (int i = 0; i < n; ++i)
    same = same && got[i] == host[i] * 0.5f + 1.0f;
  expect(same, "distinct buffers: the CPU's results");

  shift_forward(in, in, 2.0f, n); // in place
  CHECK(cudaMemcpy(got, in, n * sizeof(float), cudaMemcpyDeviceToHost));
  same = true;
  for (int i = 0; i < n; ++i)
    same = same && got[i] == host[i] * 0.5f + 2.0f;
  expect(same, "in place: the CPU's results");

  // a and b: the two halves of one buffer (in's first and second half).
  CHECK(cudaMemcpy(in, host, n * sizeof(float), cudaMemcpyHostToDevice));
  add_forward(in, in + n / 2, out, n / 2);
  CHECK(cudaMemcpy(got, out, n / 2 * sizeof(float), cudaMemcpyDeviceToHost));
  same = true;
  for (int i = 0; i < n / 2; ++i)
    same = same && got[i] == host[i] + host[i + n / 2];
  expect(same, "two inputs in one buffer: the CPU's results");

  // The template, distinct buffers and in place (in holds host's values).
  scale3_forward(out, in, n);
  CHECK(cudaMemcpy(got, out, n * sizeof(float), cudaMemcpyDeviceToHost));
  same = true;
  for (int i = 0; i < n; ++i)
    same = same && got[i] == host[i] * 3;
  expect(same, "a template, distinct buffers: the CPU's results");
  scale5_forward(in, in, n);
  CHECK(cudaMemcpy(got, in, n * sizeof(float), cudaMemcpyDeviceToHost));
  same = true;
  for (int i = 0; i < n; ++i)
    same = same && got[i] == host[i] * 5;
  expect(same, "a template, in place: the CPU's results");

#ifdef KOPT_REWRITTEN
  // 'w': the kernel writes through the pointer; 'r': it only reads.
  expect(kopt_distinct_allocations("rw", in, out), "two cudaMalloc'd buffers are distinct");
  expect(!kopt_distinct_allocations("rw", in, in + 1), "a written pointer into a buffer another pointer reads is not");
  expect(!kopt_distinct_allocations("wr", out + n / 2, out), "nor the other way round");
  expect(kopt_distinct_allocations("rrw", in, in + 1, out), "two pointers only read may share a buffer");
  expect(!kopt_distinct_allocations("rrw", in, out, out + 1), "a read and a written pointer may not");
  expect(kopt_distinct_allocations("rrw", in, (float *)nullptr, out), "a null pointer is skipped");
  expect(!kopt_distinct_allocations("rw", host, out), "a host pointer: the driver cannot say");
  float *m1, *m2;
  CHECK(cudaMallocManaged(&m1, 4096));
  CHECK(cudaMallocManaged(&m2, 4096));
  expect(kopt_distinct_allocations("rw", m1, m2), "two managed buffers are distinct");
  expect(!kopt_distinct_allocations("rw", m1, m1 + 100), "one managed buffer is not");
  CHECK(cudaFree(m1));
  CHECK(cudaFree(m2));
#endif
  CHECK(cudaFree(in));
  CHECK(cudaFree(out));
  std::printf("%d failed\n", failures);
  return failures ? 1 : 0;
}
