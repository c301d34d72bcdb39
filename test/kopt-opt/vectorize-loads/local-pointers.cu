// Row pointers as real code writes them: a local fixed at its declaration
// to a parameter plus an offset (`const float *in = x + row * n;`,
// `float *o = &y[row * n];`) and never changed is vectorized like the
// parameter, when the offset is the same for every thread of the loop (a
// block for a block-stride loop, the grid otherwise). A block-stride loop
// may start at `start + threadIdx.x` (a chunk of a row, cluster-split's
// parts): the vectors then begin at element `start`. Stores through
// pointers kopt cannot place are refused. The GPU side:
// test/kopt-opt/gpu/vectorize-local-pointers.test.
// RUN: kopt-opt %s -passes=vectorize-loads -Rpass=vectorize-loads -Rpass-missed=vectorize-loads -o %t.cu 2>&1 | FileCheck %s
// RUN: FileCheck %s --check-prefix=OUT < %t.cu
// RUN: %if cuda-toolkit %{ %nvcc_check %t.cu %}
// REQUIRES: filecheck
#include <cuda_runtime.h>

// CHECK-DAG: local-pointers.cu:[[@LINE+10]]:3: remark: vectorized the block-stride loop: 'gamma' as float4 (4 x float), 'beta' as float4 (4 x float), 'in' as float4 (4 x float), 'o' as float4 (4 x float) [-Rpass=vectorize-loads]
__global__ void normalize_rows(float *__restrict__ out,
                               const float *__restrict__ x,
                               const float *__restrict__ gamma,
                               const float *__restrict__ beta,
                               const float *__restrict__ mean,
                               const float *__restrict__ rstd, int cols) {
  const float *in = x + (long long)blockIdx.x * cols;
  float *o = &out[blockIdx.x * cols];
  float m = mean[blockIdx.x], s = rstd[blockIdx.x];
  for (int c = threadIdx.x; c < cols; c += blockDim.x)
    o[c] = (in[c] - m) * s * gamma[c] + beta[c];
}
// OUT-LABEL: __global__ void normalize_rows(
// OUT: reinterpret_cast<unsigned long long>(in) % 16 == 0 &&
// OUT-NEXT: reinterpret_cast<unsigned long long>(o) % 16 == 0) {
// OUT: const float4 kopt_vec_in = reinterpret_cast<const float4 *>(in)[kopt_v];
// OUT: reinterpret_cast<float4 *>(o)[kopt_v] = kopt_vec_o;

// Two rows of one plain pointer: the same allocation, so the stored range
// is checked against the loaded one at run time.
// CHECK-DAG: local-pointers.cu:[[@LINE+4]]:3: remark: vectorized the block-stride loop: 'src' as float4 (4 x float), 'dst' as float4 (4 x float); where 'dst' overlaps 'src' other than in place the original loop runs (checked at run time) [-Rpass=vectorize-loads]
__global__ void shift_half(float *buf, int n) {
  const float *src = buf + (long long)blockIdx.x * 2 * n;
  float *dst = buf + (long long)blockIdx.x * 2 * n + n;
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    dst[j] = src[j] * 0.5f;
}
// OUT-LABEL: __global__ void shift_half(
// OUT: (reinterpret_cast<unsigned long long>(dst) + kopt_n * 4ull <= reinterpret_cast<unsigned long long>(src) ||

// A chunk of a row: the loop starts at `lo + threadIdx.x`.
// CHECK-DAG: local-pointers.cu:[[@LINE+5]]:3: remark: vectorized the block-stride loop: 'in' as float4 (4 x float), 'o' as float4 (4 x float) [-Rpass=vectorize-loads]
__global__ void chunk_scale(const float *__restrict__ x, float *__restrict__ y,
                            int n, int chunk) {
  const float *in = x + (long long)blockIdx.y * n;
  float *o = y + (long long)blockIdx.y * n;
  for (int i = blockIdx.x * chunk + threadIdx.x; i < min(n, (blockIdx.x + 1) * chunk); i += blockDim.x)
    o[i] = 2.0f * in[i];
}
// OUT-LABEL: __global__ void chunk_scale(
// OUT: const auto kopt_n = min(n, (blockIdx.x + 1) * chunk);
// OUT-NEXT: const int kopt_lo = blockIdx.x * chunk;
// OUT-NEXT: if (kopt_lo <= kopt_n && reinterpret_cast<unsigned long long>(in + (kopt_lo)) % 16 == 0 &&
// OUT-NEXT: reinterpret_cast<unsigned long long>(o + (kopt_lo)) % 16 == 0) {
// OUT-NEXT: for (int kopt_v = threadIdx.x; kopt_v < (kopt_n - kopt_lo) / 4; kopt_v += blockDim.x) {
// OUT-NEXT: const float4 kopt_vec_in = reinterpret_cast<const float4 *>(in + (kopt_lo))[kopt_v];
// OUT: for (int i = kopt_lo + (kopt_n - kopt_lo) / 4 * 4 + threadIdx.x; i < kopt_n; i += blockDim.x)
// OUT: } else {
// OUT-NEXT: for (int i = blockIdx.x * chunk + threadIdx.x; i < min(n, (blockIdx.x + 1) * chunk); i += blockDim.x)

// A pointer that differs between threads is not a row: refused.
// CHECK-DAG: local-pointers.cu:[[@LINE+4]]:12: remark: block-stride loop not vectorized: 'p[j]' is element-wise but not a subscript of a kernel parameter or of a local fixed to one, so it would stay scalar{{.*}}
__global__ void per_thread(const float *__restrict__ x, float *__restrict__ y, int n) {
  const float *p = x + threadIdx.x;
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    y[j] = p[j];
}

