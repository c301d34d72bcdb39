// Each reason warp-reduce leaves a tree alone; the file is unchanged.
// RUN: kopt-opt %s -passes='warp-reduce{reassociate=true}' -Rpass=warp-reduce -Rpass-missed=warp-reduce -o %t.cu 2>&1 | FileCheck %s --implicit-check-not='remark: replaced'
// RUN: diff %s %t.cu
// RUN: %if cuda-toolkit %{ %nvcc_check %t.cu %}
// REQUIRES: filecheck
#include <cuda_runtime.h>

#define TREE(A, T)                                                             \
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {                               \
    if (T < s)                                                                 \
      A[T] += A[T + s];                                                        \
    __syncthreads();                                                           \
  }

// 96 threads: not a power of two, which the original tree is wrong for.
// CHECK-DAG: missed.cu:[[@LINE+5]]:3: remark: tree not rewritten: the launch at {{[0-9]+}}:3 uses 96 threads: the rewrite needs a power of two (the only sizes the tree is right for) of at least 32 (whole warps) [-Rpass-missed=warp-reduce]
__global__ void odd_block(int *p) {
  __shared__ int a[96];
  a[threadIdx.x] = p[threadIdx.x];
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      a[threadIdx.x] += a[threadIdx.x + s];
    __syncthreads();
  }
  p[0] = a[0];
}

// 16 threads: a power of two, but less than a warp.
// CHECK-DAG: missed.cu:[[@LINE+5]]:3: remark: tree not rewritten: the launch at {{[0-9]+}}:3 uses 16 threads: {{.*}}
__global__ void small_block(int *p) {
  __shared__ int a[16];
  a[threadIdx.x] = p[threadIdx.x];
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      a[threadIdx.x] += a[threadIdx.x + s];
    __syncthreads();
  }
  p[0] = a[0];
}

// A 2-D block.
// CHECK-DAG: missed.cu:[[@LINE+5]]:3: remark: tree not rewritten: the launch at {{[0-9]+}}:3 uses the block 'dim3(32, 8)', not a 1-D one [-Rpass-missed=warp-reduce]
__global__ void block_2d(int *p) {
  __shared__ int a[256];
  a[threadIdx.x] = p[threadIdx.x];
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      a[threadIdx.x] += a[threadIdx.x + s];
    __syncthreads();
  }
  p[0] = a[0];
}

// Another element of the array is read after the tree.
// CHECK-DAG: missed.cu:[[@LINE+5]]:3: remark: tree not rewritten: 'a' is also used at [[@LINE+10]]:17 ('a[1]'): only the trees and reads of 'a[0]' are handled [-Rpass-missed=warp-reduce]
__global__ void other_element(int *p) {
  __shared__ int a[256];
  a[threadIdx.x] = p[threadIdx.x];
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      a[threadIdx.x] += a[threadIdx.x + s];
    __syncthreads();
  }
  p[0] = a[0] + a[1];
}

// Element 0 is written after the tree.
// CHECK-DAG: missed.cu:[[@LINE+5]]:3: remark: tree not rewritten: 'a' is also used at [[@LINE+10]]:3 ('a[0] = 1'): {{.*}}
__global__ void write_element0(int *p) {
  __shared__ int a[256];
  a[threadIdx.x] = p[threadIdx.x];
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      a[threadIdx.x] += a[threadIdx.x + s];
    __syncthreads();
  }
  a[0] = 1;
}

// The tree under a thread-dependent branch.
// CHECK-DAG: missed.cu:[[@LINE+6]]:5: remark: tree not rewritten: the tree is inside 'if (threadIdx.x < 128) {{.*}}' at [[@LINE+3]]:3: threads may not all reach it [-Rpass-missed=warp-reduce]
__global__ void divergent(int *p) {
  __shared__ int a[256];
  if (threadIdx.x < 128) {
    a[threadIdx.x] = p[threadIdx.x];
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
      if (threadIdx.x < s)
        a[threadIdx.x] += a[threadIdx.x + s];
      __syncthreads();
    }
  }
  p[0] = a[0];
}

// Some threads may have returned.
// CHECK-DAG: missed.cu:[[@LINE+7]]:3: remark: tree not rewritten: a return at [[@LINE+4]]:5 may let some threads skip the tree [-Rpass-missed=warp-reduce]
__global__ void early_return(int *p, int n) {
  __shared__ int a[256];
  if (p[threadIdx.x] == n)
    return;
  a[threadIdx.x] = p[threadIdx.x];
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      a[threadIdx.x] += a[threadIdx.x + s];
    __syncthreads();
  }
  p[0] = a[0];
}

