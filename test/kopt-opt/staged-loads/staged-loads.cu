// staged-loads: a block-stride loop's elements reach each thread through
// 16-byte loads into shared memory, in the original order.
// RUN: kopt-opt %s -passes=staged-loads -Rpass=staged-loads -Rpass-missed=staged-loads -o %t.cu 2>&1 | FileCheck %s
// RUN: FileCheck %s --check-prefix=OUT < %t.cu
// RUN: %if cuda-toolkit %{ %nvcc_check %t.cu %}
// A second run changes nothing: the staged loops are no longer of the shape.
// RUN: kopt-opt %t.cu -passes=staged-loads -o %t.again.cu
// RUN: diff %t.cu %t.again.cu
// RUN: kopt-opt %s -passes='staged-loads{vectors=4}' -o - | FileCheck %s --check-prefix=FOUR
// RUN: kopt-opt %s -passes='staged-loads{in-branches=true}' -Rpass=staged-loads -Rpass-missed=staged-loads -o %t.branch.cu 2>&1 | FileCheck %s --check-prefix=BRANCH
// RUN: %if cuda-toolkit %{ %nvcc_check %t.branch.cu %}
// RUN: kopt-opt %s -passes='staged-loads{vectors=9}' -Rpass-missed=staged-loads -o /dev/null 2>&1 | FileCheck %s --check-prefix=NINE
// REQUIRES: filecheck
#include <cuda_bf16.h>

