// tile-matmul on the textbook 16 x 16 shared-memory tiling: each shared
// read is traced to the thread that stored it, the kernel gets a tiled copy
// and the launch picks it at run time.
// RUN: kopt-opt %s -passes=tile-matmul -Rpass=tile-matmul -Rpass-missed=tile-matmul -o %t.cu 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: %strip_checks %t.cu | FileCheck %s
// RUN: %if cuda-toolkit %{ %nvcc_check %t.cu %}
// A second run adds nothing: the copy exists.
// RUN: kopt-opt %t.cu -passes=tile-matmul -Rpass-missed=tile-matmul -o %t.again.cu 2>&1 | FileCheck %s --check-prefix=AGAIN
// RUN: diff %t.cu %t.again.cu
// Other tile sizes are parameters.
// RUN: kopt-opt %s -passes='tile-matmul{block-m=64,block-n=64,block-k=16,thread-m=4,thread-n=4}' -o - | FileCheck %s --check-prefix=SMALL
// REQUIRES: filecheck

// REMARK: shared-tiles.cu:[[@LINE+50]]:7: remark: tiled the matrix product (shared tiles of 16) into 'mm_kopt_tiled': 128 x 128 a block of 256 threads, 8 x 8 a thread, K in steps of 8; each element's products are added in the original order; the launch falls back to the original when C overlaps A or B [-Rpass=tile-matmul]
// AGAIN: remark: matrix product not tiled: 'mm_kopt_tiled' exists already
// CHECK-LABEL: __global__ void mm(
// CHECK: C[r * n + c] = s;
// CHECK: // kopt tile-matmul: 128 x 128 elements of mm's output a block, 8 x 8 a thread, K in steps of 8.
// CHECK-NEXT: __global__ void __launch_bounds__(256) mm_kopt_tiled(const float *A, const float *B, float *C, int m, int n,
// The A tile walks k (stride 1), the B tile walks the column (stride 1),
// four floats at a time where the base and the other stride are aligned,
// one at a time at the edges.
// CHECK: const bool kopt_vec_a = (unsigned long long)(A) % 16 == 0 && (long long)(k) % 4 == 0;
// CHECK-NEXT: const bool kopt_vec_b = (unsigned long long)(B) % 16 == 0 && (long long)(n) % 4 == 0;
// CHECK: if (kopt_vec_a && kopt_x < kopt_M && kopt_k + 3 < kopt_K) {
// CHECK-NEXT: const float4 kopt_v = *reinterpret_cast<const float4 *>(&A[kopt_x * (long long)(k) + kopt_k * (long long)(1)]);
// CHECK: kopt_ra[kopt_r * 4 + kopt_e] = kopt_x < kopt_M && kopt_k + kopt_e < kopt_K ? A[(kopt_x) * (long long)(k) + (kopt_k + kopt_e) * (long long)(1)] : kopt_elem(0);
// CHECK: if (kopt_vec_b && kopt_x + 3 < kopt_N && kopt_k < kopt_K) {
// CHECK: kopt_rb[kopt_r * 4 + kopt_e] = kopt_x + kopt_e < kopt_N && kopt_k < kopt_K ? B[(kopt_x + kopt_e) * (long long)(1) + (kopt_k) * (long long)(n)] : kopt_elem(0);
// CHECK: kopt_acc[kopt_m][kopt_n] += kopt_a[kopt_m] * kopt_b[kopt_n];
// The original guard and store, with its names.
// CHECK: const int r = kopt_i;
// CHECK-NEXT: const int c = kopt_j;
// CHECK-NEXT: const float s = kopt_acc[kopt_m][kopt_n];
// CHECK-NEXT: if (r < m && c < n)
// CHECK-NEXT: C[r * n + c] = s;
// CHECK: static inline bool kopt_matmul_tiles_fit(
// CHECK: void run(const float *A, const float *B, float *C, int m, int n, int k, cudaStream_t st) {
// CHECK: if (kopt_matmul_tiles_fit((m), (n), (k), 128, 128,
// CHECK-NEXT: (A), ((k)), (1), sizeof(*(A)),
// CHECK-NEXT: (B), ((n)), (1), sizeof(*(B)),
// CHECK-NEXT: (C), ((n)), (1), sizeof(*(C))))
// CHECK-NEXT: mm_kopt_tiled<<<dim3((unsigned)(((n) + 127) / 128), (unsigned)(((m) + 127) / 128)), 256, 0, st>>>(A, B, C, m, n, k);
// CHECK-NEXT: else
// CHECK-NEXT: mm<<<g, b, 0, st>>>(A, B, C, m, n, k);
// SMALL: __global__ void __launch_bounds__(256) mm_kopt_tiled(
// SMALL: __shared__ __align__(16) kopt_elem kopt_as[2][16][68];
// SMALL: mm_kopt_tiled<<<dim3((unsigned)(((n) + 63) / 64), (unsigned)(((m) + 63) / 64)), 256, 0, st>>>
#include <cuda_runtime.h>
#define T 16

__global__ void mm(const float *A, const float *B, float *C, int m, int n,
                   int k) {
  __shared__ float As[T][T], Bs[T][T];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int r = blockIdx.y * T + ty;
  const int c = blockIdx.x * T + tx;
  float s = 0;
  for (int t = 0; t < k; t += T) {
    As[ty][tx] = (r < m && t + tx < k) ? A[r * k + t + tx] : 0.0f;
    Bs[ty][tx] = (t + ty < k && c < n) ? B[(t + ty) * n + c] : 0.0f;
    __syncthreads();
    for (int i = 0; i < T; ++i)
      s += As[ty][i] * Bs[i][tx];
    __syncthreads();
  }
  if (r < m && c < n)
    C[r * n + c] = s;
}

void run(const float *A, const float *B, float *C, int m, int n, int k, cudaStream_t st) {
  dim3 b(T, T);
  dim3 g((n + T - 1) / T, (m + T - 1) / T);
  mm<<<g, b, 0, st>>>(A, B, C, m, n, k);
}
