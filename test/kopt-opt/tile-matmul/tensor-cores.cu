// tile-matmul{math=tf32} and {math=3xtf32}: the tiled copy computes the
// products with mma.sync.m16n8k8 on tf32 operands (3xtf32: each operand
// split into two tf32 parts, three products), the loads of the tiles as on
// the f32 path, and the original guard and store per accumulator. The
// remark says that rounding changes. Refused with a reason: double
// operands, block-k not a multiple of 8, an arch without tf32 tensor cores,
// a math value that is not one.
// RUN: kopt-opt %s -passes='tile-matmul{math=tf32}' -Rpass=tile-matmul -o %t-tf32.cu 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: %strip_checks %t-tf32.cu | FileCheck %s --check-prefixes=CHECK,TF32
// RUN: kopt-opt %s -passes='tile-matmul{math=3xtf32}' -o %t-3x.cu
// RUN: %strip_checks %t-3x.cu | FileCheck %s --check-prefixes=CHECK,SPLIT
// RUN: %if cuda-toolkit %{ %nvcc_check %t-tf32.cu %}
// RUN: %if cuda-toolkit %{ %nvcc_check %t-3x.cu %}
// RUN: kopt-opt %s -passes='tile-matmul{math=tf32,block-k=4}' -Rpass-missed=tile-matmul -o /dev/null 2>&1 | FileCheck %s --check-prefix=BK
// RUN: kopt-opt %s -passes='tile-matmul{math=3xtf32}' --arch=sm_75 -Rpass-missed=tile-matmul -o /dev/null 2>&1 | FileCheck %s --check-prefix=ARCH
// RUN: kopt-opt %s -passes='tile-matmul{math=bf16}' -Rpass-missed=tile-matmul -o /dev/null 2>&1 | FileCheck %s --check-prefix=VALUE
// RUN: kopt-opt %s -passes='tile-matmul{math=tf32,thread-m=16,thread-n=16}' -Rpass-missed=tile-matmul -o /dev/null 2>&1 | FileCheck %s --check-prefix=BIG
// REQUIRES: filecheck
#include <cuda_runtime.h>

// REMARK: tensor-cores.cu:[[@LINE+35]]:5: remark: tiled the matrix product (dot-product loop) into 'sgemm_kopt_tiled': 128 x 128 a block of 256 threads, K in steps of 8; products of tf32-rounded operands on tensor cores (mma.sync), added in another order (changes rounding); the launch falls back to the original when C overlaps A or B
// BK: remark: matrix product not tiled: parameters math=tf32 needs block-k to be a multiple of 8 (the k of one mma.sync.m16n8k8)
// ARCH: remark: matrix product not tiled: math=3xtf32 needs tf32 tensor cores (sm_80 or newer); the file is compiled for sm_75
// VALUE: remark: matrix product not tiled: math='bf16' is not f32, tf32 or 3xtf32
// BIG: remark: matrix product not tiled: parameters math=tf32: a warp's 128 x 64 part would need 256 accumulators a thread (128 allowed)
// CHECK-LABEL: __global__ void __launch_bounds__(256) sgemm_kopt_tiled(
// CHECK: __shared__ __align__(16) kopt_elem kopt_as[2][8][136];
// CHECK: const int kopt_wm = (kopt_warp / 4) * 64;
// CHECK-NEXT: const int kopt_wn = (kopt_warp % 4) * 32;
// CHECK-NEXT: float kopt_c[4][4][4];
// CHECK: const float kopt_v = kopt_as[kopt_cur][kopt_kk + kopt_t + (kopt_r / 2) * 4][kopt_wm + kopt_m * 16 + kopt_g + (kopt_r % 2) * 8];
// CHECK-NEXT: asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(kopt_fa[kopt_m][kopt_r]) : "f"(kopt_v));
// SPLIT-NEXT: asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(kopt_fas[kopt_m][kopt_r]) : "f"(kopt_v - __uint_as_float(kopt_fa[kopt_m][kopt_r])));
// CHECK: kopt_bs[kopt_cur][kopt_kk + kopt_t + kopt_r * 4][kopt_wn + kopt_n * 8 + kopt_g]
// SPLIT: : "r"(kopt_fas[kopt_m][0]), {{.*}} "r"(kopt_fb[kopt_n][0])
// SPLIT: : "r"(kopt_fa[kopt_m][0]), {{.*}} "r"(kopt_fbs[kopt_n][0])
// CHECK: asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
// CHECK-NEXT: : "+f"(kopt_c[kopt_m][kopt_n][0])
// CHECK-NEXT: : "r"(kopt_fa[kopt_m][0]), {{.*}} "r"(kopt_fb[kopt_n][1]));
// TF32-NOT: kopt_fas
// CHECK: const long long kopt_i = kopt_i0 + kopt_wm + kopt_m * 16 + kopt_g + (kopt_r / 2) * 8;
// CHECK-NEXT: const long long kopt_j = kopt_j0 + kopt_wn + kopt_n * 8 + kopt_t * 2 + kopt_r % 2;
// CHECK-NEXT: if (kopt_i >= kopt_M || kopt_j >= kopt_N)
// CHECK-NEXT: continue;
// CHECK-NEXT: const int row = kopt_i;
// CHECK-NEXT: const int col = kopt_j;
// CHECK-NEXT: const float acc = kopt_c[kopt_m][kopt_n][kopt_r];
// CHECK-NEXT: if (row < M && col < N)
// CHECK-NEXT: C[row * N + col] = acc;
__global__ void sgemm(const float *A, const float *B, float *C, int M, int N,
                      int K) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.0f;
  for (int k = 0; k < K; ++k)
    acc += A[row * K + k] * B[k * N + col];
  if (row < M && col < N)
    C[row * N + col] = acc;
}

// REMARK-NOT: dgemm
// DOUBLE: remark: matrix product not tiled: parameters math=tf32 needs float operands (tensor cores round them to tf32)
// RUN: kopt-opt %s -passes='tile-matmul{math=tf32}' -Rpass-missed=tile-matmul -o /dev/null 2>&1 | FileCheck %s --check-prefix=DOUBLE
__global__ void dgemm(const double *A, const double *B, double *C, int M,
                      int N, int K) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  double acc = 0;
  for (int k = 0; k < K; ++k)
    acc += A[row * K + k] * B[k * N + col];
  if (row < M && col < N)
    C[row * N + col] = acc;
}

void launch(const float *A, const float *B, float *C, const double *DA,
            const double *DB, double *DC, int M, int N, int K) {
  dim3 block(16, 16);
  dim3 grid((N + 15) / 16, (M + 15) / 16);
  sgemm<<<grid, block>>>(A, B, C, M, N, K);
  dgemm<<<grid, block>>>(DA, DB, DC, M, N, K);
}
