// Block sizes as real code names them: a macro, a template argument, a
// parameter every launch passes its block size to (llm.c's block_size), a
// local copy of blockDim.x, a literal tree start. The loops `i += BLOCK`
// and `i += BLOCK * gridDim.x`, trees `BLOCK / 2` and indices
// `blockIdx.x * BLOCK + threadIdx.x` are block-stride loops, grid-stride
// loops, canonical trees and global thread indices under these launches,
// and the passes take them. Prints every result (sums as hex, element-wise outputs
// as a hash of their bytes): the original and the rewritten build must
// print the same lines, bit for bit.
#include <cstdint>
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

#define BLOCK 256

__global__ void rowsum_macro(const float *x, float *out, int n) {
  __shared__ float buf[BLOCK];
  const float *row = x + (long)blockIdx.x * n;
  float s = 0.0f;
  for (int i = threadIdx.x; i < n; i += BLOCK)
    s += row[i];
  buf[threadIdx.x] = s;
  __syncthreads();
  for (int k = BLOCK / 2; k > 0; k >>= 1) {
    if (threadIdx.x < k)
      buf[threadIdx.x] += buf[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = buf[0];
}

// A tree from a literal, `s = 64`: the first 128 threads' partials, which
// is the whole block only where 128 threads run (checked at run time: the
// launches below also run 1024).
__global__ void rowsum_literal(const float *x, float *out, int n) {
  __shared__ float buf[1024];
  float s = 0.0f;
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    s += x[(long)blockIdx.x * n + i];
  buf[threadIdx.x] = s;
  __syncthreads();
  for (int k = 64; k > 0; k >>= 1) {
    if (threadIdx.x < k)
      buf[threadIdx.x] += buf[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = buf[0];
}

template <int B>
__global__ void rowmax_template(const float *x, float *out, int n) {
  __shared__ float buf[B];
  float m = -1e30f;
  for (int i = threadIdx.x; i < n; i += B)
    m = fmaxf(m, x[(long)blockIdx.x * n + i]);
  buf[threadIdx.x] = m;
  __syncthreads();
  for (int s = B / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      buf[threadIdx.x] = fmaxf(buf[threadIdx.x], buf[threadIdx.x + s]);
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = buf[0];
}

__global__ void scale_param(const float *x, float *y, int n, int block_size) {
  for (int i = threadIdx.x; i < n; i += block_size)
    y[(long)blockIdx.x * n + i] = 2.0f * x[(long)blockIdx.x * n + i] + 1.0f;
}

__global__ void sumsq_param(const float *x, float *out, int n,
                            int block_size) {
  extern __shared__ float shared[];
  int tid = threadIdx.x;
  const float *row = x + (long)blockIdx.x * n;
  float s = 0.0f;
  for (int i = tid; i < n; i += block_size)
    s += row[i] * row[i];
  shared[tid] = s;
  __syncthreads();
  for (int stride = block_size / 2; stride >= 1; stride /= 2) {
    __syncthreads();
    if (tid < stride)
      shared[tid] += shared[tid + stride];
  }
  if (tid == 0)
    out[blockIdx.x] = shared[0];
}

__global__ void shift_local(const float *x, float *y, int n) {
  int bs = blockDim.x;
  for (int i = threadIdx.x; i < n; i += bs)
    y[(long)blockIdx.x * n + i] = x[(long)blockIdx.x * n + i] - 0.5f;
}

__global__ void axpy_named(const float *x, float *y, int n) {
  int i = blockIdx.x * BLOCK + threadIdx.x;
  if (i < n)
    y[i] = 3.0f * x[i] + 0.25f;
}

// One thread a row, its row written with the block's name (row-reduce).
__global__ void rowmax_threads(const float *x, float *out, int rows, int n) {
  int r = blockIdx.x * BLOCK + threadIdx.x;
  if (r < rows) {
    float m = -1e30f;
    for (int j = 0; j < n; ++j)
      m = fmaxf(m, x[(long)r * n + j]);
    out[r] = m;
  }
}

// A grid-stride loop written with the block's name (split-grid,
// vectorize-loads).
__global__ void scale_grid(const float *x, float *y, int n) {
  for (int i = blockIdx.x * BLOCK + threadIdx.x; i < n; i += BLOCK * gridDim.x)
    y[i] = 0.5f * x[i] - 2.0f;
}

// A block a row stepping by the block's name: a maximum, then each
// element shifted by it (cluster-split, register-cache).
__global__ void shiftmax_rows(const float *x, float *y, int n) {
  __shared__ float buf[BLOCK];
  const float *row = x + (long)blockIdx.x * n;
  float m = -1e30f;
  for (int i = threadIdx.x; i < n; i += BLOCK)
    m = fmaxf(m, row[i]);
  buf[threadIdx.x] = m;
  __syncthreads();
  for (int k = BLOCK / 2; k > 0; k >>= 1) {
    if (threadIdx.x < k)
      buf[threadIdx.x] = fmaxf(buf[threadIdx.x], buf[threadIdx.x + k]);
    __syncthreads();
  }
  m = buf[0];
  for (int i = threadIdx.x; i < n; i += BLOCK)
    y[(long)blockIdx.x * n + i] = row[i] - m;
}

// A launcher as real code writes one: the grid covers `total` elements.
static void axpyNamed(const float *x, float *y, int total) {
  axpy_named<<<(total + BLOCK - 1) / BLOCK, BLOCK>>>(x, y, total);
}

static uint64_t hashBytes(const std::vector<float> &v) {
  uint64_t h = 1469598103934665603ull;
  const unsigned char *p = reinterpret_cast<const unsigned char *>(v.data());
  for (size_t i = 0; i < v.size() * sizeof(float); ++i)
    h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

int main() {
  const int shapes[][2] = {{1, 1}, {3, 1}, {5, 1001}, {7, 4099}, {2, 100003}};
  const int sizes[] = {32, 128, 1024};
  size_t most = 2 * 100003 + 8;
  std::vector<float> h(most);
  std::srand(11);
  for (float &v : h)
    v = (std::rand() % 2001 - 1000) / 137.0f;
  float *x, *y, *out;
  CHECK(cudaMalloc(&x, most * sizeof(float)));
  CHECK(cudaMalloc(&y, most * sizeof(float)));
  CHECK(cudaMalloc(&out, 64 * sizeof(float)));
  CHECK(cudaMemcpy(x, h.data(), most * sizeof(float), cudaMemcpyHostToDevice));
  for (const auto &s : shapes) {
    int rows = s[0], n = s[1];
    // Aligned, and one element past: the vector loads' fallback.
    for (int off = 0; off < 2; ++off) {
      const float *in = x + off;
      auto sums = [&](const char *what) {
        CHECK(cudaGetLastError());
        std::vector<float> got(rows);
        CHECK(cudaMemcpy(got.data(), out, rows * sizeof(float),
                         cudaMemcpyDeviceToHost));
        std::printf("%s rows=%d n=%d off=%d:", what, rows, n, off);
        for (float g : got)
          std::printf(" %a", g);
        std::printf("\n");
      };
      auto elements = [&](const char *what, int bs) {
        CHECK(cudaGetLastError());
        std::vector<float> got((size_t)rows * n);
        CHECK(cudaMemcpy(got.data(), y, got.size() * sizeof(float),
                         cudaMemcpyDeviceToHost));
        std::printf("%s rows=%d n=%d off=%d bs=%d: %016llx\n", what, rows, n,
                    off, bs, (unsigned long long)hashBytes(got));
      };
      rowsum_macro<<<rows, BLOCK>>>(in, out, n);
      sums("rowsum_macro");
      rowmax_template<128><<<rows, 128>>>(in, out, n);
      sums("rowmax_template<128>");
      rowmax_template<512><<<rows, 512>>>(in, out, n);
      sums("rowmax_template<512>");
      axpyNamed(in, y, rows * n);
      elements("axpy_named", BLOCK);
      rowmax_threads<<<(rows + BLOCK - 1) / BLOCK, BLOCK>>>(in, out, rows, n);
      sums("rowmax_threads");
      scale_grid<<<2, BLOCK>>>(in, y, rows * n);
      elements("scale_grid", BLOCK);
      shiftmax_rows<<<rows, BLOCK>>>(in, y, n);
      elements("shiftmax_rows", BLOCK);
      for (int bs : sizes) {
        scale_param<<<rows, bs>>>(in, y, n, bs);
        elements("scale_param", bs);
        sumsq_param<<<rows, bs, bs * sizeof(float)>>>(in, out, n, bs);
        sums("sumsq_param");
        shift_local<<<rows, bs>>>(in, y, n);
        elements("shift_local", bs);
        if (bs >= 128) {
          rowsum_literal<<<rows, bs>>>(in, out, n);
          sums("rowsum_literal");
        }
      }
    }
  }
  CHECK(cudaDeviceSynchronize());
  std::printf("done\n");
  return 0;
}
