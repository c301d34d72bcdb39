// coalesce stages a 2D kernel's strided store through a shared-memory tile.
// RUN: kopt-opt %s -passes=coalesce -Rpass=coalesce -Rpass-missed=coalesce -o %t.cu 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: %strip_checks %t.cu | FileCheck %s
// RUN: %if cuda-toolkit %{ %nvcc_check %t.cu %}
// A second run changes nothing: the staged kernels carry kopt_ names.
// RUN: kopt-opt %t.cu -passes=coalesce -o %t.again.cu
// RUN: diff %t.cu %t.again.cu
// REQUIRES: filecheck

// The transpose: reads contiguous along threadIdx.x, writes strided by rows.
// REMARK-DAG: coalesce.cu:[[@LINE+34]]:5: remark: strided store staged through a shared-memory tile of 2048 float: both global sides are contiguous (the original body runs when blockDim.z != 1) [-Rpass=coalesce]
// CHECK-LABEL: void transpose(
// CHECK-NEXT: // kopt coalesce: the store is staged through shared memory
// CHECK-NEXT: __shared__ float kopt_tile[2048u];
// CHECK-NEXT: const unsigned kopt_pad = blockDim.y <= 32u && 32u % blockDim.y == 0u ? 32u / blockDim.y : 1u;
// CHECK-NEXT: const unsigned kopt_pitch = blockDim.x + kopt_pad;
// CHECK-NEXT: if (blockDim.z == 1u && blockDim.y * kopt_pitch <= 2048u) {
// CHECK-NEXT: {
// CHECK-NEXT: int c = blockIdx.x * blockDim.x + threadIdx.x;
// CHECK-NEXT: int r = blockIdx.y * blockDim.y + threadIdx.y;
// CHECK-NEXT: if (r < rows && c < cols)
// CHECK-NEXT: kopt_tile[threadIdx.y * kopt_pitch + threadIdx.x] = in[r * cols + c];
// CHECK-NEXT: }
// CHECK-NEXT: __syncthreads();
// CHECK-NEXT: const unsigned kopt_t = threadIdx.y * blockDim.x + threadIdx.x;
// CHECK-NEXT: const unsigned kopt_tx = kopt_t / blockDim.y;
// CHECK-NEXT: const unsigned kopt_ty = kopt_t % blockDim.y;
// CHECK-NEXT: {
// CHECK-NEXT: int c = blockIdx.x * blockDim.x + kopt_tx;
// CHECK-NEXT: int r = blockIdx.y * blockDim.y + kopt_ty;
// CHECK-NEXT: if (r < rows && c < cols)
// CHECK-NEXT: out[c * rows + r] = kopt_tile[kopt_ty * kopt_pitch + kopt_tx];
// CHECK-NEXT: }
// CHECK-NEXT: } else {
// CHECK-NEXT: int c = blockIdx.x * blockDim.x + threadIdx.x;
// CHECK-NEXT: int r = blockIdx.y * blockDim.y + threadIdx.y;
// CHECK-NEXT: if (r < rows && c < cols)
// CHECK-NEXT: out[c * rows + r] = in[r * cols + c];
// CHECK-NEXT: }
// CHECK-NEXT: }
__global__ void transpose(const float *in, float *out, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < rows && c < cols)
    out[c * rows + r] = in[r * cols + c];
}

// A scaled permute of doubles: the offset through a local, the guard's
// braces, a toolkit function and an index computed inside the value; the
// value is computed by the thread that loads it.
// REMARK-DAG: coalesce.cu:[[@LINE+10]]:5: remark: strided store staged through a shared-memory tile of 2048 double
// CHECK-LABEL: void scaled(
// CHECK: __shared__ double kopt_tile[2048u];
// CHECK: kopt_tile[threadIdx.y * kopt_pitch + threadIdx.x] = fabs(a) * in[row * ld + col] + col;
// CHECK: size_t o = (size_t)col * n + row;
// CHECK: out[o] = kopt_tile[kopt_ty * kopt_pitch + kopt_tx];
__global__ void scaled(const double *in, double *out, double a, int n, int ld) {
  unsigned col = blockIdx.x * blockDim.x + threadIdx.x, row = blockIdx.y * blockDim.y + threadIdx.y;
  size_t o = (size_t)col * n + row;
  if (row < n && col < n) {
    out[o] = fabs(a) * in[row * ld + col] + col;
  }
}