// A goto anywhere in the function.
// CHECK-DAG: missed.cu:[[@LINE+5]]:3: remark: tree not rewritten: a goto at [[@LINE+11]]:5 may let some threads skip the tree [-Rpass-missed=warp-reduce]
__global__ void with_goto(int *p) {
  __shared__ int a[256];
  a[threadIdx.x] = p[threadIdx.x];
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      a[threadIdx.x] += a[threadIdx.x + s];
    __syncthreads();
  }
  if (a[0] > 0)
    goto done;
  p[0] = a[0];
done:;
}

// A product is not one of the operators handled.
// CHECK-DAG: missed.cu:[[@LINE+5]]:3: remark: tree not rewritten: the tree combines with '*'; only +, fmaxf, fminf, fmax, fmin, max and min are handled [-Rpass-missed=warp-reduce]
__global__ void product(float *p) {
  __shared__ float a[256];
  a[threadIdx.x] = p[threadIdx.x];
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      a[threadIdx.x] = a[threadIdx.x] * a[threadIdx.x + s];
    __syncthreads();
  }
  p[0] = a[0];
}

// A call that is not a maximum or minimum.
// CHECK-DAG: missed.cu:[[@LINE+5]]:3: remark: tree not rewritten: the tree combines with 'a[threadIdx.x] = hypotf(a[threadIdx.x], a[threadIdx.x + s])'; only +, {{.*}}
__global__ void other_call(float *p) {
  __shared__ float a[256];
  a[threadIdx.x] = p[threadIdx.x];
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      a[threadIdx.x] = hypotf(a[threadIdx.x], a[threadIdx.x + s]);
    __syncthreads();
  }
  p[0] = a[0];
}

// A function of the user's named max.
namespace mine {
__device__ float max(float a, float b) { return a + b; }
} // namespace mine
// CHECK-DAG: missed.cu:[[@LINE+5]]:3: remark: tree not rewritten: the tree combines with 'max', declared at [[@LINE-2]]:18 rather than by CUDA's headers [-Rpass-missed=warp-reduce]
__global__ void user_max(float *p) {
  __shared__ float a[256];
  a[threadIdx.x] = p[threadIdx.x];
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      a[threadIdx.x] = mine::max(a[threadIdx.x], a[threadIdx.x + s]);
    __syncthreads();
  }
  p[0] = a[0];
}

// fmaxf on doubles rounds them to float.
// CHECK-DAG: missed.cu:[[@LINE+5]]:3: remark: tree not rewritten: the tree combines with 'a[threadIdx.x] = fmaxf(a[threadIdx.x], a[threadIdx.x + s])' through a conversion: 'fmaxf' does not take 'double' [-Rpass-missed=warp-reduce]
__global__ void narrowing_max(double *p) {
  __shared__ double a[256];
  a[threadIdx.x] = p[threadIdx.x];
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      a[threadIdx.x] = fmaxf(a[threadIdx.x], a[threadIdx.x + s]);
    __syncthreads();
  }
  p[0] = a[0];
}

// short is not shuffled as one value.
// CHECK-DAG: missed.cu:[[@LINE+5]]:3: remark: tree not rewritten: the element type 'short' is not one __shfl_xor_sync moves as a single value (float, double, 32/64-bit integers) [-Rpass-missed=warp-reduce]
__global__ void short_sum(short *p) {
  __shared__ short a[256];
  a[threadIdx.x] = p[threadIdx.x];
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      a[threadIdx.x] += a[threadIdx.x + s];
    __syncthreads();
  }
  p[0] = a[0];
}

// A volatile array.
// CHECK-DAG: missed.cu:[[@LINE+5]]:3: remark: tree not rewritten: 'a' is volatile: the code may rely on warp-synchronous accesses [-Rpass-missed=warp-reduce]
__global__ void volatile_array(int *p) {
  __shared__ volatile int a[256];
  a[threadIdx.x] = p[threadIdx.x];
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      a[threadIdx.x] += a[threadIdx.x + s];
    __syncthreads();
  }
  p[0] = a[0];
}

// A value/index pair (argmax) whose pair is not selected by a loop from
// locals (selection.cu has the pairs that are).
// CHECK-DAG: missed.cu:[[@LINE+7]]:3: remark: tree not rewritten: the (value, index) tree is not preceded by 'V[threadIdx.x] = v; I[threadIdx.x] = idx; __syncthreads();' with v and idx local variables [-Rpass-missed=warp-reduce]
__global__ void argmax(const float *x, int *out) {
  __shared__ float bv[256];
  __shared__ int bi[256];
  bv[threadIdx.x] = x[threadIdx.x];
  bi[threadIdx.x] = threadIdx.x;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) {
      float ov = bv[threadIdx.x + s];
      int oi = bi[threadIdx.x + s];
      if (ov > bv[threadIdx.x] || (ov == bv[threadIdx.x] && oi < bi[threadIdx.x])) {
        bv[threadIdx.x] = ov;
        bi[threadIdx.x] = oi;
      }
    }
    __syncthreads();
  }
  out[0] = bi[0];
}

