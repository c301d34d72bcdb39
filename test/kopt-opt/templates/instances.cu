// Template kernels are analysed as the file instantiates them: each
// instantiation is checked by the pass as a kernel of its own (its launches
// only), and the template's text is rewritten only when every instantiation
// asks for the same edits there. A template changed in place gets a
// static_assert naming the arguments that were checked; a renamed copy
// (row-reduce) keeps the template header and is launched with the same
// arguments. Templates that are instantiated nowhere, or whose
// instantiations disagree, are left as written, with a remark.
// RUN: kopt-opt %s -passes=row-reduce -Rpass=. -Rpass-missed=. -o %t.rows.cu 2>&1 | FileCheck %s --check-prefix=ROWS
// RUN: FileCheck %s --check-prefix=OUT < %t.rows.cu
// RUN: kopt-opt %s -passes=vectorize-loads -Rpass=. -Rpass-missed=. -o %t.vec.cu 2>&1 | FileCheck %s --check-prefix=VEC
// RUN: FileCheck %s --check-prefix=VOUT < %t.vec.cu
// RUN: kopt-opt %s -passes=streaming-loads -Rpass=. -Rpass-missed=. -o /dev/null 2>&1 | FileCheck %s --check-prefix=LDCS
// RUN: kopt-opt %s -passes=cluster-split,split-grid -Rpass=. -o %t.cluster.cu 2>&1 | FileCheck %s --check-prefix=CLUSTER
// RUN: FileCheck %s --check-prefix=COUT < %t.cluster.cu
// RUN: %if cuda-toolkit %{ %nvcc_check %t.cluster.cu %}
// RUN: %if cuda-toolkit %{ %nvcc_check %t.rows.cu %}
// RUN: %if cuda-toolkit %{ %nvcc_check %t.vec.cu %}
// RUN: kopt-opt --analyze %s | FileCheck %s --check-prefix=JSON
// REQUIRES: filecheck
#include <cuda_runtime.h>

// Exact integer maxima, one thread a row: both instantiations get the same
// copy, and each launch its own scaled launch.
// ROWS-DAG: instances.cu:[[@LINE+4]]:17: remark: 'row_max_kopt_rows' runs each row of 'r' on 32 threads: {{.*}}; 1 launch run it with 32x the grid [-Rpass=row-reduce]
// OUT: template <typename T, int LIMIT>
// OUT-NEXT: __global__ void row_max_kopt_rows(T *__restrict__ out,
template <typename T, int LIMIT>
__global__ void row_max(T *__restrict__ out, const T *__restrict__ in,
                        int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows)
    return;
  T m = in[(size_t)r * cols];
  for (int c = 0; c < cols; ++c)
    if (in[(size_t)r * cols + c] > m)
      m = in[(size_t)r * cols + c];
  out[r] = m < LIMIT ? m : LIMIT;
}

// One instantiation: vectorized in place, pinned to float.
// VEC-DAG: instances.cu:[[@LINE+6]]:3: remark: vectorized the grid-stride loop: 'x' as float4 {{.*}} [-Rpass=vectorize-loads]
// VOUT: __global__ void axpy(T a, const T *x, T *y, int n) {
// VOUT-NEXT: static_assert((__is_same(T, float)),
// VOUT-NEXT: "kopt rewrote 'axpy' for these template arguments only");
// VOUT: float4 kopt_vec_y;
template <typename T> __global__ void axpy(T a, const T *x, T *y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
    y[i] = a * x[i] + y[i];
}

// An explicit specialization is a kernel of its own: the template's
// instances (axpy<float>) do not include it, and the pin does not reach it.
// VEC-DAG: instances.cu:[[@LINE+5]]:3: remark: vectorized the grid-stride loop: 'x' as double2 {{.*}} [-Rpass=vectorize-loads]
// VOUT: __global__ void axpy<double>(double a, const double *x, double *y,
// VOUT-NOT: {{^ *static_assert}}
template <>
__global__ void axpy<double>(double a, const double *x, double *y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
    y[i] = a * x[i] + y[i];
}

// float and double vectorize to different carriers: not one rewrite.
// VEC-DAG: instances.cu:[[@LINE+2]]:39: remark: template kernel not rewritten: its instantiations scale<float> and scale<double> would be rewritten differently [-Rpass-missed=vectorize-loads]
// VOUT: __global__ void scale(T *y, const T *x, T a, int n) {
template <typename T> __global__ void scale(T *y, const T *x, T a, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
    y[i] = a * x[i];
}

// __ldcs has no overload for a struct: copy<Pair> refuses what copy<float>
// does, so neither is streamed; the refusal names its instantiation.
// LDCS-DAG: instances.cu:[[@LINE+6]]:12: remark: load of 'x' not streamed: {{.*}} (in copy<Pair>) [-Rpass-missed=streaming-loads]
// LDCS-DAG: instances.cu:[[@LINE+2]]:39: remark: template kernel not rewritten: its instantiations copy<float> and copy<Pair> would be rewritten differently [-Rpass-missed=streaming-loads]
struct Pair { float a, b; };
template <typename T> __global__ void copy(T *y, const T *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = x[i];
}

