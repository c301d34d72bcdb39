// A `__shared__` array the loop only reads, element-wise, is read W elements
// at a time too: one lane reading one 2-byte element every 16 bytes hits
// the same bank as three other lanes, a 16-byte read does not. The array
// must be declared aligned to the vector (then `a[i]` needs no run-time
// check; `a[off + i]` joins the pointers' check), read in every element,
// never written in the loop and only ever subscripted in the kernel. Arrays
// that do not qualify stay scalar: shared memory needs no coalescing, so the
// loop is vectorized all the same.
// RUN: kopt-opt %s -passes=vectorize-loads -Rpass=vectorize-loads -Rpass-missed=vectorize-loads -o %t.cu 2>&1 | FileCheck %s
// RUN: %strip_checks %t.cu | FileCheck %s --check-prefix=OUT
// RUN: %if cuda-toolkit %{ %nvcc_check %t.cu %}
// REQUIRES: filecheck
#include <cuda_bf16.h>

// The shape shared-cache leaves in rmsnorm_bf16: the row is filled through
// a cast (still only subscripted), then read back once per element.
// CHECK-DAG: shared-reads.cu:[[@LINE+8]]:3: remark: vectorized the block-stride loop: 'w' as uint4 (8 x __nv_bfloat16), 'out' as uint4 (8 x __nv_bfloat16), 'row' as uint4 (8 x __nv_bfloat16) [-Rpass=vectorize-loads]
__global__ void scale_row(const __nv_bfloat16 *__restrict__ x,
                          const __nv_bfloat16 *__restrict__ w,
                          __nv_bfloat16 *__restrict__ out, int n) {
  __shared__ __align__(16) __nv_bfloat16 row[4096];
  for (int v = threadIdx.x; v < n / 8; v += blockDim.x)
    reinterpret_cast<uint4 *>(row)[v] = reinterpret_cast<const uint4 *>(x)[v];
  __syncthreads();
  for (int j = threadIdx.x; j < n; j += blockDim.x) {
    float v = __bfloat162float(row[j]);
    out[j] = __float2bfloat16(v * __bfloat162float(w[j]));
  }
}
// OUT-LABEL: void scale_row(
// OUT: if (reinterpret_cast<unsigned long long>(w) % 16 == 0 &&
// OUT-NEXT: reinterpret_cast<unsigned long long>(out) % 16 == 0) {
// OUT-NEXT: for (int kopt_v = threadIdx.x; kopt_v < kopt_n / 8; kopt_v += blockDim.x) {
// OUT-NEXT: const uint4 kopt_vec_w = reinterpret_cast<const uint4 *>(w)[kopt_v];
// OUT-NEXT: uint4 kopt_vec_out;
// OUT-NEXT: const uint4 kopt_vec_row = reinterpret_cast<const uint4 *>(row)[kopt_v];
// OUT-NEXT: #pragma unroll
// OUT-NEXT: for (int kopt_e = 0; kopt_e < 8; ++kopt_e) {
// OUT-NEXT: float v = __bfloat162float(reinterpret_cast<const __nv_bfloat16 *>(&kopt_vec_row)[kopt_e]);
// OUT-NEXT: reinterpret_cast<__nv_bfloat16 *>(&kopt_vec_out)[kopt_e] = __float2bfloat16(v * __bfloat162float(reinterpret_cast<const __nv_bfloat16 *>(&kopt_vec_w)[kopt_e]));
// OUT-NEXT: }
// OUT-NEXT: reinterpret_cast<uint4 *>(out)[kopt_v] = kopt_vec_out;
// OUT-NEXT: }
// The scalar tail and the fallback read the array as written.
// OUT: float v = __bfloat162float(row[j]);
// OUT: float v = __bfloat162float(row[j]);

// At an offset, the array's address joins the run-time alignment check.
// CHECK-DAG: shared-reads.cu:[[@LINE+6]]:3: remark: vectorized the grid-stride loop: 'y' as float4 (4 x float), 'tile' as float4 (4 x float) [-Rpass=vectorize-loads]
__global__ void add_tile(float *__restrict__ y, int n, int off) {
  __shared__ __align__(16) float tile[1024];
  for (int i = threadIdx.x; i < 1024; i += blockDim.x)
    tile[i] = i;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    y[i] += tile[off + i];
}
// OUT-LABEL: void add_tile(
// OUT: if (reinterpret_cast<unsigned long long>(y) % 16 == 0 &&
// OUT-NEXT: reinterpret_cast<unsigned long long>(tile + (off)) % 16 == 0) {
// OUT: const float4 kopt_vec_tile = reinterpret_cast<const float4 *>(tile + (off))[kopt_v];
// OUT: reinterpret_cast<float *>(&kopt_vec_y)[kopt_e] += reinterpret_cast<const float *>(&kopt_vec_tile)[kopt_e];

