// tile-matmul on a product written as llm.c's matmul_forward_kernel1 writes
// it: the accumulator starts at the bias, the operands are read through
// local row pointers (`weight + oc * C`). The tiled copy starts each
// element's accumulator at the original initial value (evaluated where the
// element is in bounds and the guard holds, the row and the column
// redeclared) and adds the same products in the same order; the pointers'
// offsets join the indices.
// RUN: kopt-opt %S/../gpu/Inputs/matmul_bias_f32/kernel.cu -passes=tile-matmul -Rpass=tile-matmul -o %t.cu 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: FileCheck %s < %t.cu
// RUN: kopt-opt %S/../gpu/Inputs/matmul_bias_f32/kernel.cu -passes='tile-matmul{math=3xtf32}' -o %t-3x.cu
// RUN: FileCheck %s --check-prefix=MMA < %t-3x.cu
// RUN: %if cuda-toolkit %{ %nvcc_check -I%S/../gpu/Inputs/matmul_bias_f32 %t.cu %}
// RUN: %if cuda-toolkit %{ %nvcc_check -I%S/../gpu/Inputs/matmul_bias_f32 %t-3x.cu %}
// REQUIRES: filecheck
// REMARK: kernel.cu:18:7: remark: tiled the matrix product (dot-product loop) into 'matmul_bias_kopt_tiled'
// CHECK-LABEL: matmul_bias_kopt_tiled(
// CHECK: kopt_acc[kopt_m][kopt_n] = kopt_elem(0);
// CHECK-NEXT: const long long kopt_i = kopt_i0 + (kopt_m / 4) * 64 + kopt_ty * 4 + kopt_m % 4;
// CHECK-NEXT: const long long kopt_j = kopt_j0 + (kopt_n / 4) * 64 + kopt_tx * 4 + kopt_n % 4;
// CHECK-NEXT: if (kopt_i < kopt_M && kopt_j < kopt_N) {
// CHECK-NEXT: const int bt = kopt_i;
// CHECK-NEXT: const int oc = kopt_j;
// CHECK-NEXT: if (bt < BT && oc < OC)
// CHECK-NEXT: kopt_acc[kopt_m][kopt_n] = (bias != NULL) ? bias[oc] : 0.0f;
// CHECK: inp[kopt_x * (long long)(C) + kopt_k * (long long)(1)]
// CHECK: weight[kopt_x * (long long)(C) + kopt_k * (long long)(1)]
// CHECK: const float val = kopt_acc[kopt_m][kopt_n];
// CHECK-NEXT: if (bt < BT && oc < OC)
// CHECK-NEXT: out[bt * OC + oc] = val;
// MMA-LABEL: matmul_bias_kopt_tiled(
// MMA: const long long kopt_j = kopt_j0 + kopt_wn + kopt_n * 8 + kopt_t * 2 + kopt_r % 2;
// MMA-NEXT: if (kopt_i < kopt_M && kopt_j < kopt_N) {
// MMA: kopt_c[kopt_m][kopt_n][kopt_r] = (bias != NULL) ? bias[oc] : 0.0f;