// A block per group, the block size a template argument: both
// instantiations share one copy (the accumulator written as T), each
// launch its own cluster launch; the file's helpers are added once.
// CLUSTER: instances.cu:[[@LINE+5]]:17: remark: 'group_max_kopt_cluster' shares each block's group among a cluster of 8 blocks: {{.*}} [-Rpass=cluster-split]
// COUT: template <int BLOCK, typename T>
// COUT-NEXT: __global__ void {{.*}}group_max_kopt_cluster(
// COUT: __shared__ T kopt_cluster_buf0[1024];
template <int BLOCK, typename T>
__global__ void group_max(const T *__restrict__ x, T *__restrict__ out,
                          long long n) {
  __shared__ T buf[BLOCK];
  const T *row = x + blockIdx.x * n;
  T m = row[0];
  for (long long i = threadIdx.x; i < n; i += blockDim.x)
    m = max(m, row[i]);
  buf[threadIdx.x] = m;
  __syncthreads();
  for (int s = BLOCK / 2; s > 0; s /= 2) {
    if (threadIdx.x < s)
      buf[threadIdx.x] = max(buf[threadIdx.x], buf[threadIdx.x + s]);
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = buf[0];
}

// CLUSTER: instances.cu:{{[0-9]+}}:17: remark: 1 launch of 'grid_scale' start 8x the blocks {{.*}} [-Rpass=split-grid]
template <typename T>
__global__ void grid_scale(T *__restrict__ y, const T *__restrict__ x, T a,
                           int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
    y[i] = a * x[i];
}

// An explicit specialization sees only its own launches: split-grid scales
// the launch of fill<double> (a grid-stride loop) and not that of
// fill<float>, an instance of the template (one element a thread).
template <typename T> __global__ void fill(T *__restrict__ y, T v, int n) {
  y[blockIdx.x * blockDim.x + threadIdx.x] = v;
}
// CLUSTER: instances.cu:{{[0-9]+}}:17: remark: 1 launch of 'fill' start 8x the blocks {{.*}} [-Rpass=split-grid]
template <>
__global__ void fill<double>(double *__restrict__ y, double v, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
    y[i] = v;
}

// ROWS-DAG: instances.cu:[[@LINE+3]]:17: remark: template kernel not rewritten: this file instantiates it nowhere (no launch or instantiation of 'unused' to analyse) [-Rpass-missed=row-reduce]
// VEC-DAG: instances.cu:[[@LINE+2]]:17: remark: template kernel not rewritten: this file instantiates it nowhere (no launch or instantiation of 'unused' to analyse) [-Rpass-missed=vectorize-loads]
template <int N>
__global__ void unused(float *y) { y[threadIdx.x] = N; }

void run(int *oi, const int *ii, long long *ol, const long long *il, float *y,
         const float *x, double *yd, const double *xd, Pair *py,
         const Pair *px, int rows, int cols, int n) {
  // OUT: row_max_kopt_rows<int, 100><<<kopt_grid * 32, 128>>>(oi, ii, rows, cols);
  // OUT: row_max<int, 100><<<kopt_grid, 128>>>(oi, ii, rows, cols);
  row_max<int, 100><<<(rows + 127) / 128, 128>>>(oi, ii, rows, cols);
  // OUT: row_max_kopt_rows<long long, 7><<<kopt_grid * 32, 256>>>(ol, il, rows, cols);
  row_max<long long, 7><<<(rows + 255) / 256, 256>>>(ol, il, rows, cols);
  axpy<<<120, 256>>>(2.0f, x, y, n);
  axpy<<<120, 256>>>(2.0, xd, yd, n);
  scale<<<120, 256>>>(y, x, 3.0f, n);
  scale<<<120, 256>>>(yd, xd, 3.0, n);
  copy<<<(n + 255) / 256, 256>>>(y, x, n);
  copy<<<(n + 255) / 256, 256>>>(py, px, n);
  // COUT: group_max_kopt_cluster<256, int><<<kopt_grid * 8, 256>>>(ii, oi, n);
  group_max<256, int><<<rows, 256>>>(ii, oi, n);
  // COUT: group_max_kopt_cluster<512, long long><<<kopt_grid * 8, 512>>>(il, ol, n);
  group_max<512, long long><<<rows, 512>>>(il, ol, n);
  // COUT: grid_scale<float><<<kopt_grid * 8, 256>>>(y, x, 2.0f, n);
  grid_scale<float><<<64, 256>>>(y, x, 2.0f, n);
  // COUT: fill<<<64, 256>>>(y, 1.0f, n);
  fill<<<64, 256>>>(y, 1.0f, n);
  // COUT: fill<<<kopt_grid * 8, 256>>>(yd, 1.0, n);
  fill<<<64, 256>>>(yd, 1.0, n);
}

// JSON: "instances": [
// JSON: "name": "row_max",
// JSON: "template_args": "<int, 100>"
// JSON: "template_args": "<long long, 7>"
// JSON: "kernel": "row_max",
// JSON: "template_args": "<int, 100>"
// JSON: "kernel": "row_max",
// JSON: "template_args": "<long long, 7>"
