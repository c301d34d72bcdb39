// restrict-const versioning and dynamic parallelism (relocatable device
// code): a launch from device code cannot call the host-side check, so the
// kernel it launches is not versioned; nor is the kernel that launches it
// (its copy would be a new launcher, which the pipeline rolls back).
// RUN: kopt-opt %s -passes=restrict-const -Rpass=restrict-const -Rpass-missed=restrict-const -o %t.cu -- -fgpu-rdc 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: %strip_checks %t.cu | FileCheck %s
// RUN: %if cuda-toolkit %{ %nvcc_check -rdc=true %t.cu %}
// REQUIRES: filecheck
#include <cuda_runtime.h>

// REMARK-DAG: remark: __restrict__ not added: {{.*}}; no run-time version: the launch at {{[0-9]+}}:{{[0-9]+}} is in device code
// REMARK-DAG: remark: __restrict__ not added: {{.*}}; no run-time version: it launches kernels itself (its copy would be a new launcher)
// REMARK-NOT: rolled back
// CHECK-NOT: _kopt_restrict
__global__ void child(const float *x, float *y) { y[threadIdx.x] = x[threadIdx.x]; }
__global__ void parent(const float *x, float *y) { child<<<1, 32>>>(x, y); }
void launch_parent(const float *x, float *y) { parent<<<1, 1>>>(x, y); }
