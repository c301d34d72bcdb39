// atomic-aggregate on the GPU: integer sums through atomics (a grid-stride
// loop, a block-stride loop per row; one a thread, which the pass leaves to
// nvcc) must give the same totals as the original, bit for bit, for odd sizes and for blocks
// whose x extent is not a multiple of 32 (the run-time check's original
// path); a float dot product in a grid-stride loop (reassociate=true) must stay within 1e-3 of
// the CPU's double sum, relative to the sum of magnitudes. Atomics under
// an if/else on two addresses after work in the loop body, and in a loop
// nested in a while loop, must give the CPU's integer totals. Prints one
// line per case; the original and the rewrite must print the same lines.
#include <cmath>
#include <cstdio>
#include <cstdlib>
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

__global__ void sum_int(const int *x, int *sum, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(sum, x[i]);
}

__global__ void sum_grid(const unsigned *x, unsigned *sum, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
    atomicAdd(sum, x[i]);
}

__global__ void row_counts(const int *x, unsigned long long *out, int n) {
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    atomicAdd(&out[blockIdx.x], (unsigned long long)(x[blockIdx.x * n + j] > 0));
}

__global__ void dot(const float *a, const float *b, float *out, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
    atomicAdd(out, a[i] * b[i]);
}

__global__ void sign_counts(const int *x, int *counts, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x) {
    int v = x[i] / 1024;
    if (v > 0)
      atomicAdd(&counts[0], v);
    else
      atomicAdd(&counts[1], 1);
  }
}

__global__ void inner_sum(const unsigned *x, unsigned *sum, int n) {
  int i = 3 * (blockIdx.x * blockDim.x + threadIdx.x);
  while (i < n) {
    for (int j = 0; j < 3 && i + j < n; ++j)
      if (x[i + j] & 1)
        atomicAdd(sum, x[i + j] >> 1);
    i += 3 * blockDim.x * gridDim.x;
  }
}

template <typename T> static T *upload(const std::vector<T> &h) {
  T *d;
  CHECK(cudaMalloc(&d, h.size() * sizeof(T) + 1));
  CHECK(cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}

int main() {
  std::srand(7);
  const int sizes[] = {1, 31, 33, 1000, 1000003};
  const int blocks[] = {256, 96, 100};
  for (int n : sizes) {
    std::vector<int> xi(n);
    std::vector<unsigned> xu(n);
    std::vector<float> a(n), b(n);
    for (int i = 0; i < n; ++i) {
      xi[i] = std::rand() - RAND_MAX / 2;
      xu[i] = (unsigned)std::rand() * 2654435761u;
      a[i] = std::rand() / (float)RAND_MAX - 0.5f;
      b[i] = std::rand() / (float)RAND_MAX - 0.5f;
    }
    int *dxi = upload(xi), *dsum, *dsigns;
    unsigned *dinner;
    CHECK(cudaMalloc(&dsigns, 2 * sizeof(int)));
    CHECK(cudaMalloc(&dinner, sizeof(unsigned)));
    unsigned *dxu = upload(xu), *dusum;
    float *da = upload(a), *db = upload(b), *ddot;
    CHECK(cudaMalloc(&dsum, sizeof(int)));
    CHECK(cudaMalloc(&dusum, sizeof(unsigned)));
    CHECK(cudaMalloc(&ddot, sizeof(float)));
    for (int threads : blocks) {
      CHECK(cudaMemset(dsum, 0, sizeof(int)));
      CHECK(cudaMemset(dusum, 0, sizeof(unsigned)));
      CHECK(cudaMemset(ddot, 0, sizeof(float)));
      CHECK(cudaMemset(dsigns, 0, 2 * sizeof(int)));
      CHECK(cudaMemset(dinner, 0, sizeof(unsigned)));
      sign_counts<<<3, threads>>>(dxi, dsigns, n);
      inner_sum<<<2, threads>>>(dxu, dinner, n);
      sum_int<<<(n + threads - 1) / threads, threads>>>(dxi, dsum, n);
      sum_grid<<<7, threads>>>(dxu, dusum, n);
      dot<<<5, threads>>>(da, db, ddot, n);
      CHECK(cudaGetLastError());
      int s;
      unsigned u;
      float d;
      CHECK(cudaMemcpy(&s, dsum, sizeof(int), cudaMemcpyDeviceToHost));
      CHECK(cudaMemcpy(&u, dusum, sizeof(unsigned), cudaMemcpyDeviceToHost));
      CHECK(cudaMemcpy(&d, ddot, sizeof(float), cudaMemcpyDeviceToHost));
      int signs[2];
      unsigned inner;
      CHECK(cudaMemcpy(signs, dsigns, 2 * sizeof(int), cudaMemcpyDeviceToHost));
      CHECK(cudaMemcpy(&inner, dinner, sizeof(unsigned),
                       cudaMemcpyDeviceToHost));
      unsigned want_s = 0, want_u = 0, want_pos = 0, want_rest = 0;
      unsigned want_inner = 0;
      double want_d = 0, mag = 0;
      for (int i = 0; i < n; ++i) {
        want_s += (unsigned)xi[i];
        want_u += xu[i];
        int v = xi[i] / 1024;
        if (v > 0)
          want_pos += (unsigned)v;
        else
          ++want_rest;
        if (xu[i] & 1)
          want_inner += xu[i] >> 1;
        want_d += (double)a[i] * b[i];
        mag += std::fabs((double)a[i] * b[i]);
      }
      bool dot_ok = std::fabs(d - want_d) <= 1e-3 * mag + 1e-30;
      bool signs_ok = (unsigned)signs[0] == want_pos &&
                      (unsigned)signs[1] == want_rest;
      std::printf("n=%d threads=%d: int %d (%s), unsigned %u (%s), dot %s, "
                  "signs %d %d (%s), inner %u (%s)\n",
                  n, threads, s, (unsigned)s == want_s ? "ok" : "WRONG", u,
                  u == want_u ? "ok" : "WRONG", dot_ok ? "ok" : "WRONG",
                  signs[0], signs[1], signs_ok ? "ok" : "WRONG", inner,
                  inner == want_inner ? "ok" : "WRONG");
    }
    // Rows: counts of positive elements, 3 rows of n / 3 (at least 1).
    int cols = n / 3 > 0 ? n / 3 : 1;
    unsigned long long *drows;
    CHECK(cudaMalloc(&drows, 3 * sizeof(unsigned long long)));
    CHECK(cudaMemset(drows, 0, 3 * sizeof(unsigned long long)));
    row_counts<<<3 <= n ? 3 : 1, 128>>>(dxi, drows, cols);
    CHECK(cudaGetLastError());
    unsigned long long rows[3] = {0, 0, 0};
    CHECK(cudaMemcpy(rows, drows, 3 * sizeof(unsigned long long),
                     cudaMemcpyDeviceToHost));
    std::printf("n=%d rows: %llu %llu %llu\n", n, rows[0], rows[1], rows[2]);
    CHECK(cudaFree(dxi));
    CHECK(cudaFree(dxu));
    CHECK(cudaFree(da));
    CHECK(cudaFree(db));
    CHECK(cudaFree(dsum));
    CHECK(cudaFree(dusum));
    CHECK(cudaFree(ddot));
    CHECK(cudaFree(drows));
    CHECK(cudaFree(dsigns));
    CHECK(cudaFree(dinner));
  }
  return 0;
}
