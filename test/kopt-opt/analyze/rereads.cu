// Re-reads: a call of a file function that waits at a barrier ends a phase
// as __syncthreads does; a re-read from a pointer the kernel writes says so
// (base_written), and reads in one phase pair up too.
// RUN: kopt-opt --analyze %s | FileCheck %s
// REQUIRES: filecheck

__device__ void waitAll() { __syncthreads(); }
__device__ void waitThroughHelper() { waitAll(); }
__device__ float twice(float v) { return 2.0f * v; }

__global__ void k(float *out, const float *in) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float a = in[i];
  waitThroughHelper();
  float b = in[i] + twice(a);
  out[i] = b;
  out[i] = out[i] + out[i];
}

// CHECK: "barriers": [
// CHECK-NEXT: {
// CHECK-NEXT: "callee": "waitThroughHelper",
// CHECK-NOT: "callee": "twice"
// CHECK: "phases": 2,
// CHECK: "rereads": [
// CHECK-NEXT: {
// CHECK-NEXT: "again": {
// CHECK-NEXT: "col": 13,
// CHECK-NEXT: "line": 15
// CHECK-NEXT: },
// CHECK-NEXT: "again_phase": 1,
// CHECK-NEXT: "base": "in",
// CHECK-NEXT: "base_written": false,
// CHECK-NEXT: "first": {
// CHECK-NEXT: "col": 13,
// CHECK-NEXT: "line": 13
// CHECK-NEXT: },
// CHECK-NEXT: "first_phase": 0,
// CHECK-NEXT: "index": "i"
// CHECK-NEXT: },
// CHECK-NEXT: {
// CHECK-NEXT: "again": {
// CHECK-NEXT: "col": 21,
// CHECK-NEXT: "line": 17
// CHECK-NEXT: },
// CHECK-NEXT: "again_phase": 1,
// CHECK-NEXT: "base": "out",
// CHECK-NEXT: "base_written": true,
// CHECK-NEXT: "first": {
// CHECK-NEXT: "col": 12,
// CHECK-NEXT: "line": 17
// CHECK-NEXT: },
// CHECK-NEXT: "first_phase": 1,
// CHECK-NEXT: "index": "i"
// CHECK-NEXT: }
// CHECK-NEXT: ],
