// restrict-const versioning: where the launches do not show distinct
// cudaMalloc'd buffers (pointers from the launcher's caller), the kernel
// gets a __restrict__ copy that each launch runs when a run-time check finds
// its pointers in distinct allocations. The check is added once a file,
// before the first function that needs it; a second run changes nothing.
// RUN: kopt-opt %s -passes=restrict-const -Rpass=restrict-const -Rpass-missed=restrict-const -o %t.cu 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: %strip_checks %t.cu | FileCheck %s
// RUN: %strip_checks %t.cu | grep -c 'static inline bool kopt_distinct_allocations' | FileCheck %s --check-prefix=ONCE
// RUN: kopt-opt %t.cu -passes=restrict-const -o %t.again.cu
// RUN: diff %t.cu %t.again.cu
// RUN: %if cuda-toolkit %{ %nvcc_check %t.cu %}
// RUN: kopt-opt %s -O -Rpass-missed=pipeline -o %t.O.cu 2>&1 | FileCheck %s --allow-empty --check-prefix=NOROLLBACK
// RUN: grep -q 'scale_kopt_restrict<<<' %t.O.cu
// RUN: grep -q '^template <typename T> __global__ void templated_kopt_restrict(const T \*__restrict__ p, T \*__restrict__ q)' %t.cu
// RUN: grep -q 'static_assert((__is_same(T, float))' %t.cu
// RUN: grep -q 'scale_n_kopt_restrict<float, 2><<<1, 32>>>(p, q);' %t.cu
// RUN: grep -q 'scale_n_kopt_restrict<double, 3><<<1, 32>>>(d, e);' %t.cu
// RUN: test "$(grep -c '^__global__ void scale_n_kopt_restrict' %t.cu)" -eq 1
// REQUIRES: filecheck
#include <cuda_runtime.h>

// ONCE: 1
// NOROLLBACK-NOT: rolled back

// REMARK-DAG: remark: added __restrict__ to 'x', 'y' in a copy 'scale_kopt_restrict' that 2 launches run when the driver says the pointers lie in distinct allocations, the original otherwise (the launch at {{[0-9]+}}:3 passes 'x' for 'x', which is not a distinct buffer cudaMalloc'd there, so the buffers may overlap) [-Rpass=restrict-const]
// CHECK: __global__ void scale(const float *x, float *y, int n) {
// CHECK: }
// CHECK-EMPTY:
// CHECK-NEXT: __global__ void scale_kopt_restrict(const float *__restrict__ x, float *__restrict__ y, int n) {
// CHECK-NEXT:   int i = blockIdx.x * blockDim.x + threadIdx.x;
// CHECK-NEXT:   if (i < n)
// CHECK-NEXT:     y[i] = 2.0f * x[i];
// CHECK-NEXT: }
__global__ void scale(float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = 2.0f * x[i];
}

// A null pointer argument cannot overlap anything and is not checked; with
// one pointer left to check, the launch runs the copy.
// REMARK-DAG: remark: added __restrict__ to 'out', 'a', 'b' in a copy 'add_kopt_restrict'
__global__ void add(float *out, const float *a, const float *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = a[i] + (b ? b[i] : 0.0f);
}

// Refused: a launch that is part of a larger expression, a pointer argument
// with side effects.
// REMARK-DAG: remark: __restrict__ not added: the launch at {{[0-9]+}}:{{[0-9]+}} passes 'p' for 'p'{{.*}}; no run-time version: the launch at {{[0-9]+}}:{{[0-9]+}} is part of a larger expression
__global__ void in_expression(float *p, float *q) { q[0] = p[0]; }
// REMARK-DAG: remark: __restrict__ not added: {{.*}}; no run-time version: the launch at {{[0-9]+}}:3 passes 'p++' for 'p', which has side effects (it would be evaluated twice)
__global__ void side_effect(float *p, float *q) { q[0] = p[0]; }
// A template kernel is versioned in its instantiation (templated<float>):
// the copy starts at `template`, and const in place pins the template.
// REMARK-DAG: remark: added const to 'p': the kernel only reads it
// REMARK-DAG: remark: added __restrict__ to 'p', 'q' in a copy 'templated_kopt_restrict' that 1 launch runs when the driver says the pointers lie in distinct allocations
template <typename T> __global__ void templated(T *p, T *q) { q[0] = p[0]; }
// Two instantiations, one copy; the copy's name goes before the launch's
// explicit arguments.
// REMARK-DAG: remark: added __restrict__ to 'x', 'y' in a copy 'scale_n_kopt_restrict' that 1 launch runs {{.*}} (in scale_n<float, 2>)
// REMARK-DAG: remark: added __restrict__ to 'x', 'y' in a copy 'scale_n_kopt_restrict' that 1 launch runs {{.*}} (in scale_n<double, 3>)
template <typename T, int N>
__global__ void scale_n(const T *x, T *y) { y[threadIdx.x] = x[threadIdx.x] * N; }

