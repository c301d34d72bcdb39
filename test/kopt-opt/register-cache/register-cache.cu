// register-cache keeps elements a block-stride loop loads, and a later loop
// of the same statement list loads again, in a register array, with a
// run-time check that falls back to the original loops for long rows.
// RUN: kopt-opt %s -passes='register-cache{check-resources=false}' -Rpass=register-cache -Rpass-missed=register-cache -o %t.cu 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: %strip_checks %t.cu | FileCheck %s
// RUN: %if cuda-toolkit %{ %nvcc_check %t.cu %}
// RUN: kopt-opt %s -passes='register-cache{check-resources=false,max-elems=3}' -Rpass=register-cache -Rpass-missed=register-cache -o %t.max.cu 2>&1 | FileCheck %s --check-prefix=MAX-REMARK
// RUN: %strip_checks %t.max.cu | FileCheck %s --check-prefix=MAX
// RUN: %if cuda-toolkit %{ %nvcc_check %t.max.cu %}
// RUN: kopt-opt %s -passes='register-cache{check-resources=false,max-elems=0}' -Rpass-missed=register-cache -o /dev/null 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: kopt-opt %s --nvcc=/nonexistent/nvcc -passes=register-cache -Rpass=register-cache -Rpass-missed=register-cache -o %t.nonvcc.cu 2>&1 | FileCheck %s --check-prefix=NONVCC
// RUN: cmp %s %t.nonvcc.cu
// RUN: kopt-opt %t.cu -passes='register-cache{check-resources=false}' -o %t.again.cu
// RUN: cmp %t.cu %t.again.cu
// REQUIRES: filecheck
#include <cuda_bf16.h>