// A tree that starts at a local instead of blockDim.x / 2 (a constant
// start is taken: literal-start.cu).
// CHECK-DAG: missed.cu:[[@LINE+6]]:3: remark: tree not rewritten: the tree loop is not 'for (int s = blockDim.x / 2; s > 0; s >>= 1)' (or 'B / 2' with B a parameter, a local that is never changed or a constant, or a constant like '128'): the rewrite covers blockDim.x threads [-Rpass-missed=warp-reduce]
__global__ void local_start(int *p) {
  __shared__ int a[256];
  int half = 128;
  a[threadIdx.x] = p[threadIdx.x];
  __syncthreads();
  for (int s = half; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      a[threadIdx.x] += a[threadIdx.x + s];
    __syncthreads();
  }
  p[0] = a[0];
}

// The step uses a strided index.
// CHECK-DAG: missed.cu:[[@LINE+5]]:3: remark: tree not rewritten: the tree step is not 'if (t < s) A[t] = op(A[t], A[t + s]); __syncthreads();' (or the barrier first) with t threadIdx.x [-Rpass-missed=warp-reduce]
__global__ void strided_step(int *p) {
  __shared__ int a[256];
  a[threadIdx.x] = p[threadIdx.x];
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      a[2 * threadIdx.x] += a[2 * threadIdx.x + s];
    __syncthreads();
  }
  p[0] = a[0];
}

// No barrier between the store and the tree.
// CHECK-DAG: missed.cu:[[@LINE+4]]:3: remark: tree not rewritten: the tree is not preceded by 'A[threadIdx.x] = value; __syncthreads();' [-Rpass-missed=warp-reduce]
__global__ void no_prelude(int *p) {
  __shared__ int a[256];
  a[threadIdx.x] = p[threadIdx.x];
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      a[threadIdx.x] += a[threadIdx.x + s];
    __syncthreads();
  }
  p[0] = a[0];
}

// The tree in a kernel works on global memory, not a __shared__ array.
// CHECK-DAG: missed.cu:[[@LINE+4]]:3: remark: tree not rewritten: 'p' is not a __shared__ array declared in 'global_array' [-Rpass-missed=warp-reduce]
__global__ void global_array(int *p) {
  p[threadIdx.x] = threadIdx.x;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      p[threadIdx.x] += p[threadIdx.x + s];
    __syncthreads();
  }
}

// Written in a macro.
// CHECK-DAG: missed.cu:[[@LINE+5]]:3: remark: tree not rewritten: the tree is written in a macro [-Rpass-missed=warp-reduce]
__global__ void in_macro(int *p) {
  __shared__ int a[256];
  a[threadIdx.x] = p[threadIdx.x];
  __syncthreads();
  TREE(a, threadIdx.x)
  p[0] = a[0];
}

// The stored value names kopt_ variables, like the rewrite's.
// CHECK-DAG: missed.cu:[[@LINE+6]]:3: remark: tree not rewritten: the tree uses names starting with 'kopt_', which the rewrite declares [-Rpass-missed=warp-reduce]
__global__ void name_clash(int *p) {
  __shared__ int a[256];
  int kopt_wr = p[threadIdx.x];
  a[threadIdx.x] = kopt_wr;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      a[threadIdx.x] += a[threadIdx.x + s];
    __syncthreads();
  }
  p[0] = a[0];
}

// A template helper (template kernels: templates.cu).
// CHECK-DAG: missed.cu:[[@LINE+5]]:3: remark: tree not rewritten: template functions are not handled [-Rpass-missed=warp-reduce]
template <typename T> __device__ void templated(T *p) {
  __shared__ T a[256];
  a[threadIdx.x] = p[threadIdx.x];
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      a[threadIdx.x] += a[threadIdx.x + s];
    __syncthreads();
  }
  p[0] = a[0];
}

// Helpers: the tree's context is every caller.
__device__ int helper_sum(int v, int *buf) {
  buf[threadIdx.x] = v;
  __syncthreads();
  // CHECK-DAG: missed.cu:[[@LINE+1]]:3: remark: tree not rewritten: in 'calls_helper', 'buf' is also used at [[@LINE+14]]:44 ('buf[1]'): only the trees and reads of 'buf[0]' are handled [-Rpass-missed=warp-reduce]
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      buf[threadIdx.x] += buf[threadIdx.x + s];
    __syncthreads();
  }
  int total = buf[0];
  __syncthreads();
  return total;
}

