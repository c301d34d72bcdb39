// shared-cache copies a row that a later loop reads again into shared
// memory once, as 16-byte vectors; every loop then reads the row there, each
// thread the same elements in the same order (a run-time check falls back
// to the loops as written for long or misaligned rows).
// RUN: kopt-opt %s -passes=shared-cache -Rpass=shared-cache -Rpass-missed=shared-cache -o %t.cu 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: %strip_checks %t.cu | FileCheck %s
// RUN: %if cuda-toolkit %{ %nvcc_check %t.cu %}
// A second run changes nothing: the loops no longer share a statement list.
// RUN: kopt-opt %t.cu -passes=shared-cache -o %t.again.cu
// RUN: cmp %t.cu %t.again.cu
// narrow-only=false also caches 4-byte elements; max-bytes sizes the cache.
// RUN: kopt-opt %s -passes='shared-cache{narrow-only=false,max-bytes=8192}' -Rpass=shared-cache -o %t.wide.cu 2>&1 | FileCheck %s --check-prefix=WIDE
// RUN: %if cuda-toolkit %{ %nvcc_check %t.wide.cu %}
// RUN: kopt-opt %s -passes='shared-cache{max-bytes=100}' -Rpass-missed=shared-cache -o /dev/null 2>&1 | FileCheck %s --check-prefix=BADBYTES
// In -O, vectorize-loads then vectorizes the later loop's other pointers;
// the row's reads from shared memory stay scalar.
// RUN: kopt-opt %s -O -o - 2>/dev/null | FileCheck %s --check-prefix=PIPE
// REQUIRES: filecheck
#include <cuda_bf16.h>
#include <cuda_fp16.h>

