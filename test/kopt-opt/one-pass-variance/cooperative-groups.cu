// one-pass-variance on cooperative groups' warp loops (llm.c's layernorm
// kernel 3): `i = warp.thread_rank(); i += warp.size()` start and step alike
// in both loops, the group a local the kernel never changes.
// RUN: kopt-opt %s -passes='one-pass-variance{reassociate=true}' -Rpass=one-pass-variance -Rpass-missed=one-pass-variance -o %t.cu 2>&1 | FileCheck %s
// RUN: FileCheck --check-prefix=OUT %s < %t.cu
// RUN: %if cuda-toolkit %{ %nvcc_check %t.cu %}
// REQUIRES: filecheck, cuda-toolkit
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

// CHECK: cooperative-groups.cu:[[@LINE+15]]:3: remark: the squared deviations of 'x[i]' from 'm' come from sums the loop at [[@LINE+10]]:3 accumulates
__global__ void warp_norm(const float *__restrict__ inp, float *out, int N,
                          int C) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  int idx = blockIdx.x * warp.meta_group_size() + warp.meta_group_rank();
  if (idx >= N)
    return;
  const float *x = inp + idx * C;
  float sum = 0.0f;
  for (int i = warp.thread_rank(); i < C; i += warp.size())
    sum += x[i];
  sum = cg::reduce(warp, sum, cg::plus<float>{});
  float m = sum / C;
  sum = 0.0f;
  for (int i = warp.thread_rank(); i < C; i += warp.size()) {
    float diff = x[i] - m;
    sum += diff * diff;
  }
  sum = cg::reduce(warp, sum, cg::plus<float>{});
  out[idx] = sum;
}
// OUT:      float kopt_var_k = 0.0f;
// OUT-NEXT: {
// OUT-NEXT:   int i = warp.thread_rank();
// OUT-NEXT:   if (i < C)
// OUT-NEXT:     kopt_var_k = x[i];
// OUT-NEXT: }
// OUT:      sum = 0.0f;
// OUT-NEXT: if (kopt_var_n != 0) {
// OUT-NEXT:   const float kopt_var_c = m - kopt_var_k;
// OUT-NEXT:   sum += kopt_var_q

// Loops over different groups' ranks are not the same iterations.
// CHECK: cooperative-groups.cu:[[@LINE+10]]:{{[0-9]+}}: remark: variance not computed in one pass: 'x[i]' is read again at {{.*}}, but the loops at [[@LINE+6]]:3 and [[@LINE+9]]:3 divide their iterations differently
__global__ void two_groups(const float *__restrict__ x, float *out, int C) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> g = cg::tiled_partition<32>(block);
  cg::thread_block_tile<16> h = cg::tiled_partition<16>(block);
  float sum = 0.0f;
  for (int i = g.thread_rank(); i < C; i += g.size())
    sum += x[i];
  float m = sum / C, v = 0.0f;
  for (int i = h.thread_rank(); i < C; i += h.size())
    v += (x[i] - m) * (x[i] - m);
  out[threadIdx.x] = v;
}