// The caller reads another element of the array it passes.
__global__ void calls_helper(int *p) {
  __shared__ int buf[256];
  p[0] = helper_sum(p[threadIdx.x], buf) + buf[1];
}

__device__ int helper_branch(int v, int *buf) {
  buf[threadIdx.x] = v;
  __syncthreads();
  // CHECK-DAG: missed.cu:[[@LINE+1]]:3: remark: tree not rewritten: in 'calls_in_branch', the call is inside '{{.*}}' at [[@LINE+14]]:10: threads may not all reach it [-Rpass-missed=warp-reduce]
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      buf[threadIdx.x] += buf[threadIdx.x + s];
    __syncthreads();
  }
  int total = buf[0];
  __syncthreads();
  return total;
}

// The helper is only called by some threads.
__global__ void calls_in_branch(int *p) {
  __shared__ int buf[256];
  p[0] = p[1] > 0 ? helper_branch(p[threadIdx.x], buf) : 0;
}

__device__ int helper_from_device(int v, int *buf) {
  buf[threadIdx.x] = v;
  __syncthreads();
  // CHECK-DAG: missed.cu:[[@LINE+1]]:3: remark: tree not rewritten: 'helper_from_device' is referenced at [[@LINE+11]]:10 other than by a call from a kernel of this file [-Rpass-missed=warp-reduce]
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      buf[threadIdx.x] += buf[threadIdx.x + s];
    __syncthreads();
  }
  return buf[0];
}

// Called from another device function.
__device__ int wrapper(int v, int *buf) {
  return helper_from_device(v, buf);
}

__global__ void calls_wrapper(int *p) {
  __shared__ int buf[256];
  p[0] = wrapper(p[threadIdx.x], buf);
}

__device__ int helper_offset(int v, int *buf) {
  buf[threadIdx.x] = v;
  __syncthreads();
  // CHECK-DAG: missed.cu:[[@LINE+1]]:3: remark: tree not rewritten: the call at [[@LINE+12]]:10 does not pass a __shared__ array of its kernel as 'buf' [-Rpass-missed=warp-reduce]
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      buf[threadIdx.x] += buf[threadIdx.x + s];
    __syncthreads();
  }
  return buf[0];
}

// Passes a part of an array.
__global__ void calls_with_offset(int *p) {
  __shared__ int buf[512];
  p[0] = helper_offset(p[threadIdx.x], buf + 256);
}

// Never called: no block size.
__device__ int helper_unused(int v, int *buf) {
  buf[threadIdx.x] = v;
  __syncthreads();
  // CHECK-DAG: missed.cu:[[@LINE+1]]:3: remark: tree not rewritten: 'helper_unused' is never called in this file: the block size is unknown [-Rpass-missed=warp-reduce]
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      buf[threadIdx.x] += buf[threadIdx.x + s];
    __syncthreads();
  }
  return buf[0];
}

// Also a host function.
__host__ __device__ int helper_host(int v, int *buf) {
#ifdef __CUDA_ARCH__
  buf[threadIdx.x] = v;
  __syncthreads();
  // CHECK-DAG: missed.cu:[[@LINE+1]]:3: remark: tree not rewritten: 'helper_host' is not a __device__-only function [-Rpass-missed=warp-reduce]
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      buf[threadIdx.x] += buf[threadIdx.x + s];
    __syncthreads();
  }
  return buf[0];
#else
  return v;
#endif
}

void launch(int *p, float *f, double *d, short *h, const float *x, int n,
            int threads) {
  odd_block<<<1, 96>>>(p);
  small_block<<<1, 16>>>(p);
  block_2d<<<1, dim3(32, 8)>>>(p);
  other_element<<<1, 256>>>(p);
  write_element0<<<1, 256>>>(p);
  divergent<<<1, 256>>>(p);
  early_return<<<1, 256>>>(p, n);
  with_goto<<<1, 256>>>(p);
  product<<<1, 256>>>(f);
  other_call<<<1, 256>>>(f);
  user_max<<<1, 256>>>(f);
  narrowing_max<<<1, 256>>>(d);
  short_sum<<<1, 256>>>(h);
  volatile_array<<<1, 256>>>(p);
  argmax<<<1, 256>>>(x, p);
  local_start<<<1, 256>>>(p);
  strided_step<<<1, 256>>>(p);
  no_prelude<<<1, 256>>>(p);
  global_array<<<1, 256>>>(p);
  in_macro<<<1, 256>>>(p);
  name_clash<<<1, 256>>>(p);
  // (nothing calls the template helper)
  calls_helper<<<1, 256>>>(p);
  calls_in_branch<<<1, 256>>>(p);
  calls_wrapper<<<1, 256>>>(p);
  calls_with_offset<<<1, 256>>>(p);

}
