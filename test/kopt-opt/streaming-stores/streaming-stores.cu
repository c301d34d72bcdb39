// streaming-stores stores outputs the kernel never reads with __stcs.
// RUN: kopt-opt %s -passes=streaming-stores -Rpass=streaming-stores -Rpass-missed=streaming-stores -o %t.cu 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: %strip_checks %t.cu | FileCheck %s
// RUN: %if cuda-toolkit %{ %nvcc_check %t.cu %}
// The pass's own output parses again (clang has no __stcs of its own) and
// a second run leaves the streamed stores alone.
// RUN: kopt-opt %t.cu -passes=streaming-stores -Rpass=streaming-stores -Rpass-missed=streaming-stores -o /dev/null 2>&1 | FileCheck %s --check-prefix=AGAIN --allow-empty
// AGAIN-NOT: {{'(out|h|first|vec)'}}
// REQUIRES: filecheck
#include <cuda_fp16.h>

#define STORE(p, i, v) p[i] = v

// REMARK-DAG: streaming-stores.cu:[[@LINE+4]]:5: remark: store to 'out' streamed with __stcs (evict-first) [-Rpass=streaming-stores]
// CHECK: __stcs(&out[i], a * x[i]);
__global__ void scale(const float *x, float *out, float a, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    out[i] = a * x[i];
}

// Class types through operator=, a dereference, and a vector store through
// a cast and an offset with an alignment check of the pointer's address.
// CHECK: __stcs(&h[i], __float2half(v));
// CHECK: __stcs(&*first, v);
// CHECK: if (reinterpret_cast<unsigned long long>(vec + row * 4) % 16 == 0)
// CHECK-NEXT: __stcs(&reinterpret_cast<float4 *>(vec + row * 4)[threadIdx.x], make_float4(v, v, v, v));
// REMARK-DAG: streaming-stores.cu:[[@LINE+3]]:3: remark: store to 'h' streamed with __stcs
__global__ void kinds(__half *h, float *first, float *vec, float v, int row) {
  int i = threadIdx.x;
  h[i] = __float2half(v);
  if (i == 0)
    *first = v;
  if (reinterpret_cast<unsigned long long>(vec + row * 4) % 16 == 0)
    reinterpret_cast<float4 *>(vec + row * 4)[threadIdx.x] = make_float4(v, v, v, v);
}

// REMARK-DAG: streaming-stores.cu:[[@LINE+5]]:20: remark: stores to 'y' not streamed: 'y' is also read [-Rpass-missed=streaming-stores]
// REMARK-DAG: streaming-stores.cu:[[@LINE+5]]:3: remark: 'z' not streamed: it is updated in place (read and written) [-Rpass-missed=streaming-stores]
// REMARK-DAG: streaming-stores.cu:[[@LINE+5]]:16: remark: store to 'slot' not streamed: __stcs has no overload for 'float *' [-Rpass-missed=streaming-stores]
// REMARK-DAG: streaming-stores.cu:[[@LINE+4]]:24: remark: stores to 'w' not streamed: 'w' escapes (it is passed on or offset into another pointer) [-Rpass-missed=streaming-stores]
__global__ void not_streaming(float *y, float *z, float *w, float **slot) {
  y[threadIdx.x] = y[threadIdx.x + 1];
  z[threadIdx.x] += 1.0f;
  w[0] = 1.0f; *slot = w;
}

// REMARK-DAG: streaming-stores.cu:[[@LINE+4]]:8: remark: stores to 'taken' not streamed: 'taken' has an element whose address is taken [-Rpass-missed=streaming-stores]
__device__ void put(float *p);
__global__ void address_taken(float *taken) {
  taken[0] = 1.0f;
  put(&taken[threadIdx.x]);
}

// A pointer whose only stores are in a callee.
// REMARK-DAG: streaming-stores.cu:[[@LINE+2]]:48: remark: 'q' not streamed: it escapes (it is passed on or offset into another pointer) [-Rpass-missed=streaming-stores]
__device__ void put(float *p) { *p = 1.0f; }
__global__ void through_callee(float *q) { put(q + threadIdx.x); }

struct Pair { float a, b; };

// REMARK-DAG: streaming-stores.cu:[[@LINE+5]]:3: remark: store to 'pairs' not streamed: __stcs has no overload for 'Pair' [-Rpass-missed=streaming-stores]
// REMARK-DAG: streaming-stores.cu:[[@LINE+5]]:7: remark: store to 'chained' not streamed: the value of the assignment is used [-Rpass-missed=streaming-stores]
// REMARK-DAG: streaming-stores.cu:[[@LINE+5]]:3: remark: store to 'halves' not streamed: the stored value is a 'float', not a '__half' [-Rpass-missed=streaming-stores]
// REMARK-DAG: streaming-stores.cu:[[@LINE+5]]:3: remark: store to 'macro' not streamed: it is written in a macro [-Rpass-missed=streaming-stores]
__global__ void refused(Pair *pairs, float *chained, __half *halves, float *macro, float v) {
  pairs[threadIdx.x] = Pair{v, v};
  v = chained[threadIdx.x] = v;
  halves[threadIdx.x] = v;
  STORE(macro, threadIdx.x, v);
}

// A template's stores are streamed as its one instantiation's are; the
// template is pinned to float.
// REMARK-DAG: streaming-stores.cu:[[@LINE+2]]:37: remark: store to 'out' streamed with __stcs (evict-first) [-Rpass=streaming-stores]
template <typename T>
__global__ void templated(T *out) { out[threadIdx.x] = T(); }

void launch(float *p, __half *h, float **slot, Pair *pairs) {
  scale<<<1, 256>>>(p, p, 2.0f, 1);
  kinds<<<1, 256>>>(h, p, p, 1.0f, 0);
  not_streaming<<<1, 32>>>(p, p, p, slot);
  through_callee<<<1, 32>>>(p);
  address_taken<<<1, 32>>>(p);
  refused<<<1, 32>>>(pairs, p, h, p, 1.0f);
  templated<float><<<1, 32>>>(p);
}