// The check goes before the first launcher (a template's `template` line).
// CHECK: #include <cuda.h>
// CHECK: template <typename... kopt_T>
// CHECK-NEXT: static inline bool kopt_distinct_allocations(const char *kopt_modes,
// CHECK-NEXT:                                              const kopt_T *...kopt_p) {
// CHECK: template <int Block>
// CHECK-NEXT: void launch_scale(float *x, float *y, int n) {
// CHECK-NEXT:   if (kopt_distinct_allocations("rw", (x), (y)))
// CHECK-NEXT:     scale_kopt_restrict<<<(n + Block - 1) / Block, Block>>>(x, y, n);
// CHECK-NEXT:   else
// CHECK-NEXT:     scale<<<(n + Block - 1) / Block, Block>>>(x, y, n);
template <int Block>
void launch_scale(float *x, float *y, int n) {
  scale<<<(n + Block - 1) / Block, Block>>>(x, y, n);
}

// An if without braces gets them.
// CHECK: void launch_scale_if(float *x, float *y, int n, bool go) {
// CHECK-NEXT:   if (go)
// CHECK-NEXT:     {
// CHECK-NEXT:       if (kopt_distinct_allocations("rw", (x), (y)))
// CHECK-NEXT:         scale_kopt_restrict<<<n, 1>>>(x, y, n);
// CHECK-NEXT:       else
// CHECK-NEXT:         scale<<<n, 1>>>(x, y, n);
// CHECK-NEXT:     }
void launch_scale_if(float *x, float *y, int n, bool go) {
  if (go)
    scale<<<n, 1>>>(x, y, n);
}

// CHECK: void launch_add(float *out, int n, cudaStream_t s) {
// CHECK-NEXT:   add_kopt_restrict<<<n, 1, 0, s>>>(out, nullptr, NULL, n);
void launch_add(float *out, int n, cudaStream_t s) {
  add<<<n, 1, 0, s>>>(out, nullptr, NULL, n);
}

// CHECK: void launch_add2(float *out, const float *a, const float *b, int n) {
// The check's modes: 'w' for out (written) and for b, which the kernel also
// tests against null (a use other than a read: it cannot be proved only
// read), 'r' for a.
// CHECK-NEXT:   if (kopt_distinct_allocations("wrw", (out), (a), (b)))
void launch_add2(float *out, const float *a, const float *b, int n) {
  add<<<n, 1>>>(out, a, b, n);
}

int launch_others(float *p, float *q) {
  int r = (in_expression<<<1, 1>>>(p, q), 0);
  side_effect<<<1, 1>>>(p++, q);
  templated<<<1, 1>>>(p, q);
  return r;
}

void launch_explicit(float *p, float *q, double *d, double *e) {
  scale_n<float, 2><<<1, 32>>>(p, q);
  scale_n<double, 3><<<1, 32>>>(d, e);
}

void run(float *x, float *y, int n) {
  launch_scale<256>(x, y, n);
  launch_scale_if(x, y, n, true);
}

// Distinct allocations say nothing of pointers the kernel finds elsewhere:
// no __restrict__, neither proved nor versioned.
// REMARK-DAG: remark: __restrict__ not added: parameter 'rows' (float **) holds pointers the launches' buffers say nothing about
// REMARK-DAG: remark: __restrict__ not added: parameter 'p' (Pair) holds pointers the launches' buffers say nothing about
// REMARK-DAG: remark: __restrict__ not added: it uses 'g_table', a variable of static storage that holds a pointer (in 'lookup', which it calls)
// REMARK-DAG: remark: __restrict__ not added: it makes a pointer from an integer
// CHECK-NOT: gather_kopt_restrict
// CHECK-NOT: pair_kopt_restrict
// CHECK-NOT: global_kopt_restrict
// CHECK-NOT: from_int_kopt_restrict
struct Pair {
  const float *in;
  int n;
};
__device__ float *g_table;
__device__ float lookup(int i) { return g_table[i]; }
__global__ void gather(float **rows, float *out) { out[threadIdx.x] = rows[0][threadIdx.x]; }
__global__ void pair(Pair p, float *out, float *aux) { out[threadIdx.x] = p.in[threadIdx.x] + aux[0]; }
__global__ void global(float *out, float *aux) { out[threadIdx.x] = lookup(threadIdx.x) + aux[0]; }
__global__ void from_int(float *out, float *aux, unsigned long long addr) {
  out[threadIdx.x] = reinterpret_cast<float *>(addr)[0] + aux[0];
}

void launch_hidden(float **rows, float *out, float *aux, Pair p) {
  gather<<<1, 32>>>(rows, out);
  pair<<<1, 32>>>(p, out, aux);
  global<<<1, 32>>>(out, aux);
  from_int<<<1, 32>>>(out, aux, 0);
}

// `float x[]` is a pointer, but `__restrict__` before its name would
// qualify the element.
// REMARK-DAG: remark: __restrict__ not added: {{.*}}; no run-time version: 'x' is declared as an array
// CHECK-NOT: as_array_kopt_restrict
__global__ void as_array(const float x[], float *y) { y[threadIdx.x] = x[threadIdx.x]; }
void launch_as_array(const float *x, float *y) { as_array<<<1, 32>>>(x, y); }