// A copy is contiguous on both sides: nothing to do, nothing said.
// REMARK-NOT: coalesce.cu:[[@LINE+2]]
// REMARK-NOT: coalesce.cu:[[@LINE+2]]
__global__ void copy(const float *in, float *out, int cols) {
  out[(blockIdx.y * blockDim.y + threadIdx.y) * cols + blockIdx.x * blockDim.x + threadIdx.x] = in[(blockIdx.y * blockDim.y + threadIdx.y) * cols + blockIdx.x * blockDim.x + threadIdx.x];
}

// What the pass refuses, with the reason.
// REMARK-DAG: coalesce.cu:[[@LINE+5]]:3: remark: strided store not coalesced: the body has a return, goto or label [-Rpass-missed=coalesce]
__global__ void early_return(const float *in, float *out, int n) {
  int c = blockIdx.x * blockDim.x + threadIdx.x, r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r >= n || c >= n)
    return;
  out[c * n + r] = in[r * n + c];
}

// REMARK-DAG: coalesce.cu:[[@LINE+3]]:3: remark: strided store not coalesced: the store is a compound assignment (it reads the output)
__global__ void accumulate(const float *in, float *out, int n) {
  int c = blockIdx.x * blockDim.x + threadIdx.x, r = blockIdx.y * blockDim.y + threadIdx.y;
  out[c * n + r] += in[r * n + c];
}

// REMARK-DAG: coalesce.cu:[[@LINE+3]]:3: remark: strided store not coalesced: it accesses memory besides one load in the stored value and the store
__global__ void two_loads(const float *in, const float *bias, float *out, int n) {
  int c = blockIdx.x * blockDim.x + threadIdx.x, r = blockIdx.y * blockDim.y + threadIdx.y;
  out[c * n + r] = in[r * n + c] + bias[c];
}

// REMARK-DAG: coalesce.cu:[[@LINE+4]]:3: remark: strided store not coalesced: it calls 'f' (only the toolkit's side-effect-free functions may be re-run for another thread)
__device__ float f(float x) { return x * threadIdx.x; }
__global__ void calls_user(const float *in, float *out, int n) {
  int c = blockIdx.x * blockDim.x + threadIdx.x, r = blockIdx.y * blockDim.y + threadIdx.y;
  out[c * n + r] = f(in[r * n + c]);
}

// REMARK-DAG: coalesce.cu:[[@LINE+3]]:3: remark: strided store not coalesced: the body uses threadIdx.z
__global__ void uses_z(const float *in, float *out, int n) {
  int c = blockIdx.x * blockDim.x + threadIdx.x, r = blockIdx.y * blockDim.y + threadIdx.y + threadIdx.z;
  out[c * n + r] = in[r * n + c];
}

// A gather of a column reads strided too: staging would not help the load.
// REMARK-DAG: coalesce.cu:[[@LINE+3]]:3: remark: strided store not coalesced: the load is not contiguous along threadIdx.x (staging would not coalesce it)
__global__ void both_strided(const float *in, float *out, int n) {
  int c = blockIdx.x * blockDim.x + threadIdx.x, r = blockIdx.y * blockDim.y + threadIdx.y;
  out[c * n + r] = in[c * n + r];
}

// Writes strided along threadIdx.y as well (a 2-element step).
// REMARK-DAG: coalesce.cu:[[@LINE+3]]:3: remark: strided store not coalesced: the store's index does not advance by one element with threadIdx.y
__global__ void y_step_two(const float *in, float *out, int n) {
  int c = blockIdx.x * blockDim.x + threadIdx.x, r = blockIdx.y * blockDim.y + threadIdx.y;
  out[c * n + 2 * r] = in[r * n + c];
}