// A grid-stride loop is shared by all blocks: a row set from blockIdx is
// not the same for all of its threads.
// CHECK-DAG: local-pointers.cu:[[@LINE+4]]:12: remark: grid-stride loop not vectorized: 'row[i]' is element-wise but not a subscript of a kernel parameter or of a local fixed to one{{.*}}
__global__ void grid_row(const float *__restrict__ x, float *__restrict__ y, int n) {
  const float *row = x + blockIdx.x * n;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    y[i] = row[i];
}

// A pointer changed after its declaration is not fixed.
// CHECK-DAG: local-pointers.cu:[[@LINE+5]]:12: remark: block-stride loop not vectorized: 'in[j]' is element-wise but not a subscript of a kernel parameter or of a local fixed to one{{.*}}
__global__ void moved(const float *__restrict__ x, float *__restrict__ y, int n, int skip) {
  const float *in = x;
  in += skip;
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    y[j] = in[j];
}

// A store through a pointer read from memory may land anywhere.
// CHECK-DAG: local-pointers.cu:[[@LINE+5]]:5: remark: grid-stride loop not vectorized: the store to 'dst[0]' goes through a pointer that is neither a kernel parameter nor a local fixed to one, so kopt cannot tell which elements it may overlap [-Rpass-missed=vectorize-loads]
__global__ void table_store(float *const *tables, const float *x, float *y, int n) {
  float *dst = tables[0];
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    y[i] = x[i];
    dst[0] = x[i];
  }
}

// A pointer into a __shared__ array is no parameter's row (llm.c's
// softmax_forward: `float *sumvals = &shared[warpsPerBlock];`); a store
// through it is refused like any pointer kopt cannot place.
// CHECK-DAG: local-pointers.cu:[[@LINE+5]]:5: remark: block-stride loop not vectorized: the store to 'half[0]' goes through a pointer that is neither a kernel parameter nor a local fixed to one{{.*}}
__global__ void shared_row(const float *__restrict__ x, float *__restrict__ y, int n) {
  extern __shared__ float smem[];
  float *half = &smem[32];
  for (int j = threadIdx.x; j < n; j += blockDim.x) {
    half[0] = x[j];
    y[j] = half[0];
  }
}

// A row pointer assigned again in a statement of the kernel's outermost
// block (llm.c's softmax_forward kernels reuse 'x' for their output row):
// each loop sees the value the last assignment before it left. The
// barrier lets the second loop read back what other threads stored.
// CHECK-DAG: local-pointers.cu:[[@LINE+5]]:3: remark: vectorized the block-stride loop: 'out' as float4 (4 x float), 'x' as float4 (4 x float); where 'out' overlaps 'x' other than in place the original loop runs (checked at run time) [-Rpass=vectorize-loads]
// CHECK-DAG: local-pointers.cu:[[@LINE+8]]:3: remark: vectorized the block-stride loop: 'y' as float4 (4 x float), 'x' as float4 (4 x float); where 'y' overlaps 'x' other than in place the original loop runs (checked at run time) [-Rpass=vectorize-loads]
__global__ void reused_row(float *out, const float *inp, float *y, int C) {
  int idx = blockIdx.x;
  const float *x = inp + idx * C;
  for (int i = threadIdx.x; i < C; i += blockDim.x)
    out[idx * C + i] = expf(x[i]);
  x = out + idx * C;
  __syncthreads();
  for (int i = threadIdx.x; i < C; i += blockDim.x)
    y[idx * C + i] = x[i] * 0.5f;
}
// OUT-LABEL: __global__ void reused_row(
// OUT: reinterpret_cast<const float4 *>(x)[kopt_v];
// OUT: x = out + idx * C;

// Without the barrier each thread of the original reads back the elements
// it stored itself; vectorized, they would be other threads' (llm.c's
// softmax_forward_kernel4 sums its row so; its validation failed when kopt
// vectorized the store loop alone).
// CHECK-DAG: local-pointers.cu:[[@LINE+5]]:5: remark: block-stride loop not vectorized: 'x[i]' at [[@LINE+9]]:10 reads memory the loop writes ('out[idx * C + i]') with no barrier between: the element was the same thread's in the original and would be another thread's [-Rpass-missed=vectorize-loads]
__global__ void read_back(float *out, const float *inp, float *sums, int C) {
  int idx = blockIdx.x;
  const float *x = inp + idx * C;
  for (int i = threadIdx.x; i < C; i += blockDim.x)
    out[idx * C + i] = expf(x[i]);
  x = out + idx * C;
  float s = 0.0f;
  for (int i = threadIdx.x; i < C; i += blockDim.x)
    s += x[i];
  sums[idx * blockDim.x + threadIdx.x] = s;
}

// An assignment under a condition leaves the value unknown.
// CHECK-DAG: local-pointers.cu:[[@LINE+7]]:12: remark: block-stride loop not vectorized: 'x[i]' is element-wise but not a subscript of a kernel parameter or of a local fixed to one{{.*}}
__global__ void maybe_moved(float *out, const float *inp, float *y, int C,
                            bool flip) {
  const float *x = inp + blockIdx.x * C;
  if (flip)
    x = out + blockIdx.x * C;
  for (int i = threadIdx.x; i < C; i += blockDim.x)
    y[i] = x[i];
}
