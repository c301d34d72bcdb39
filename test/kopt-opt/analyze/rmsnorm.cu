// --analyze prints KernelInfo: parameters, loops, accesses with their index
// class, barriers and phases, shared arrays, re-reads and launch sites.
// RUN: kopt-opt --analyze %s | FileCheck %s
// REQUIRES: filecheck
#include <cuda_bf16.h>

__global__ void __launch_bounds__(256)
rmsnorm(const __nv_bfloat16 *__restrict__ x, const __nv_bfloat16 *w,
        __nv_bfloat16 *out, int hidden, float eps) {
  __shared__ float partial[256];
  const int row = blockIdx.x;
  float sum = 0.0f;
  for (int j = threadIdx.x; j < hidden; j += blockDim.x) {
    float v = __bfloat162float(x[row * hidden + j]);
    sum += v * v;
  }
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (int s = 128; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  const float inv = rsqrtf(partial[0] / hidden + eps);
  for (int j = threadIdx.x; j < hidden; j += blockDim.x)
    out[row * hidden + j] = __float2bfloat16(
        __bfloat162float(x[row * hidden + j]) * inv * __bfloat162float(w[j]));
  out[threadIdx.x * 2] = out[0];
  for (int k = 0; k < 4; ++k)
    sum += __bfloat162float(x[k * 0]);
}

void launch(const __nv_bfloat16 *x, const __nv_bfloat16 *w,
            __nv_bfloat16 *out, int rows, int hidden, cudaStream_t s) {
  rmsnorm<<<rows, 256, 0, s>>>(x, w, out, hidden, 1e-6f);
}

// CHECK: "gpu_arch": "sm_90",
// CHECK: "kernels": [
// CHECK: "accesses": [
// CHECK-NEXT: {
// CHECK-NEXT: "base": "x",
// CHECK-NEXT: "class": "contiguous",
// CHECK-NEXT: "element_type": "__nv_bfloat16",
// CHECK-NEXT: "index": "row * hidden + j",
// CHECK-NEXT: "kind": "load",
// CHECK: "phase": 0,
// CHECK-NEXT: "stride": 1
// CHECK: "base": "out",
// CHECK-NEXT: "class": "contiguous",
// CHECK: "kind": "store",
// CHECK: "phase": 2,
// CHECK: "base": "w",
// CHECK-NEXT: "class": "contiguous",
// CHECK: "index": "threadIdx.x * 2",
// CHECK-NEXT: "kind": "store",
// CHECK: "stride": 2
// CHECK: "class": "uniform",
// CHECK: "index": "0",
// CHECK: "stride": 0
// CHECK: "attributes": [
// CHECK-NEXT: "global",
// CHECK-NEXT: "launch_bounds"
// CHECK: "barriers": [
// CHECK-NEXT: {
// CHECK-NEXT: "callee": "__syncthreads",
// CHECK-NEXT: "ends_phase": 0,
// CHECK: "launch_bounds": {
// CHECK-NEXT: "max_threads": 256,
// CHECK-NEXT: "min_blocks": null
// CHECK: "loops": [
// CHECK-NEXT: {
// CHECK-NEXT: "bound": "hidden",
// CHECK-NEXT: "kind": "block-stride",
// CHECK: "trip_count": null,
// CHECK-NEXT: "var": "j"
// CHECK: "kind": "other",
// CHECK: "kind": "block-stride",
// CHECK: "bound": "4",
// CHECK-NEXT: "kind": "counted",
// CHECK: "trip_count": 4,
// CHECK: "name": "rmsnorm",
// CHECK: "params": [
// CHECK-NEXT: {
// CHECK-NEXT: "const": true,
// CHECK-NEXT: "name": "x",
// CHECK-NEXT: "pointee": "__nv_bfloat16",
// CHECK-NEXT: "pointer": true,
// CHECK-NEXT: "restrict": true,
// CHECK-NEXT: "type": "const __nv_bfloat16 *__restrict"
// CHECK: "name": "w",
// CHECK: "restrict": false,
// CHECK: "name": "hidden",
// CHECK-NEXT: "pointer": false,
// CHECK-NEXT: "type": "int"
// CHECK: "phases": 3,
// CHECK: "rereads": [
// CHECK-NEXT: {
// CHECK-NEXT: "again": {
// CHECK-NEXT: "col": 26,
// CHECK-NEXT: "line": 27
// CHECK-NEXT: },
// CHECK-NEXT: "again_phase": 2,
// CHECK-NEXT: "base": "x",
// CHECK-NEXT: "base_written": false,
// CHECK-NEXT: "first": {
// CHECK-NEXT: "col": 32,
// CHECK-NEXT: "line": 14
// CHECK-NEXT: },
// CHECK-NEXT: "first_phase": 0,
// CHECK-NEXT: "index": "row * hidden + j"
// CHECK: "shared_arrays": [
// CHECK-NEXT: {
// CHECK-NEXT: "dynamic": false,
// CHECK-NEXT: "elements": 256,
// CHECK: "name": "partial",
// CHECK-NEXT: "type": "float[256]"
// CHECK: "launch_sites": [
// CHECK-NEXT: {
// CHECK-NEXT: "block": {
// CHECK-NEXT: "dim3": false,
// CHECK-NEXT: "expr": "256",
// CHECK-NEXT: "value": 256
// CHECK-NEXT: },
// CHECK-NEXT: "caller": "launch",
// CHECK-NEXT: "grid": {
// CHECK-NEXT: "dim3": false,
// CHECK-NEXT: "expr": "rows",
// CHECK-NEXT: "value": null,
// CHECK-NEXT: "why_unknown": "'rows' is a parameter of the launching function"
// CHECK-NEXT: },
// CHECK-NEXT: "kernel": "rmsnorm",
// CHECK: "shared_bytes": {
// CHECK-NEXT: "dim3": false,
// CHECK-NEXT: "expr": "0",
// CHECK-NEXT: "value": 0
// CHECK-NEXT: },
// CHECK-NEXT: "stream": "s"