// RMSNorm: the sum of squares, a shared-memory tree, then the normalized
// write reads x again.
// REMARK-DAG: shared-cache.cu:[[@LINE+64]]:3: remark: cached 'x[row * hidden + j]' in shared memory for the loop at [[@LINE+76]]:3: rows of up to 8192 elements (16384 bytes), copied as 16-byte vectors; 'hidden' above 8192 or a row not 16-byte aligned takes the original loops [-Rpass=shared-cache]
// CHECK-LABEL: __global__ void rmsnorm(
// CHECK:        float sum = 0.0f;
// CHECK-NEXT:   // kopt shared-cache: 'x' read once into shared memory, as 16-byte vectors;
// CHECK-NEXT:   // the loops below read the row from there.
// CHECK-NEXT:   __shared__ __align__(16) __nv_bfloat16 kopt_row_x[8192];
// CHECK-NEXT:   const bool kopt_shared = hidden <= 8192 &&
// CHECK-NEXT:       reinterpret_cast<unsigned long long>(x + (row * hidden)) % 16 == 0;
// CHECK-NEXT:   if (kopt_shared) {
// CHECK-NEXT:     for (int kopt_c = 0; kopt_c < hidden / 8; kopt_c += 4 * blockDim.x) {
// CHECK-NEXT:       uint4 kopt_r[4];
// CHECK-NEXT: #pragma unroll
// CHECK-NEXT:       for (int kopt_u = 0; kopt_u < 4; ++kopt_u) {
// CHECK-NEXT:         const int kopt_v = kopt_c + kopt_u * blockDim.x + threadIdx.x;
// CHECK-NEXT:         if (kopt_v < hidden / 8)
// CHECK-NEXT:           kopt_r[kopt_u] = reinterpret_cast<const uint4 *>(x + (row * hidden))[kopt_v];
// CHECK-NEXT:       }
// CHECK-NEXT: #pragma unroll
// CHECK-NEXT:       for (int kopt_u = 0; kopt_u < 4; ++kopt_u) {
// CHECK-NEXT:         const int kopt_v = kopt_c + kopt_u * blockDim.x + threadIdx.x;
// CHECK-NEXT:         if (kopt_v < hidden / 8)
// CHECK-NEXT:           reinterpret_cast<uint4 *>(kopt_row_x)[kopt_v] = kopt_r[kopt_u];
// CHECK-NEXT:       }
// CHECK-NEXT:     }
// CHECK-NEXT:     for (int kopt_j = hidden / 8 * 8 + threadIdx.x; kopt_j < hidden; kopt_j += blockDim.x)
// CHECK-NEXT:       kopt_row_x[kopt_j] = x[(row * hidden) + kopt_j];
// CHECK-NEXT:   }
// CHECK-NEXT:   __syncthreads();
// CHECK-NEXT:   if (kopt_shared) {
// CHECK-NEXT:     for (int j = threadIdx.x; j < hidden; j += blockDim.x) {
// CHECK-NEXT:       float v = __bfloat162float(kopt_row_x[j]);
// CHECK-NEXT:       sum += v * v;
// CHECK-NEXT:     }
// CHECK-NEXT:   } else {
// CHECK-NEXT:     for (int j = threadIdx.x; j < hidden; j += blockDim.x) {
// CHECK-NEXT:       float v = __bfloat162float(x[row * hidden + j]);
// CHECK-NEXT:       sum += v * v;
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK:        const float rstd = rsqrtf(partial[0] / hidden + eps);
// CHECK-NEXT:   if (kopt_shared) {
// CHECK-NEXT:     for (int j = threadIdx.x; j < hidden; j += blockDim.x) {
// CHECK-NEXT:       float v = __bfloat162float(kopt_row_x[j]);
// CHECK-NEXT:       out[row * hidden + j] = __float2bfloat16(v * rstd * __bfloat162float(w[j]));
// CHECK-NEXT:     }
// CHECK-NEXT:   } else {
// CHECK-NEXT:     for (int j = threadIdx.x; j < hidden; j += blockDim.x) {
// CHECK-NEXT:       float v = __bfloat162float(x[row * hidden + j]);
// CHECK-NEXT:       out[row * hidden + j] = __float2bfloat16(v * rstd * __bfloat162float(w[j]));
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// PIPE-LABEL: __global__ void __launch_bounds__(256) rmsnorm(
// PIPE:       __syncthreads();
// PIPE:       kopt vectorize-loads
// PIPE:       const uint4 kopt_vec_w = reinterpret_cast<const uint4 *>(w)[kopt_v];
// PIPE:       float v = __bfloat162float(kopt_row_x[j]);
// PIPE:       reinterpret_cast<uint4 *>(out + (row * hidden))[kopt_v] = kopt_vec_out;
__global__ void rmsnorm(const __nv_bfloat16 *__restrict__ x,
                        const __nv_bfloat16 *__restrict__ w,
                        __nv_bfloat16 *__restrict__ out, int hidden,
                        float eps) {
  __shared__ float partial[256];
  const int row = blockIdx.x;
  float sum = 0.0f;
  for (int j = threadIdx.x; j < hidden; j += blockDim.x) {
    float v = __bfloat162float(x[row * hidden + j]);
    sum += v * v;
  }
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  const float rstd = rsqrtf(partial[0] / hidden + eps);
  for (int j = threadIdx.x; j < hidden; j += blockDim.x) {
    float v = __bfloat162float(x[row * hidden + j]);
    out[row * hidden + j] = __float2bfloat16(v * rstd * __bfloat162float(w[j]));
  }
}