// RMSNorm: the sum of squares, a barrier and a shared-memory tree, then the
// normalized write reads x again. 256 threads per block at the launch: auto
// caches 32 registers' worth.
// REMARK-DAG: register-cache.cu:[[@LINE+49]]:3: remark: kept 'x[row * hidden + j]' in registers for the loop at [[@LINE+61]]:3: 32 elements per thread (auto: 32 registers for 256-thread blocks); 'hidden' above 32 * blockDim.x takes the original loops [-Rpass=register-cache]
// MAX-REMARK-DAG: register-cache.cu:[[@LINE+48]]:3: remark: kept 'x[row * hidden + j]' in registers for the loop at [[@LINE+60]]:3: 3 elements per thread (max-elems=3); 'hidden' above 3 * blockDim.x takes the original loops [-Rpass=register-cache]
// CHECK-LABEL: __global__ void rmsnorm(
// CHECK:        float sum = 0.0f;
// CHECK-NEXT:   __nv_bfloat16 kopt_cache_x[32];
// CHECK-NEXT:   const bool kopt_cached = hidden <= 32 * blockDim.x;
// CHECK-NEXT:   if (kopt_cached) {
// CHECK-NEXT:     #pragma unroll
// CHECK-NEXT:     for (int kopt_k = 0; kopt_k < 32; ++kopt_k) {
// CHECK-NEXT:       int j = threadIdx.x + kopt_k * blockDim.x;
// CHECK-NEXT:       if (j < hidden) {
// CHECK-NEXT:         kopt_cache_x[kopt_k] = x[row * hidden + j];
// CHECK-NEXT:         const __nv_bfloat16 &kopt_x = kopt_cache_x[kopt_k];
// CHECK-NEXT:         float v = __bfloat162float(kopt_x);
// CHECK-NEXT:         sum += v * v;
// CHECK-NEXT:       }
// CHECK-NEXT:     }
// CHECK-NEXT:   } else {
// CHECK-NEXT:     for (int j = threadIdx.x; j < hidden; j += blockDim.x) {
// CHECK-NEXT:       float v = __bfloat162float(x[row * hidden + j]);
// CHECK-NEXT:       sum += v * v;
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK:        const float rstd = rsqrtf(partial[0] / hidden + eps);
// CHECK-NEXT:   if (kopt_cached) {
// CHECK-NEXT:     #pragma unroll
// CHECK-NEXT:     for (int kopt_k = 0; kopt_k < 32; ++kopt_k) {
// CHECK-NEXT:       int j = threadIdx.x + kopt_k * blockDim.x;
// CHECK-NEXT:       if (j < hidden) {
// CHECK-NEXT:         const __nv_bfloat16 &kopt_x = kopt_cache_x[kopt_k];
// CHECK-NEXT:         float v = __bfloat162float(kopt_x);
// CHECK-NEXT:         out[row * hidden + j] = __float2bfloat16(v * rstd * __bfloat162float(w[j]));
// CHECK-NEXT:       }
// CHECK-NEXT:     }
// CHECK-NEXT:   } else {
// CHECK-NEXT:     for (int j = threadIdx.x; j < hidden; j += blockDim.x) {
// CHECK-NEXT:       float v = __bfloat162float(x[row * hidden + j]);
// CHECK-NEXT:       out[row * hidden + j] = __float2bfloat16(v * rstd * __bfloat162float(w[j]));
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// MAX: __nv_bfloat16 kopt_cache_x[3];
// MAX-NEXT: const bool kopt_cached = hidden <= 3 * blockDim.x;
// MAX: for (int kopt_k = 0; kopt_k < 3; ++kopt_k) {
__global__ void rmsnorm(const __nv_bfloat16 *__restrict__ x,
                        const __nv_bfloat16 *__restrict__ w,
                        __nv_bfloat16 *__restrict__ out, int hidden, float eps) {
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

// A kernel-side guard bounds n: 2048 / 256 threads = 8 elements per thread,
// enough for every row, fewer than the register budget.
// REMARK-DAG: register-cache.cu:[[@LINE+7]]:3: remark: kept 'x[j]' in registers for the loop at [[@LINE+8]]:3: 8 elements per thread (auto: 'n' is at most 2048 and blocks have 256 threads); 'n' above 8 * blockDim.x takes the original loops [-Rpass=register-cache]
// CHECK-LABEL: __global__ void guarded(
// CHECK: float kopt_cache_x[8];
__global__ void guarded(const float *__restrict__ x, float *__restrict__ y, int n) {
  if (n > 2048)
    return;
  float m = 0.0f;
  for (int j = threadIdx.x; j < n; j += blockDim.x) m += x[j];
  for (int j = threadIdx.x; j < n; j += blockDim.x) y[j] = x[j] - m;
}

// A constant bound and __launch_bounds__: ceil(1000 / 128) = 8. A `tid`
// local stands for threadIdx.x.
// REMARK-DAG: register-cache.cu:[[@LINE+6]]:3: remark: kept 'x[j]' in registers for the loop at [[@LINE+8]]:3: 8 elements per thread (auto: the bound is 1000 and blocks have 128 threads); '1000' above 8 * blockDim.x takes the original loops [-Rpass=register-cache]
// CHECK-LABEL: __global__ void __launch_bounds__(128) constant_bound(
// CHECK: const bool kopt_cached = 1000 <= 8 * blockDim.x;
__global__ void __launch_bounds__(128) constant_bound(const float *__restrict__ x, float *__restrict__ y) {
  const int tid = threadIdx.x;
  float m = 0.0f;
  for (int j = tid; j < 1000; j += blockDim.x)
    m = fmaxf(m, x[j]);
  for (int j = tid; j < 1000; j += blockDim.x)
    y[j] = x[j] / m;
}

// LayerNorm shape: the barriers are in a device function, a float and a
// double are cached (1 + 2 registers an element: 32 / 3 = 10 elements), and
// two later loops read them again. Reads under a branch in the later loops
// use the cache too.
__device__ float block_sum(float v, float *partial) {
  partial[threadIdx.x] = v;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  float total = partial[0];
  __syncthreads();
  return total;
}
// REMARK-DAG: register-cache.cu:[[@LINE+19]]:3: remark: kept 'x[row * cols + j]', 'd[row * cols + j]' in registers for the loops at [[@LINE+23]]:3, [[@LINE+30]]:3: 10 elements per thread (auto: 32 registers for 256-thread blocks); 'cols' above 10 * blockDim.x takes the original loops [-Rpass=register-cache]
// CHECK-LABEL: __global__ void layernorm(
// CHECK:      float kopt_cache_x[10];
// CHECK-NEXT: double kopt_cache_d[10];
// CHECK:      kopt_cache_x[kopt_k] = x[row * cols + j];
// CHECK-NEXT: const float &kopt_x = kopt_cache_x[kopt_k];
// CHECK-NEXT: kopt_cache_d[kopt_k] = d[row * cols + j];
// CHECK-NEXT: const double &kopt_d = kopt_cache_d[kopt_k];
// CHECK-NEXT: sum += kopt_x + (float)kopt_d;
// CHECK:      float t = kopt_x - mean;
// CHECK-NEXT: if (t > 0.0f)
// CHECK-NEXT:   t += (float)kopt_d;
// CHECK:      out[row * cols + j] = (kopt_x - mean) * rstd;
__global__ void layernorm(const float *__restrict__ x,
                          const double *__restrict__ d,
                          float *__restrict__ out, int cols) {
  __shared__ float partial[256];
  const int row = blockIdx.x;
  float sum = 0.0f;
  for (int j = threadIdx.x; j < cols; j += blockDim.x)
    sum += x[row * cols + j] + (float)d[row * cols + j];
  const float mean = block_sum(sum, partial) / cols;
  float sq = 0.0f;
  for (int j = threadIdx.x; j < cols; j += blockDim.x) {
    float t = x[row * cols + j] - mean;
    if (t > 0.0f)
      t += (float)d[row * cols + j];
    sq += t * t;
  }
  const float rstd = rsqrtf(block_sum(sq, partial) / cols + 1e-5f);
  for (int j = threadIdx.x; j < cols; j += blockDim.x)
    out[row * cols + j] = (x[row * cols + j] - mean) * rstd;
}

// REMARK-DAG: register-cache.cu:[[@LINE+1]]:17: remark: registers not used as a cache: no global element read by a loop is read again by a later loop of the same compound statement [-Rpass-missed=register-cache]
__global__ void no_reread(const float *__restrict__ x, float *__restrict__ y, int n) {
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    y[j] = x[j];
  __syncthreads();
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    y[j] += x[j + 1];
}

// REMARK-DAG: register-cache.cu:[[@LINE+6]]:12: remark: registers not used as a cache: 'x[j]' is read again at [[@LINE+6]]:12, but 'x' is written (at [[@LINE+6]]:5) [-Rpass-missed=register-cache]
__global__ void written(float *__restrict__ x, int n) {
  float m = 0.0f;
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    m += x[j];
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    x[j] = x[j] - m;
}

// Without __restrict__, y may overlap x: y[j] written by this thread can be
// x[j + blockDim.x], which it reads in its next iteration.
// REMARK-DAG: register-cache.cu:[[@LINE+6]]:12: remark: registers not used as a cache: 'x[j]' is read again at [[@LINE+6]]:12, but 'x' is not __restrict__: a store through another pointer may change its elements between the loops [-Rpass-missed=register-cache]
__global__ void not_restrict(const float *x, float *y, int n) {
  float m = 0.0f;
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    m += x[j];
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    y[j] = x[j] - m;
}

__device__ float first(const float *p) { return p[0]; }
// REMARK-DAG: register-cache.cu:[[@LINE+6]]:12: remark: registers not used as a cache: 'x[j]' is read again at [[@LINE+6]]:12, but 'x' is used other than by reading 'x[...]' [-Rpass-missed=register-cache]
__global__ void escapes(const float *__restrict__ x, float *__restrict__ y, int n) {
  float m = first(x);
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    m += x[j];
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    y[j] = x[j] - m;
}

// REMARK-DAG: register-cache.cu:[[@LINE+6]]:12: remark: registers not used as a cache: 'x[j]' is read again at [[@LINE+6]]:12, but the loops at [[@LINE+3]]:3 and [[@LINE+5]]:3 have different bounds [-Rpass-missed=register-cache]
__global__ void different_bounds(const float *__restrict__ x, float *__restrict__ y, int n, int m) {
  float s = 0.0f;
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    s += x[j];
  for (int j = threadIdx.x; j < m; j += blockDim.x)
    y[j] = x[j] - s;
}

// REMARK-DAG: register-cache.cu:[[@LINE+7]]:12: remark: registers not used as a cache: 'x[j]' is read again at [[@LINE+7]]:12, but the loop at [[@LINE+4]]:3 does not start at threadIdx.x (each thread runs it whole: serial-loops=true caches such loops) [-Rpass-missed=register-cache]
// REMARK-DAG: register-cache.cu:[[@LINE+8]]:13: remark: registers not used as a cache: 'x[j]' is read again at [[@LINE+8]]:13, but the loop at [[@LINE+7]]:3 does not step by blockDim.x (or a constant or parameter every launch's block size equals) [-Rpass-missed=register-cache]
__global__ void shapes(const float *__restrict__ x, float *__restrict__ y, int n) {
  float s = 0.0f;
  for (int j = 0; j < n; j++)
    s += x[j];
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    y[j] = x[j] - s;
  for (int j = threadIdx.x; j < n; j += 2 * blockDim.x)
    y[j] += x[j];
}

// REMARK-DAG: register-cache.cu:[[@LINE+6]]:12: remark: registers not used as a cache: 'x[j]' is read again at [[@LINE+6]]:12, but the loop at [[@LINE+3]]:3 does not load it on every iteration [-Rpass-missed=register-cache]
__global__ void conditional(const float *__restrict__ x, float *__restrict__ y, int n) {
  float s = 0.0f;
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    s += j % 2 ? x[j] : 0.0f;
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    y[j] = x[j] - s;
}

// REMARK-DAG: register-cache.cu:[[@LINE+8]]:12: remark: registers not used as a cache: 'x[j]' is read again at [[@LINE+8]]:12, but the loop at [[@LINE+3]]:3 contains a barrier at [[@LINE+5]]:5 [-Rpass-missed=register-cache]
__global__ void barrier_inside(const float *__restrict__ x, float *__restrict__ y, int n) {
  float s = 0.0f;
  for (int j = threadIdx.x; j < n; j += blockDim.x) {
    s += x[j];
    __syncthreads();
  }
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    y[j] = x[j] - s;
}

// REMARK-DAG: register-cache.cu:[[@LINE+6]]:12: remark: registers not used as a cache: 'x[j]' is read again at [[@LINE+6]]:12, but the loop at [[@LINE+5]]:3 contains a break at [[@LINE+8]]:7 [-Rpass-missed=register-cache]
__global__ void early_exit(const float *__restrict__ x, float *__restrict__ y, int n) {
  float s = 0.0f;
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    s += x[j];
  for (int j = threadIdx.x; j < n; j += blockDim.x) {
    y[j] = x[j] - s;
    if (y[j] > 0.0f)
      break;
  }
}

// REMARK-DAG: register-cache.cu:[[@LINE+8]]:12: remark: registers not used as a cache: 'x[off + j]' is read again at [[@LINE+8]]:12, but its index uses 'off', which is not a local scalar that is only read [-Rpass-missed=register-cache]
__global__ void moving_index(const float *__restrict__ x, float *__restrict__ y, int n) {
  int off = blockIdx.x * n;
  float s = 0.0f;
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    s += x[off + j];
  off = 0;
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    y[j] = x[off + j] - s;
}

// REMARK-DAG: register-cache.cu:[[@LINE+6]]:12: remark: registers not used as a cache: 'x[j]' is read again at [[@LINE+6]]:12, but the loop at [[@LINE+5]]:3 compares with '<=': not handled [-Rpass-missed=register-cache]
__global__ void inclusive(const float *__restrict__ x, float *__restrict__ y, int n) {
  float s = 0.0f;
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    s += x[j];
  for (int j = threadIdx.x; j <= n; j += blockDim.x)
    y[j] = x[j] - s;
}

// REMARK-DAG: register-cache.cu:[[@LINE+6]]:12: remark: registers not used as a cache: 'x[j]' is read again at [[@LINE+6]]:12, but the loop at [[@LINE+3]]:3 has an index narrower than 32 bits [-Rpass-missed=register-cache]
__global__ void narrow(const float *__restrict__ x, float *__restrict__ y, short n) {
  float s = 0.0f;
  for (short j = threadIdx.x; j < n; j += blockDim.x)
    s += x[j];
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    y[j] = x[j] - s;
}

// REMARK-DAG: register-cache.cu:[[@LINE+7]]:12: remark: registers not used as a cache: 'x[j]' is read again at [[@LINE+7]]:12, but the loop at [[@LINE+6]]:3 has a loop pragma [-Rpass-missed=register-cache]
__global__ void hinted(const float *__restrict__ x, float *__restrict__ y, int n) {
  float s = 0.0f;
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    s += x[j];
#pragma unroll 2
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    y[j] = x[j] - s;
}

// The launch's block size is a run-time value: auto cannot size the cache,
// an explicit max-elems can (the run-time check keeps it correct).
// REMARK-DAG: register-cache.cu:[[@LINE+5]]:3: remark: registers not used as a cache: the block size is not known (no __launch_bounds__ and no one constant block size at the launch sites): give max-elems [-Rpass-missed=register-cache]
// MAX-REMARK-DAG: register-cache.cu:[[@LINE+4]]:3: remark: kept 'x[j]' in registers for the loop at [[@LINE+6]]:3: 3 elements per thread (max-elems=3); 'n' above 3 * blockDim.x takes the original loops [-Rpass=register-cache]
// MAX-LABEL: __global__ void unknown_block(
__global__ void unknown_block(const float *__restrict__ x, float *__restrict__ y, int n) {
  float s = 0.0f;
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    s += x[j];
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    y[j] = x[j] - s;
}

// A template kernel: decided in its one instantiation (templ<float>), the
// cache spelled with T and the template pinned to float.
// CHECK-LABEL: __global__ void templ(
// CHECK-NEXT:    static_assert((__is_same(T, float)),
// CHECK:         T kopt_cache_x[32];
// CHECK:         const T &kopt_x = kopt_cache_x[kopt_k];
// REMARK-DAG: register-cache.cu:[[@LINE+4]]:3: remark: kept 'x[j]' in registers for the loop at [[@LINE+6]]:3: 32 elements per thread
template <typename T>
__global__ void templ(const T *__restrict__ x, T *__restrict__ y, int n) {
  T s = 0;
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    s += x[j];
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    y[j] = x[j] - s;
}

// A local pointer into 'x' that is dereferenced (a row pointer, but not
// read through 'p[...]' only).
// REMARK-DAG: register-cache.cu:[[@LINE+7]]:12: remark: registers not used as a cache: 'x[j]' is read again at [[@LINE+7]]:12, but 'p' is used other than by reading 'p[...]' or declaring a row pointer [-Rpass-missed=register-cache]
__global__ void address_taken(const float *__restrict__ x, float *__restrict__ y, int n) {
  const float *p = &x[1];
  float s = 0.0f;
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    s += x[j];
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    y[j] = x[j] - s + *p;
}

#define LOAD(p, i) p[i]
// REMARK-DAG: register-cache.cu:[[@LINE+7]]:12: remark: registers not used as a cache: 'x[j]' is read again at [[@LINE+7]]:12, but its load at [[@LINE+4]]:10 is written in a macro [-Rpass-missed=register-cache]
__global__ void macro_load(const float *__restrict__ x, float *__restrict__ y, int n) {
  float s = 0.0f;
  for (int j = threadIdx.x; j < n; j += blockDim.x) {
    s += LOAD(x, j);
  }
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    y[j] = x[j] - s;
}

// Loops nested in a branch, with an `unsigned` index and a local bound.
// REMARK-DAG: register-cache.cu:[[@LINE+8]]:5: remark: kept 'x[j]' in registers for the loop at [[@LINE+11]]:5: 32 elements per thread
// CHECK-LABEL: __global__ void nested(
// CHECK:      if (kopt_cached) {
// CHECK:          unsigned int j = threadIdx.x + kopt_k * blockDim.x;
__global__ void nested(const float *__restrict__ x, float *__restrict__ y, int n) {
  const unsigned len = n / 2;
  if (blockIdx.x == 0) {
    float s = 0.0f;
    for (unsigned j = threadIdx.x; j < len; j += blockDim.x)
      s += x[j];
    __syncthreads();
    for (unsigned j = threadIdx.x; j < len; j += blockDim.x)
      y[j] = x[j] - s;
  }
}

// ZERO: remark: registers not used as a cache: max-elems=0 is not in 1..1024 [-Rpass-missed=register-cache]
// NONVCC-DAG: register-cache.cu:{{[0-9]+}}:17: remark: registers not used as a cache: cannot check for spills: no nvcc at '/nonexistent/nvcc' (check-resources=false skips the check) [-Rpass-missed=register-cache]
// NONVCC-NOT: remark: kept

void launch(const __nv_bfloat16 *x, const __nv_bfloat16 *w, __nv_bfloat16 *out,
            float *f, double *d, float *g, int rows, int n, int block) {
  rmsnorm<<<rows, 256>>>(x, w, out, n, 1e-6f);
  guarded<<<1, 256>>>(f, g, n);
  constant_bound<<<1, 128>>>(f, g);
  layernorm<<<rows, 256>>>(f, d, g, n);
  no_reread<<<1, 256>>>(f, g, n);
  written<<<1, 256>>>(g, n);
  not_restrict<<<1, 256>>>(f, g, n);
  escapes<<<1, 256>>>(f, g, n);
  different_bounds<<<1, 256>>>(f, g, n, n);
  shapes<<<1, 256>>>(f, g, n);
  conditional<<<1, 256>>>(f, g, n);
  barrier_inside<<<1, 256>>>(f, g, n);
  early_exit<<<1, 256>>>(f, g, n);
  moving_index<<<1, 256>>>(f, g, n);
  inclusive<<<1, 256>>>(f, g, n);
  narrow<<<1, 256>>>(f, g, (short)n);
  hinted<<<1, 256>>>(f, g, n);
  unknown_block<<<1, block>>>(f, g, n);
  templ<<<1, 256>>>(f, g, n);
  address_taken<<<1, 256>>>(f, g, n);
  macro_load<<<1, 256>>>(f, g, n);
  nested<<<1, 256>>>(f, g, n);
}
