// thread-per-block: a block-per-output kernel whose threads walk a strided
// axis gets a copy that runs each block in one thread, neighbouring blocks in
// neighbouring threads; its launches pick the copy when the grid fits.
// RUN: kopt-opt %s -passes='thread-per-block{reassociate=true}' -Rpass=thread-per-block -Rpass-missed=thread-per-block -o %t.cu 2>&1 | FileCheck %s
// RUN: FileCheck %s --check-prefix=OUT < %t.cu
// RUN: FileCheck %s --check-prefix=LAUNCH < %t.cu
// RUN: %if cuda-toolkit %{ %nvcc_check %t.cu %}
// A second run changes nothing.
// RUN: kopt-opt %t.cu -passes='thread-per-block{reassociate=true}' -o %t.again.cu
// RUN: diff %t.cu %t.again.cu
// Without reassociate=true the float sums split by the block size refuse.
// RUN: kopt-opt %s -passes=thread-per-block -Rpass-missed=thread-per-block -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXACT
// RUN: kopt-opt %s -passes='thread-per-block{block=100}' -Rpass-missed=thread-per-block -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD
// After specialize-block the kernel traps on any other block: refused.
// RUN: kopt-opt %s -passes='specialize-block,thread-per-block{reassociate=true}' -Rpass-missed=thread-per-block -o /dev/null 2>&1 | FileCheck %s --check-prefix=GUARD
// GUARD: remark: block-per-output kernel not run a thread a block: the kernel is specialized to its 256 x 1 x 1 block (specialize-block's guard): run thread-per-block before specialize-block
// REQUIRES: filecheck
#include <cuda_runtime.h>

// CHECK-DAG: thread-per-block.cu:[[@LINE+2]]:17: remark: 'rms_channels_kopt_threads' runs each 256-thread block of 'rms_channels' in one thread, 256 blocks a block: neighbouring threads take neighbouring blocks; 1 launch run it when the grid fits (floating-point sums split by the block size are added in one thread's order) [-Rpass=thread-per-block]
// EXACT-DAG: thread-per-block.cu:[[@LINE+1]]:17: remark: block-per-output kernel not run a thread a block: the floating-point accumulation at {{.*}} is split across threads by the block size; another size changes the rounding (reassociate=true allows it) [-Rpass-missed=thread-per-block]
__global__ void rms_channels(const float *x, const float *w, float *y, int f,
                             int hw, float eps) {
  __shared__ float buf[256];
  const int pos = blockIdx.x;
  const long long base = (long long)(pos / hw) * f * hw + pos % hw;
  float s = 0.0f;
  for (int c = threadIdx.x; c < f; c += blockDim.x) {
    float v = x[base + (long long)c * hw];
    s += v * v;
  }
  buf[threadIdx.x] = s;
  __syncthreads();
  for (int st = blockDim.x / 2; st > 0; st /= 2) {
    if (threadIdx.x < st)
      buf[threadIdx.x] += buf[threadIdx.x + st];
    __syncthreads();
  }
  const float r = rsqrtf(buf[0] / f + eps);
  for (int c = threadIdx.x; c < f; c += blockDim.x)
    y[base + (long long)c * hw] = x[base + (long long)c * hw] * r * w[c];
}
// OUT-LABEL: __global__ void __launch_bounds__(256) rms_channels_kopt_threads(const float *x, const float *w, float *y, int f,
// OUT-NEXT:                              int hw, float eps, unsigned kopt_blocks) {
// OUT-NEXT:   // kopt thread-per-block: this thread runs block kopt_block of the original alone.
// OUT-NEXT:   const unsigned kopt_block = blockIdx.x * blockDim.x + threadIdx.x;
// OUT-NEXT:   if (kopt_block >= kopt_blocks)
// OUT-NEXT:     return;
// OUT-NEXT:   float buf[1];
// OUT-NEXT:   const int pos = kopt_block;
// OUT:        for (int c = 0u; c < f; c += 1u) {
// OUT:        buf[0u] = s;
// OUT-NEXT:   (void)0;
// OUT-NEXT:   for (int st = 1u / 2; st > 0; st /= 2) {
// OUT-NEXT:     if (0u < st)
// OUT-NEXT:       buf[0u] += buf[0u + st];
// OUT-NEXT:     (void)0;
// LAUNCH-LABEL: {{^}}extern "C" void launch(
// LAUNCH:      {{^}}    // kopt thread-per-block: each block in one thread, 256 blocks a block, when the grid fits
// LAUNCH-NEXT: {{^}}    const auto kopt_grid = (b * hw);
// LAUNCH-NEXT: {{^}}    if (kopt_grid >= 1 && kopt_grid <= 2147483647 - 256)
// LAUNCH-NEXT: {{^}}      rms_channels_kopt_threads<<<(kopt_grid + 256 - 1) / 256, 256, 0, s>>>(x, w, y, f, hw, eps, static_cast<unsigned>(kopt_grid));
// LAUNCH-NEXT: {{^}}    else
// LAUNCH-NEXT: {{^}}      rms_channels<<<kopt_grid, 256, 0, s>>>(x, w, y, f, hw, eps);

