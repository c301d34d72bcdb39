// A block size that looks constant but changes behind the launch's back is
// not a constant: every way a value can change gives no rewrite and a missed
// remark that says where. (Before kopt asked Clang's ExprMutationAnalyzer,
// the reference alias got launch bounds of 128 threads and a failing launch.)
// RUN: kopt-opt %s -passes=launch-bounds -Rpass=launch-bounds -Rpass-missed=launch-bounds -o %t.cu 2>&1 | FileCheck %s
// RUN: %strip_checks %t.cu | FileCheck %s --check-prefix=OUT
// RUN: kopt-opt %s --analyze | FileCheck %s --check-prefix=JSON
// RUN: %if cuda-toolkit %{ %nvcc_check %t.cu %}
// REQUIRES: filecheck
// Only the control kernel at the end is rewritten.
// OUT-NOT: __launch_bounds__
// OUT: __global__ void __launch_bounds__(128) unchanged(
// OUT-NOT: __launch_bounds__

// CHECK-DAG: aliases.cu:[[@LINE+1]]:17: remark: the launch at [[@LINE+6]]:3 uses block size 'threads', which is not a compile-time constant ('threads' may be changed at [[@LINE+4]]:16 ('int &alias = threads;')) [-Rpass-missed=launch-bounds]
__global__ void by_reference(float *x) { x[threadIdx.x] += 1.0f; }
void run_reference(float *x) {
  int threads = 128;
  int &alias = threads;
  alias = 512;
  by_reference<<<1, threads>>>(x);
}
// JSON: "caller": "run_reference"
// JSON: "why_unknown": "'threads' may be changed at

// CHECK-DAG: aliases.cu:[[@LINE+1]]:17: remark: the launch at [[@LINE+6]]:3 uses block size 'threads', which is not a compile-time constant ('threads' may be changed at [[@LINE+4]]:13 ('int *p = &threads;')) [-Rpass-missed=launch-bounds]
__global__ void by_pointer(float *x) { x[threadIdx.x] += 1.0f; }
void run_pointer(float *x) {
  int threads = 128;
  int *p = &threads;
  *p = 512;
  by_pointer<<<1, threads>>>(x);
}

template <typename T> void set(T &to, T value) { to = value; }
// CHECK-DAG: aliases.cu:[[@LINE+1]]:17: remark: the launch at [[@LINE+5]]:3 uses block size 'threads', which is not a compile-time constant ('threads' may be changed at [[@LINE+4]]:7 ('set(threads, 512)')) [-Rpass-missed=launch-bounds]
__global__ void by_template(float *x) { x[threadIdx.x] += 1.0f; }
void run_template(float *x) {
  int threads = 128;
  set(threads, 512);
  by_template<<<1, threads>>>(x);
}

// CHECK-DAG: aliases.cu:[[@LINE+1]]:17: remark: the launch at [[@LINE+6]]:3 uses block size 'threads', which is not a compile-time constant ('threads' may be changed at [[@LINE+4]]:16 ('auto grow = [&] { threads = 512; };')) [-Rpass-missed=launch-bounds]
__global__ void by_lambda(float *x) { x[threadIdx.x] += 1.0f; }
void run_lambda(float *x) {
  int threads = 128;
  auto grow = [&] { threads = 512; };
  grow();
  by_lambda<<<1, threads>>>(x);
}

struct Config {
  int &threads;
};
// CHECK-DAG: aliases.cu:[[@LINE+1]]:17: remark: the launch at [[@LINE+6]]:3 uses block size 'threads', which is not a compile-time constant ('threads' may be changed at [[@LINE+4]]:12 ('Config c{threads};')) [-Rpass-missed=launch-bounds]
__global__ void by_member(float *x) { x[threadIdx.x] += 1.0f; }
void run_member(float *x) {
  int threads = 128;
  Config c{threads};
  c.threads = 512;
  by_member<<<1, threads>>>(x);
}

#define SET_THREADS(v) v = 512
// CHECK-DAG: aliases.cu:[[@LINE+1]]:17: remark: the launch at [[@LINE+5]]:3 uses block size 'threads', which is not a compile-time constant ('threads' may be changed at [[@LINE+4]]:3 ('SET_THREADS(threads)')) [-Rpass-missed=launch-bounds]
__global__ void by_macro(float *x) { x[threadIdx.x] += 1.0f; }
void run_macro(float *x) {
  int threads = 128;
  SET_THREADS(threads);
  by_macro<<<1, threads>>>(x);
}

// CHECK-DAG: aliases.cu:[[@LINE+1]]:17: remark: the launch at [[@LINE+6]]:3 uses block size 'threads', which is not a compile-time constant ('threads' may be changed at [[@LINE+5]]:5 ('threads *= 2')) [-Rpass-missed=launch-bounds]
__global__ void in_loop(float *x) { x[threadIdx.x] += 1.0f; }
void run_loop(float *x, int n) {
  int threads = 128;
  for (int i = 0; i < n; ++i)
    threads *= 2;
  in_loop<<<1, threads>>>(x);
}

int threads_from_elsewhere();
// CHECK-DAG: aliases.cu:[[@LINE+1]]:17: remark: the launch at [[@LINE+4]]:3 uses block size 'threads', which is not a compile-time constant ('threads' is initialized with 'threads_from_elsewhere()') [-Rpass-missed=launch-bounds]
__global__ void unseen(float *x) { x[threadIdx.x] += 1.0f; }
void run_unseen(float *x) {
  int threads = threads_from_elsewhere();
  unseen<<<1, threads>>>(x);
}

void configure(int *threads);
// CHECK-DAG: aliases.cu:[[@LINE+1]]:17: remark: the launch at [[@LINE+5]]:3 uses block size 'threads', which is not a compile-time constant ('threads' may be changed at [[@LINE+4]]:14 ('configure(&threads)')) [-Rpass-missed=launch-bounds]
__global__ void out_param(float *x) { x[threadIdx.x] += 1.0f; }
void run_out_param(float *x) {
  int threads = 128;
  configure(&threads);
  out_param<<<1, threads>>>(x);
}

// The control: a local that nothing changes is a constant.
// CHECK-DAG: aliases.cu:[[@LINE+1]]:17: remark: added __launch_bounds__ to 'unchanged': __launch_bounds__(128) (every launch site uses 128 threads per block) [-Rpass=launch-bounds]
__global__ void unchanged(float *x) { x[threadIdx.x] += 1.0f; }
void run_unchanged(float *x) {
  int threads = 128;
  const int &view = threads;
  unchanged<<<1, view>>>(x);
}
