// specialize-block writes the one constant block every launch in the file
// runs in place of the kernel's blockDim reads, behind a guard that traps
// on any other block; kernels whose blocks it cannot know are left alone,
// each with a missed remark that says why.
// RUN: kopt-opt %s -passes=specialize-block -Rpass=specialize-block -Rpass-missed=specialize-block -o %t.cu 2>&1 | FileCheck %s
// RUN: %strip_checks %t.cu | FileCheck %s --check-prefix=OUT
// A second run finds the guards and changes nothing.
// RUN: kopt-opt %t.cu -passes=specialize-block -Rpass-missed=specialize-block -o %t2.cu 2>&1 | FileCheck %s --check-prefix=AGAIN
// RUN: diff %t.cu %t2.cu
// block-size must not change a specialized kernel's block (its code no
// longer reads blockDim, the guard would trap).
// RUN: kopt-opt %t.cu -passes='block-size{threads=128,kernel=row_sum}' -Rpass-missed=block-size -o %t3.cu 2>&1 | FileCheck %s --check-prefix=BLOCKSIZE
// RUN: diff %t.cu %t3.cu
// RUN: %if cuda-toolkit %{ %nvcc_check %t.cu %}
// REQUIRES: filecheck

#define STRIDE blockDim.x

// Every read in the kernel becomes 256u (blockDim's type, unsigned int), the
// macro's is left; the device function is not the kernel's to change.
// CHECK-DAG: specialize-block.cu:[[@LINE+5]]:17: remark: 5 reads of blockDim written as the 256 x 1 x 1 block every launch runs (1 in macros left); the kernel traps if a launch runs another block [-Rpass=specialize-block]
// OUT-LABEL: __global__ void row_sum(
// OUT-NEXT: // kopt specialize-block: every launch in this file runs 256 x 1 x 1 threads
// OUT-NEXT: if (blockDim.x != 256u || blockDim.y != 1u || blockDim.z != 1u)
// OUT-NEXT: __trap();
__global__ void row_sum(const float *x, float *out, int cols) {
  __shared__ float partial[256];
  float s = 0.0f;
  // OUT: for (int j = threadIdx.x; j < cols; j += 256u)
  for (int j = threadIdx.x; j < cols; j += blockDim.x)
    s += x[blockIdx.x * cols + j];
  // OUT: for (int j = cols + threadIdx.x; j < 2 * cols; j += STRIDE)
  for (int j = cols + threadIdx.x; j < 2 * cols; j += STRIDE)
    s += x[j];
  partial[threadIdx.x] = s;
  __syncthreads();
  // OUT: for (int k = 256u / 2; k > 0; k >>= 1) {
  for (int k = blockDim.x / 2; k > 0; k >>= 1) {
    if (threadIdx.x < k)
      partial[threadIdx.x] += partial[threadIdx.x + k];
    __syncthreads();
  }
  // The parenthesized read is one read, parens and all.
  // OUT: if (threadIdx.x == 0 && 1u * 1u == 1)
  // OUT-NEXT: out[blockIdx.x] = partial[0] / (float)256u;
  if (threadIdx.x == 0 && blockDim.y * blockDim.z == 1)
    out[blockIdx.x] = partial[0] / (float)(blockDim.x);
}

// OUT: __device__ unsigned lanes() { return blockDim.x; }
__device__ unsigned lanes() { return blockDim.x; }

// A 2D block: each extent is written where it is read.
// CHECK-DAG: specialize-block.cu:[[@LINE+3]]:17: remark: 2 reads of blockDim written as the 32 x 8 x 1 block every launch runs; the kernel traps if a launch runs another block [-Rpass=specialize-block]
// OUT: if (blockDim.x != 32u || blockDim.y != 8u || blockDim.z != 1u)
// OUT: out[(blockIdx.y * 8u + threadIdx.y) * n + blockIdx.x * 32u + threadIdx.x] = lanes();
__global__ void tile(float *out, int n) {
  out[(blockIdx.y * blockDim.y + threadIdx.y) * n + blockIdx.x * blockDim.x + threadIdx.x] = lanes();
}

// CHECK-DAG: specialize-block.cu:[[@LINE+1]]:17: remark: blockDim not specialized: its launches run different blocks (128 x 1 x 1 and 256 x 1 x 1 at [[@LINE+16]]:3) [-Rpass-missed=specialize-block]
__global__ void two_blocks(float *x) { x[threadIdx.x] = blockDim.x; }
// CHECK-DAG: specialize-block.cu:[[@LINE+1]]:17: remark: blockDim not specialized: the block 'threads' of the launch at [[@LINE+15]]:3 is not a compile-time constant [-Rpass-missed=specialize-block]
__global__ void any_block(float *x) { x[threadIdx.x] = blockDim.x; }
// CHECK-DAG: specialize-block.cu:[[@LINE+1]]:17: remark: blockDim not specialized: 'by_pointer' is referenced other than by a <<<...>>> launch (function pointer or launch API): its blocks are unknown [-Rpass-missed=specialize-block]
__global__ void by_pointer(float *x) { x[threadIdx.x] = blockDim.x; }
// CHECK-DAG: specialize-block.cu:[[@LINE+1]]:17: remark: blockDim not specialized: no launch of 'unlaunched' in this file [-Rpass-missed=specialize-block]
__global__ void unlaunched(float *x) { x[threadIdx.x] = blockDim.x; }
// CHECK-DAG: specialize-block.cu:[[@LINE+1]]:17: remark: the kernel does not read blockDim [-Rpass-missed=specialize-block]
__global__ void no_reads(float *x) { x[threadIdx.x] = 1.0f; }

void run(const float *x, float *out, float *y, int cols, int threads) {
  row_sum<<<4, 256>>>(x, out, cols);
  row_sum<<<dim3(8), dim3(256, 1, 1)>>>(x, out, cols);
  tile<<<dim3(4, 4), dim3(32, 8)>>>(y, 128);
  two_blocks<<<1, 128>>>(y);
  two_blocks<<<1, 256>>>(y);
  any_block<<<1, threads>>>(y);
  void (*f)(float *) = by_pointer;
  (void)f;
  no_reads<<<1, 64>>>(y);
}

// AGAIN-DAG: remark: 'row_sum' is already specialized to its 256 x 1 x 1 block [-Rpass-missed=specialize-block]
// AGAIN-DAG: remark: 'tile' is already specialized to its 32 x 8 x 1 block [-Rpass-missed=specialize-block]
// BLOCKSIZE: remark: block size of 'row_sum' not changed: the kernel is specialized to its 256 x 1 x 1 block (specialize-block's guard): change its block size before specialize-block runs [-Rpass-missed=block-size]