// A per-thread array sized by a macro is the thread's one slot all the same.
#define THREADS 128
// CHECK-DAG: thread-per-block.cu:[[@LINE+1]]:17: remark: 'col_mean_kopt_threads' runs each 128-thread block of 'col_mean' in one thread, 256 blocks a block
__global__ void col_mean(float *data, float *result, int rows, int cols) {
  __shared__ float temp[THREADS];
  int col = blockIdx.x;
  int tid = threadIdx.x;
  float total = 0;
  for (int r = tid; r < rows; r = r + blockDim.x)
    total = total + data[r * cols + col];
  temp[tid] = total;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s = s / 2) {
    if (tid < s)
      temp[tid] = temp[tid] + temp[tid + s];
    __syncthreads();
  }
  if (tid == 0)
    result[col] = temp[0] / rows;
}
// OUT-LABEL: __global__ void __launch_bounds__(256) col_mean_kopt_threads(
// OUT:        float temp[1];

// A max needs no reassociation; neighbouring threads already read
// neighbouring addresses: nothing to gain.
// CHECK-DAG: thread-per-block.cu:[[@LINE+1]]:17: remark: block-per-output kernel not run a thread a block: no global access is strided across the block's threads: they read neighbouring addresses already [-Rpass-missed=thread-per-block]
__global__ void row_max(const float *x, float *out, int n) {
  __shared__ float buf[256];
  float m = -1e30f;
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    m = fmaxf(m, x[(long long)blockIdx.x * n + j]);
  buf[threadIdx.x] = m;
  __syncthreads();
  for (int st = blockDim.x / 2; st > 0; st /= 2) {
    if (threadIdx.x < st)
      buf[threadIdx.x] = fmaxf(buf[threadIdx.x], buf[threadIdx.x + st]);
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = buf[0];
}

// Refusals.
// CHECK-DAG: thread-per-block.cu:[[@LINE+7]]:10: remark: block-per-output kernel not run a thread a block: '__shfl_xor_sync' works across threads [-Rpass-missed=thread-per-block]
__global__ void warp_sum(const float *x, float *out, int f, int hw) {
  const int pos = blockIdx.x;
  float s = 0.0f;
  for (int c = threadIdx.x; c < f; c += blockDim.x)
    s += x[(long long)c * hw + pos];
  for (int o = 16; o > 0; o /= 2)
    s += __shfl_xor_sync(0xffffffffu, s, o);
  if (threadIdx.x == 0)
    out[pos] = s;
}

// CHECK-DAG: thread-per-block.cu:[[@LINE+9]]:7: remark: block-per-output kernel not run a thread a block: it compares threadIdx.x with the constant 16, which one thread never reaches [-Rpass-missed=thread-per-block]
__global__ void unrolled(const float *x, float *out, int f, int hw) {
  __shared__ float buf[256];
  const int pos = blockIdx.x;
  float s = 0.0f;
  for (int c = threadIdx.x; c < f; c += blockDim.x)
    s += x[(long long)c * hw + pos];
  buf[threadIdx.x] = s;
  __syncthreads();
  if (threadIdx.x < 16)
    buf[threadIdx.x] += buf[threadIdx.x + 16];
  if (threadIdx.x == 0)
    out[pos] = buf[0];
}

// CHECK-DAG: thread-per-block.cu:[[@LINE+1]]:17: remark: block-per-output kernel not run a thread a block: blockIdx.x is combined with blockDim.x (a thread an element, not a block an output) [-Rpass-missed=thread-per-block]
__global__ void per_thread(const float *x, float *y, int n, int stride) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = x[(long long)i * stride];
}

// CHECK-DAG: thread-per-block.cu:[[@LINE+6]]:13: remark: block-per-output kernel not run a thread a block: '__syncthreads_count' counts or votes across the block [-Rpass-missed=thread-per-block]
__global__ void counts(const float *x, int *out, int f, int hw) {
  const int pos = blockIdx.x;
  int c = 0;
  for (int k = threadIdx.x; k < f; k += blockDim.x)
    c += x[(long long)k * hw + pos] > 0.0f;
  int all = __syncthreads_count(c);
  if (threadIdx.x == 0)
    out[pos] = all;
}

// CHECK-DAG: thread-per-block.cu:[[@LINE+1]]:17: remark: block-per-output kernel not run a thread a block: it reads blockIdx.y (a grid of more than one dimension): the copy runs the original's blocks along x alone [-Rpass-missed=thread-per-block]
__global__ void batched(const float *x, float *out, int f, int hw) {
  __shared__ float buf[128];
  const int b = blockIdx.y, pos = blockIdx.x;
  float m = -3.0e38f;
  for (int c = threadIdx.x; c < f; c += blockDim.x)
    m = fmaxf(m, x[((long long)b * f + c) * hw + pos]);
  buf[threadIdx.x] = m;
  __syncthreads();
  for (int st = blockDim.x / 2; st > 0; st /= 2) {
    if (threadIdx.x < st)
      buf[threadIdx.x] = fmaxf(buf[threadIdx.x], buf[threadIdx.x + st]);
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[b * hw + pos] = buf[0];
}

// BAD: remark: block-per-output kernel not run a thread a block: block=100 is not a multiple of 32 from 32 to 1024

extern "C" void launch(const float *x, const float *w, float *y, int *o,
                       int b, int f, int hw, float eps, cudaStream_t s) {
  rms_channels<<<b * hw, 256, 0, s>>>(x, w, y, f, hw, eps);
  col_mean<<<hw, THREADS>>>(y, y, b, hw);
  row_max<<<b, 256>>>(x, y, f);
  warp_sum<<<b * hw, 64>>>(x, y, f, hw);
  unrolled<<<b * hw, 256>>>(x, y, f, hw);
  per_thread<<<b, 256>>>(x, y, f, hw);
  counts<<<b * hw, 128>>>(x, o, f, hw);
  batched<<<dim3(hw, b), 128, 0, s>>>(x, y, f, hw);
}