// CHECK-DAG: staged-loads.cu:[[@LINE+5]]:3: remark: staged 'x' through shared memory as vector loads (2 per thread, blocks of 128 threads); each thread reads its own elements in the original order [-Rpass=staged-loads]
__global__ void row_sum(const __nv_bfloat16 *x, float *out, int n) {
  __shared__ float partial[128];
  const int row = blockIdx.x;
  float s = 0.0f;
  for (int j = threadIdx.x; j < n; j += blockDim.x) {
    float v = __bfloat162float(x[row * n + j]);
    s += v * (j % 2 ? 1.0f : -1.0f);
  }
  partial[threadIdx.x] = s;
  __syncthreads();
  for (int k = blockDim.x / 2; k > 0; k >>= 1) {
    if (threadIdx.x < k)
      partial[threadIdx.x] += partial[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[row] = partial[0];
}
// OUT-LABEL: __global__ void row_sum(
// OUT:      __shared__ uint4 kopt_stage_x[256];
// OUT-NEXT: const auto kopt_n = n;
// OUT-NEXT: if (reinterpret_cast<unsigned long long>(x + (row * n)) % 16 == 0 &&
// OUT-NEXT:     blockDim.x == 128) {
// OUT-NEXT:   for (int kopt_c = 0; kopt_c < kopt_n / 2048; ++kopt_c) {
// OUT-NEXT:     __syncthreads();
// OUT:          kopt_stage_x[kopt_u * 128 + threadIdx.x] =
// OUT-NEXT:         reinterpret_cast<const uint4 *>(x + (row * n))[(kopt_c * 2 + kopt_u) * 128 + threadIdx.x];
// OUT:          __syncthreads();
// OUT:          for (int kopt_k = 0; kopt_k < 16; ++kopt_k) {
// OUT-NEXT:       const int j = kopt_c * 2048 + kopt_k * 128 + threadIdx.x;
// OUT-NEXT:       float v = __bfloat162float(reinterpret_cast<const __nv_bfloat16 *>(kopt_stage_x)[kopt_k * 128 + threadIdx.x]);
// OUT:        for (int j = kopt_n / 2048 * 2048 + threadIdx.x; j < kopt_n; j += blockDim.x) {
// OUT:      } else {
// OUT-NEXT:   for (int j = threadIdx.x; j < n; j += blockDim.x) {
// FOUR: __shared__ uint4 kopt_stage_x[512];
// FOUR: for (int kopt_c = 0; kopt_c < kopt_n / 4096; ++kopt_c) {
// NINE: remark: block-stride loop not staged: vectors=9 is not between 1 and 8

// Two pointers of different widths: a float and a double each get a stage.
// CHECK-DAG: staged-loads.cu:[[@LINE+3]]:3: remark: staged 'a', 'b' through shared memory as vector loads (2 per thread, blocks of 64 threads)
__global__ void dot(const float *a, const double *b, double *out, int n) {
  double s = 0.0;
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    s += a[j] * b[j];
  if (threadIdx.x == 0)
    out[blockIdx.x] = s;
}
// OUT-LABEL: __global__ void dot(
// OUT: __shared__ uint2 kopt_stage_a[128];
// OUT: __shared__ uint4 kopt_stage_b[128];

// The loop writes its own elements back after reading them: the reads are
// staged, the stores stay element-wise (each thread stores its element
// after the chunk's loads, which read no other chunk).
// CHECK-DAG: staged-loads.cu:[[@LINE+2]]:3: remark: staged 'x' through shared memory as vector loads (2 per thread, blocks of 256 threads); each thread reads its own elements in the original order; its stores to 'x' stay element-wise [-Rpass=staged-loads]
__global__ void scale(float *__restrict__ x, int n) {
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    x[j] = 2.0f * x[j];
}
// OUT-LABEL: __global__ void scale(
// OUT: __shared__ uint4 kopt_stage_x[512];
// OUT: const int j = kopt_c * 2048 + kopt_k * 256 + threadIdx.x;
// OUT-NEXT: x[j] = 2.0f * reinterpret_cast<const float *>(kopt_stage_x)[kopt_k * 256 + threadIdx.x];

// A residual add with a sum of squares (add_rmsnorm_fp4quant's first
// loop): x and the old residual are staged, the new residual is stored.
// CHECK-DAG: staged-loads.cu:[[@LINE+6]]:3: remark: staged 'x', 'res' through shared memory as vector loads (2 per thread, blocks of 128 threads); each thread reads its own elements in the original order; its stores to 'res' stay element-wise [-Rpass=staged-loads]
__global__ void add_sumsq(const __nv_bfloat16 *__restrict__ x,
                          __nv_bfloat16 *__restrict__ res, float *out,
                          int n) {
  const int row = blockIdx.x;
  float s = 0.0f;
  for (int j = threadIdx.x; j < n; j += blockDim.x) {
    const int i = row * n + j;
    __nv_bfloat16 r = __float2bfloat16(__bfloat162float(x[i]) +
                                       __bfloat162float(res[i]));
    res[i] = r;
    float v = __bfloat162float(r);
    s += v * v;
  }
  if (threadIdx.x == 0)
    out[row] = s;
}
// OUT-LABEL: __global__ void add_sumsq(
// OUT: __shared__ uint4 kopt_stage_x[256];
// OUT-NEXT: __shared__ uint4 kopt_stage_res[256];
// OUT: res[i] = r;

// The same through plain pointers: staging x and res moves their loads
// ahead of the stores to res and copy, which is right only where those
// ranges do not overlap: checked at run time, the original loop runs
// otherwise (test/kopt-opt/gpu/disjoint-ranges.test runs it).
// CHECK-DAG: staged-loads.cu:[[@LINE+3]]:3: remark: staged 'x', 'res' through shared memory as vector loads (2 per thread, blocks of 128 threads); each thread reads its own elements in the original order; its stores to 'res', 'copy' stay element-wise; where 'res' overlaps 'x' other than in place or 'res' overlaps 'copy' or 'copy' overlaps 'x' other than in place the original loop runs (checked at run time) [-Rpass=staged-loads]
__global__ void add_copy(const float *x, float *res, float *copy, int n) {
  float s = 0.0f;
  for (int j = threadIdx.x; j < n; j += blockDim.x) {
    float r = x[j] + res[j];
    res[j] = r;
    copy[j] = r;
    s += r;
  }
  copy[n + threadIdx.x] = s;
}
// OUT-LABEL: __global__ void add_copy(
// OUT: // thread then takes its own elements in the original order.
// OUT-NEXT: // The original loop runs where a stored range overlaps a loaded one.
// OUT: reinterpret_cast<unsigned long long>(res) % 16 == 0 &&
// OUT-NEXT: (reinterpret_cast<unsigned long long>(res) + kopt_n * 4ull <= reinterpret_cast<unsigned long long>(x) ||
// OUT-NEXT: reinterpret_cast<unsigned long long>(x) + kopt_n * 4ull <= reinterpret_cast<unsigned long long>(res) ||
// OUT-NEXT: reinterpret_cast<unsigned long long>(res) == reinterpret_cast<unsigned long long>(x)) &&
// OUT-NEXT: (reinterpret_cast<unsigned long long>(res) + kopt_n * 4ull <= reinterpret_cast<unsigned long long>(copy) ||
// OUT-NEXT: reinterpret_cast<unsigned long long>(copy) + kopt_n * 4ull <= reinterpret_cast<unsigned long long>(res)) &&
// OUT-NEXT: (reinterpret_cast<unsigned long long>(copy) + kopt_n * 4ull <= reinterpret_cast<unsigned long long>(x) ||
// OUT-NEXT: reinterpret_cast<unsigned long long>(x) + kopt_n * 4ull <= reinterpret_cast<unsigned long long>(copy) ||
// OUT-NEXT: reinterpret_cast<unsigned long long>(copy) == reinterpret_cast<unsigned long long>(x)) &&
// OUT-NEXT: blockDim.x == 128) {

// Two plain outputs of a __restrict__ input: their stores keep their
// order, and the staged x may not overlap them: no check.
// CHECK-DAG: staged-loads.cu:[[@LINE+2]]:3: remark: staged 'x' through shared memory as vector loads (2 per thread, blocks of 128 threads); each thread reads its own elements in the original order; its stores to 'y', 'z' stay element-wise [-Rpass=staged-loads]
__global__ void copy_twice(const float *__restrict__ x, float *y, float *z, int n) {
  for (int j = threadIdx.x; j < n; j += blockDim.x) {
    y[j] = x[j];
    z[j] = x[j];
  }
}
// OUT-LABEL: __global__ void copy_twice(
// OUT: if (reinterpret_cast<unsigned long long>(x) % 16 == 0 &&
// OUT-NEXT: blockDim.x == 128) {

// A read after the element's write in the same iteration would see the
// staged (old) value: refused.
// CHECK-DAG: staged-loads.cu:[[@LINE+4]]:3: remark: block-stride loop not staged: the read of 'x[j]' at [[@LINE+7]]:10 follows the write at [[@LINE+6]]:5: a staged element is read before the element's iteration runs [-Rpass-missed=staged-loads]
// CHECK-DAG: staged-loads.cu:[[@LINE+9]]:3: remark: block-stride loop not staged: the read of 'x[j]' at [[@LINE+11]]:17 and the write at [[@LINE+12]]:7 share a statement of the loop body, where their order is not checked: a staged element is read before the element's iteration runs [-Rpass-missed=staged-loads]
__global__ void write_then_read(float *__restrict__ x, float *out, int n) {
  float s = 0.0f;
  for (int j = threadIdx.x; j < n; j += blockDim.x) {
    float v = x[j];
    x[j] = v + 1.0f;
    s += x[j];
  }
  // The same inside one statement of the body (a nested block).
  for (int j = threadIdx.x; j < n; j += blockDim.x) {
    {
      float v = x[j];
      x[j] = v + 1.0f;
      s += x[j];
    }
  }
  if (threadIdx.x == 0)
    out[0] = s;
}

// Only a compound assignment touches x: nothing is only read.
// CHECK-DAG: staged-loads.cu:[[@LINE+2]]:3: remark: block-stride loop not staged: no element-wise global access is only read: nothing to stage [-Rpass-missed=staged-loads]
__global__ void bump(float *__restrict__ x, int n) {
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    x[j] += 1.0f;
}

// A store that is not element-wise.
// CHECK-DAG: staged-loads.cu:[[@LINE+2]]:3: remark: block-stride loop not staged: the store to 'hist[{{.*}}]' is not element-wise
__global__ void histogram(const int *x, int *hist, int n) {
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    hist[x[j] & 15] += 1;
}

// An atomic may write what a later iteration reads.
// CHECK-DAG: staged-loads.cu:[[@LINE+2]]:3: remark: block-stride loop not staged: the loop calls 'atomicAdd', which may write memory; a staged element is read before the writes of the iterations before it [-Rpass-missed=staged-loads]
__global__ void atomics(const float *x, float *total, int n) {
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    atomicAdd(total, x[j]);
}

// A store through a local pointer, not as a subscript.
// CHECK-DAG: staged-loads.cu:[[@LINE+4]]:3: remark: block-stride loop not staged: the store to '*o' goes through a pointer that is neither a kernel parameter nor a local fixed to one, so kopt cannot tell which elements it may overlap [-Rpass-missed=staged-loads]
__global__ void via_local(const float *x, float *out, int n) {
  float *o = out + blockIdx.x;
  float s = 0.0f;
  for (int j = threadIdx.x; j < n; j += blockDim.x) {
    s += x[j];
    *o = s;
  }
}

// An if on a kernel parameter sends the whole block one way: staged only
// with in-branches=true.
// CHECK-DAG: staged-loads.cu:[[@LINE+5]]:5: remark: block-stride loop not staged: the loop is inside 'if (flag) {{.*}}' at [[@LINE+4]]:3: threads may not all reach it (the staging adds barriers; in-branches=true allows ifs on values the whole block shares) [-Rpass-missed=staged-loads]
// BRANCH-DAG: staged-loads.cu:[[@LINE+4]]:5: remark: staged 'x' through shared memory
__global__ void guarded(const float *x, float *out, int n, bool flag) {
  float s = 0.0f;
  if (flag)
    for (int j = threadIdx.x; j < n; j += blockDim.x)
      s += x[j];
  out[threadIdx.x] = s;
}

// Some threads skip the loop, or leave before it: the barriers would hang.
// BRANCH-DAG: staged-loads.cu:[[@LINE+4]]:5: remark: block-stride loop not staged: the loop is inside 'if (threadIdx.x < n) {{.*}}' at [[@LINE+3]]:3: threads may not all reach it (the staging adds barriers) [-Rpass-missed=staged-loads]
__global__ void per_thread_if(const float *x, float *out, int n) {
  float s = 0.0f;
  if (threadIdx.x < n)
    for (int j = threadIdx.x; j < n; j += blockDim.x)
      s += x[j];
  out[threadIdx.x] = s;
}
// BRANCH-DAG: staged-loads.cu:[[@LINE+5]]:3: remark: block-stride loop not staged: a return at [[@LINE+4]]:5 may let some threads skip the loop (the staging adds barriers) [-Rpass-missed=staged-loads]
__global__ void early_exit(const float *x, float *out, int n) {
  float s = 0.0f;
  if (x[threadIdx.x] < 0.0f)
    return;
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    s += x[j];
  out[threadIdx.x] = s;
}
// A return under an if on blockIdx.x leaves with the whole block.
// BRANCH-DAG: staged-loads.cu:[[@LINE+6]]:3: remark: staged 'x' through shared memory
__global__ void block_exit(const float *x, float *out, int n, int rows) {
  float s = 0.0f;
  const int row = blockIdx.x;
  if (row >= rows)
    return;
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    s += x[j];
  out[threadIdx.x] = s;
}

// Two block sizes: the shared buffer is sized for one.
// CHECK-DAG: staged-loads.cu:[[@LINE+3]]:3: remark: block-stride loop not staged: the launches use 2 block sizes; the shared buffer is sized for one [-Rpass-missed=staged-loads]
__global__ void two_sizes(const float *x, float *out, int n) {
  float s = 0.0f;
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    s += x[j];
  out[threadIdx.x] = s;
}

// A block size only known at run time.
// CHECK-DAG: staged-loads.cu:[[@LINE+3]]:3: remark: block-stride loop not staged: the block size 'threads' of the launch at {{[0-9]+}}:3 is not a compile-time constant [-Rpass-missed=staged-loads]
__global__ void runtime_size(const float *x, float *out, int n) {
  float s = 0.0f;
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    s += x[j];
  out[threadIdx.x] = s;
}

// Starting elsewhere than threadIdx.x.
// CHECK-DAG: staged-loads.cu:[[@LINE+3]]:3: remark: block-stride loop not staged: it is not 'for (T j = threadIdx.x; j < n; j += blockDim.x)' [-Rpass-missed=staged-loads]
__global__ void offset_start(const float *x, float *out, int n) {
  float s = 0.0f;
  for (int j = threadIdx.x + 1; j < n; j += blockDim.x)
    s += x[j];
  out[threadIdx.x] = s;
}

// Stepping by a local copy of blockDim.x.
// CHECK-DAG: staged-loads.cu:[[@LINE+4]]:3: remark: staged 'x' through shared memory as vector loads (2 per thread, blocks of 256 threads); each thread reads its own elements in the original order [-Rpass=staged-loads]
__global__ void local_step(const float *x, float *out, int n) {
  const int bs = blockDim.x;
  float s = 0.0f;
  for (int j = threadIdx.x; j < n; j += bs)
    s += x[j];
  out[threadIdx.x] = s;
}

template <typename T>
__global__ void templated(const T *x, T *out, int n) {
  T s = 0;
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    s += x[j];
  out[threadIdx.x] = s;
}
// A template is staged as its one instantiation (float) is, and pinned to it.
// CHECK-DAG: staged-loads.cu:[[@LINE-5]]:3: remark: staged 'x' through shared memory as vector loads (2 per thread, blocks of 256 threads); each thread reads its own elements in the original order [-Rpass=staged-loads]

void launch(const __nv_bfloat16 *xb, const float *x, const double *d,
            float *f, double *o, int *hist, const int *xi, int n, int threads,
            bool flag, __nv_bfloat16 *rb) {
  row_sum<<<8, 128>>>(xb, f, n);
  dot<<<1, 64>>>(x, d, o, n);
  scale<<<1, 256>>>(f, n);
  histogram<<<1, 256>>>(xi, hist, n);
  guarded<<<1, 256>>>(x, f, n, flag);
  per_thread_if<<<1, 256>>>(x, f, n);
  early_exit<<<1, 256>>>(x, f, n);
  block_exit<<<4, 256>>>(x, f, n, 3);
  two_sizes<<<1, 128>>>(x, f, n);
  two_sizes<<<1, 256>>>(x, f, n);
  runtime_size<<<1, threads>>>(x, f, n);
  offset_start<<<1, 256>>>(x, f, n);
  local_step<<<1, 256>>>(x, f, n);
  templated<float><<<1, 256>>>(x, f, n);
  atomics<<<1, 256>>>(x, f, n);
  via_local<<<4, 256>>>(x, f, n);
  add_sumsq<<<8, 128>>>(xb, rb, f, n);
  write_then_read<<<1, 128>>>(f, f, n);
  bump<<<1, 128>>>(f, n);
  add_copy<<<1, 128>>>(x, f, f + n, n);
  copy_twice<<<1, 128>>>(x, f, f + n, n);
}