// Each of these arrays stays scalar; the loops are vectorized without them.
// CHECK-DAG: shared-reads.cu:[[@LINE+37]]:3: remark: vectorized the block-stride loop: 'w' as uint4 (8 x __nv_bfloat16), 'out' as uint4 (8 x __nv_bfloat16) [-Rpass=vectorize-loads]
// CHECK-DAG: shared-reads.cu:[[@LINE+42]]:3: remark: vectorized the block-stride loop: 'w' as uint4 (8 x __nv_bfloat16), 'out' as uint4 (8 x __nv_bfloat16) [-Rpass=vectorize-loads]
// CHECK-DAG: shared-reads.cu:[[@LINE+47]]:3: remark: vectorized the block-stride loop: 'w' as uint4 (8 x __nv_bfloat16), 'out' as uint4 (8 x __nv_bfloat16) [-Rpass=vectorize-loads]
// CHECK-DAG: shared-reads.cu:[[@LINE+52]]:3: remark: vectorized the block-stride loop: 'w' as uint4 (8 x __nv_bfloat16), 'out' as uint4 (8 x __nv_bfloat16) [-Rpass=vectorize-loads]
// CHECK-DAG: shared-reads.cu:[[@LINE+57]]:3: remark: vectorized the block-stride loop: 'w' as uint4 (8 x __nv_bfloat16), 'out' as uint4 (8 x __nv_bfloat16) [-Rpass=vectorize-loads]
// CHECK-DAG: shared-reads.cu:[[@LINE+62]]:3: remark: vectorized the block-stride loop: 'w' as uint4 (8 x __nv_bfloat16), 'out' as uint4 (8 x __nv_bfloat16) [-Rpass=vectorize-loads]
// OUT-LABEL: void stays_scalar(
// OUT-NOT: kopt_vec_plain
// OUT-NOT: kopt_vec_wide
// OUT-NOT: kopt_vec_written
// OUT-NOT: kopt_vec_escapes
// OUT-NOT: kopt_vec_guarded
// OUT-NOT: kopt_vec_strided
// OUT: float v = __bfloat162float(plain[j]);
// OUT: float v = wide[j];
// OUT: written[j] = w[j];
// OUT: float v = __bfloat162float(escapes[j]);
// OUT: float v = flag ? __bfloat162float(guarded[j]) : 1.0f;
// OUT: float v = __bfloat162float(strided[j]) + __bfloat162float(strided[2 * j]);
__global__ void stays_scalar(const __nv_bfloat16 *__restrict__ w,
                             __nv_bfloat16 *__restrict__ out, int n,
                             bool flag) {
  // Declared with its element's alignment only: a vector may straddle it.
  __shared__ __nv_bfloat16 plain[1024];
  // 8 floats are 32 bytes, more than a vector.
  __shared__ __align__(16) float wide[1024];
  // Written by the loop.
  __shared__ __align__(16) __nv_bfloat16 written[1024];
  // A pointer into it outlives its expression.
  __shared__ __align__(16) __nv_bfloat16 escapes[1024];
  // Read only when 'flag': a vector read could leave the array.
  __shared__ __align__(16) __nv_bfloat16 guarded[1024];
  // Also read at another index.
  __shared__ __align__(16) __nv_bfloat16 strided[2048];
  __nv_bfloat16 *p = escapes;
  p[threadIdx.x] = w[threadIdx.x];
  __syncthreads();
  for (int j = threadIdx.x; j < n; j += blockDim.x) {
    float v = __bfloat162float(plain[j]);
    out[j] = __float2bfloat16(v * __bfloat162float(w[j]));
  }
  // (each loop in its own phase: out[j] is written again)
  __syncthreads();
  for (int j = threadIdx.x; j < n; j += blockDim.x) {
    float v = wide[j];
    out[j] = __float2bfloat16(v * __bfloat162float(w[j]));
  }
  // (each loop in its own phase: out[j] is written again)
  __syncthreads();
  for (int j = threadIdx.x; j < n; j += blockDim.x) {
    written[j] = w[j];
    out[j] = __float2bfloat16(__bfloat162float(written[j]));
  }
  // (each loop in its own phase: out[j] is written again)
  __syncthreads();
  for (int j = threadIdx.x; j < n; j += blockDim.x) {
    float v = __bfloat162float(escapes[j]);
    out[j] = __float2bfloat16(v * __bfloat162float(w[j]));
  }
  // (each loop in its own phase: out[j] is written again)
  __syncthreads();
  for (int j = threadIdx.x; j < n; j += blockDim.x) {
    float v = flag ? __bfloat162float(guarded[j]) : 1.0f;
    out[j] = __float2bfloat16(v * __bfloat162float(w[j]));
  }
  // (each loop in its own phase: out[j] is written again)
  __syncthreads();
  for (int j = threadIdx.x; j < n; j += blockDim.x) {
    float v = __bfloat162float(strided[j]) + __bfloat162float(strided[2 * j]);
    out[j] = __float2bfloat16(v * __bfloat162float(w[j]));
  }
}