// Two rows (a residual add), three loops, a constant bound: the cache is
// sized for the bound, each row in its own buffer.
// REMARK-DAG: shared-cache.cu:[[@LINE+11]]:3: remark: cached 'a[r * 1000 + j]', 'b[r * 1000 + j]' in shared memory for the loops at [[@LINE+13]]:3, [[@LINE+15]]:3: rows of up to 1008 elements (4032 bytes), copied as 16-byte vectors; '1000' above 1008 or a row not 16-byte aligned takes the original loops [-Rpass=shared-cache]
// CHECK-LABEL: __global__ void add_three(
// CHECK:        __shared__ __align__(16) __half kopt_row_a[1008];
// CHECK-NEXT:   __shared__ __align__(16) __half kopt_row_b[1008];
// CHECK-NEXT:   const bool kopt_shared = 1000 <= 1008 &&
// CHECK-NEXT:       reinterpret_cast<unsigned long long>(a + (r * 1000)) % 16 == 0 &&
// CHECK-NEXT:       reinterpret_cast<unsigned long long>(b + (r * 1000)) % 16 == 0;
__global__ void add_three(const __half *__restrict__ a,
                          const __half *__restrict__ b, float *out) {
  const int r = blockIdx.x;
  float s = 0.0f;
  for (int j = threadIdx.x; j < 1000; j += blockDim.x)
    s += __half2float(a[r * 1000 + j]) + __half2float(b[r * 1000 + j]);
  for (int j = threadIdx.x; j < 1000; j += blockDim.x)
    out[r * 1000 + j] = __half2float(a[r * 1000 + j]) * s;
  for (int j = threadIdx.x; j < 1000; j += blockDim.x)
    out[r * 1000 + j] += __half2float(b[r * 1000 + j]);
}

// f32 rows are left to register-cache unless narrow-only=false.
// REMARK-DAG: shared-cache.cu:[[@LINE+5]]:3: remark: row not cached in shared memory: 'x' has 4-byte elements: register-cache's loads are as wide (narrow-only=false caches them here too) [-Rpass-missed=shared-cache]
// WIDE-DAG: shared-cache.cu:[[@LINE+4]]:3: remark: cached 'x[r * n + j]' in shared memory for the loop at [[@LINE+6]]:3: rows of up to 2048 elements (8192 bytes), copied as 16-byte vectors; 'n' above 2048 or a row not 16-byte aligned takes the original loops [-Rpass=shared-cache]
__global__ void scale_f32(const float *__restrict__ x, float *out, int n) {
  const int r = blockIdx.x;
  float m = 0.0f;
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    m = fmaxf(m, x[r * n + j]);
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    out[r * n + j] = x[r * n + j] / m;
}

// Refused: x may change between the loops (not __restrict__).
// REMARK-DAG: shared-cache.cu:[[@LINE+7]]:48: remark: row not cached in shared memory: 'x[r * n + j]' is read again at [[@LINE+7]]:48, but 'x' is not __restrict__: a store through another pointer may change its elements between the loops [-Rpass-missed=shared-cache]
__global__ void not_restrict(const __half *x, __half *out, int n) {
  const int r = blockIdx.x;
  float s = 0.0f;
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    s += __half2float(x[r * n + j]);
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    out[r * n + j] = __float2half(__half2float(x[r * n + j]) - s);
}

// Refused: the row differs from thread to thread (threadIdx.y).
// REMARK-DAG: shared-cache.cu:[[@LINE+4]]:3: remark: row not cached in shared memory: 'x[threadIdx.y * n + j]' is not 'x[off + j]' with an offset the same for every thread [-Rpass-missed=shared-cache]
__global__ void per_thread_row(const __half *__restrict__ x,
                               __half *__restrict__ out, int n) {
  float s = 0.0f;
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    s += __half2float(x[threadIdx.y * n + j]);
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    out[threadIdx.y * n + j] = __float2half(__half2float(x[threadIdx.y * n + j]) - s);
}

// Refused: the loops run in only some threads (the copy adds a barrier).
// REMARK-DAG: shared-cache.cu:[[@LINE+6]]:5: remark: row not cached in shared memory: {{.*}}(the copy adds a barrier) [-Rpass-missed=shared-cache]
__global__ void divergent(const __half *__restrict__ x,
                          __half *__restrict__ out, int n) {
  const int r = blockIdx.x;
  float s = 0.0f;
  if (threadIdx.x < 64) {
    for (int j = threadIdx.x; j < n; j += blockDim.x)
      s += __half2float(x[r * n + j]);
    for (int j = threadIdx.x; j < n; j += blockDim.x)
      out[r * n + j] = __float2half(__half2float(x[r * n + j]) - s);
  }
}

