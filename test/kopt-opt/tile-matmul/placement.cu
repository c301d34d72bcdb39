// Where tile-matmul puts what it adds: the tiled copy beside its kernel
// (inside the kernel's namespace), the run-time check once a file at file
// scope before every launching function (not inside a namespace or
// `extern "C"`), launches naming the copy as they name the kernel.
// RUN: kopt-opt %s -passes=tile-matmul -Rpass=tile-matmul -o %t.cu 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: %strip_checks %t.cu | FileCheck %s
// RUN: %strip_checks %t.cu | grep -c 'static inline bool kopt_matmul_tiles_fit' | FileCheck %s --check-prefix=ONCE
// RUN: %if cuda-toolkit %{ %nvcc_check %t.cu %}
// A later run that tiles another product uses the check already there.
// RUN: cat %t.cu %S/Inputs/another-product.inc > %t.more.cu
// RUN: kopt-opt %t.more.cu -passes=tile-matmul -Rpass=tile-matmul -o %t.more.out.cu 2>&1 | FileCheck %s --check-prefix=MORE
// RUN: %strip_checks %t.more.out.cu | grep -c 'static inline bool kopt_matmul_tiles_fit' | FileCheck %s --check-prefix=ONCE
// RUN: %if cuda-toolkit %{ %nvcc_check %t.more.out.cu %}
// MORE: remark: tiled the matrix product (dot-product loop) into 'mm2_kopt_tiled'
// REQUIRES: filecheck
// REMARK: remark: tiled the matrix product (dot-product loop) into 'mm_kopt_tiled'
// REMARK: remark: tiled the matrix product (dot-product loop) into 'mv_kopt_tiled'
// ONCE: 1
#include <cuda_runtime.h>

// CHECK-LABEL: namespace linalg {
// CHECK: __global__ void mm(
// CHECK: __global__ void __launch_bounds__(256) mm_kopt_tiled(
// CHECK: } // namespace linalg
namespace linalg {
__global__ void mm(const float *A, const float *B, float *C, int M, int N, int K) {
  int r = blockIdx.y * blockDim.y + threadIdx.y, c = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < M && c < N) {
    float s = 0.0f;
    for (int k = 0; k < K; ++k)
      s += A[r * K + k] * B[k * N + c];
    C[r * N + c] = s;
  }
}
} // namespace linalg

__global__ void mv(const float *A, const float *B, float *C, int M, int N, int K) {
  int r = blockIdx.y * blockDim.y + threadIdx.y, c = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 0.0f;
  for (int k = 0; k < K; ++k)
    s += A[r * K + k] * B[k * N + c];
  if (r < M && c < N)
    C[r * N + c] = 2.0f * s;
}

// CHECK: static inline bool kopt_matmul_tiles_fit(
// CHECK: namespace host {
// CHECK: extern "C" void run_mm(
// CHECK: linalg::mm_kopt_tiled<<<
// CHECK: linalg::mm<<<g, b>>>(A, B, C, M, N, K);
// CHECK: extern "C" void run_mv(
// CHECK: mv_kopt_tiled<<<
namespace host {
extern "C" void run_mm(const float *A, const float *B, float *C, int M, int N, int K) {
  dim3 b(16, 16), g((N + 15) / 16, (M + 15) / 16);
  linalg::mm<<<g, b>>>(A, B, C, M, N, K);
}
}
extern "C" void run_mv(const float *A, const float *B, float *C, int M, int N, int K) {
  dim3 b(32, 4), g((N + 31) / 32, (M + 3) / 4);
  mv<<<g, b>>>(A, B, C, M, N, K);
}