// Refused: a loop encloses the loops (its next round's copy could
// overwrite the cache while other threads still read it).
// REMARK-DAG: shared-cache.cu:[[@LINE+6]]:5: remark: row not cached in shared memory: the first loop is inside 'for (int p = 0; p < rounds; ++p){{.*}}: threads may not all reach it (the copy adds a barrier) [-Rpass-missed=shared-cache]
__global__ void in_a_loop(const __half *__restrict__ x,
                          __half *__restrict__ out, int rounds, int n) {
  const int r = blockIdx.x;
  for (int p = 0; p < rounds; ++p) {
    float s = 0.0f;
    for (int j = threadIdx.x; j < n; j += blockDim.x)
      s += __half2float(x[r * n + j]);
    for (int j = threadIdx.x; j < n; j += blockDim.x)
      out[r * n + j] = __float2half(__half2float(x[r * n + j]) - s * p);
  }
}

// Refused: 40000 bytes of shared memory already; 16384 more exceed 48 KiB.
// REMARK-DAG: shared-cache.cu:[[@LINE+7]]:3: remark: row not cached in shared memory: the kernel's 40000 bytes of shared memory and the cache's 16384 exceed 49152 (lower max-bytes) [-Rpass-missed=shared-cache]
__global__ void big_shared(const __half *__restrict__ x,
                           __half *__restrict__ out, int n) {
  __shared__ float scratch[10000];
  const int r = blockIdx.x;
  scratch[threadIdx.x] = 0.0f;
  float s = 0.0f;
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    s += __half2float(x[r * n + j]);
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    out[r * n + j] = __float2half(__half2float(x[r * n + j]) - s + scratch[0]);
}

// Refused: a launch passes dynamic shared memory.
// REMARK-DAG: shared-cache.cu:[[@LINE+6]]:3: remark: row not cached in shared memory: the launch at [[@LINE+30]]:3 passes dynamic shared memory ('bytes') [-Rpass-missed=shared-cache]
__global__ void dynamic_shared(const __half *__restrict__ x,
                               __half *__restrict__ out, int n) {
  extern __shared__ float extra[];
  const int r = blockIdx.x;
  float s = 0.0f;
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    s += __half2float(x[r * n + j]);
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    out[r * n + j] = __float2half(__half2float(x[r * n + j]) - s + extra[0]);
}

// A template, cached as its one instantiation (__half) is.
// REMARK-DAG: shared-cache.cu:[[@LINE+5]]:3: remark: cached 'x[r * n + j]' in shared memory for the loop at [[@LINE+7]]:3: rows of up to 8192 elements (16384 bytes), copied as 16-byte vectors; 'n' above 8192 or a row not 16-byte aligned takes the original loops [-Rpass=shared-cache]
template <typename T>
__global__ void templated(const T *__restrict__ x, T *__restrict__ out, int n) {
  const int r = blockIdx.x;
  float s = 0.0f;
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    s += float(x[r * n + j]);
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    out[r * n + j] = T(float(x[r * n + j]) - s);
}

// BADBYTES: remark: row not cached in shared memory: max-bytes=100 is not a multiple of 16 between 16 and 49152

void launch(const __nv_bfloat16 *x, const __nv_bfloat16 *w,
            __nv_bfloat16 *out, const __half *h, __half *ho, float *f,
            int rows, int n, size_t bytes) {
  rmsnorm<<<rows, 256>>>(x, w, out, n, 1e-6f);
  dynamic_shared<<<rows, 256, bytes>>>(h, ho, n);
  templated<__half><<<rows, 256>>>(h, ho, n);
}
