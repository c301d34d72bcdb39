// The width parameter: auto fills 16 bytes; explicit widths must be powers
// of two whose accesses fit in 16 bytes.
// RUN: kopt-opt %s -passes=vectorize-loads | %strip_checks | FileCheck %s --check-prefix=AUTO
// RUN: kopt-opt %s -passes='vectorize-loads{width=2}' -o %t.cu
// RUN: %strip_checks %t.cu | FileCheck %s --check-prefix=TWO
// RUN: %if cuda-toolkit %{ %nvcc_check %t.cu %}
// RUN: kopt-opt %s -passes='vectorize-loads{width=8}' -Rpass-missed=vectorize-loads -o %t.8.cu 2>&1 | FileCheck %s --check-prefix=EIGHT
// RUN: diff %s %t.8.cu
// RUN: kopt-opt %s -passes='vectorize-loads{width=3}' -Rpass-missed=vectorize-loads -o /dev/null 2>&1 | FileCheck %s --check-prefix=THREE
// REQUIRES: filecheck

__global__ void copy(const float *__restrict__ x, float *__restrict__ y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    y[i] = x[i];
}
// AUTO: kopt_v < kopt_n / 4
// AUTO: const float4 kopt_vec_x = reinterpret_cast<const float4 *>(x)[kopt_v];
// TWO: reinterpret_cast<unsigned long long>(x) % 8 == 0
// TWO: const float2 kopt_vec_x = reinterpret_cast<const float2 *>(x)[kopt_v];
// EIGHT: width.cu:[[@LINE-6]]:5: remark: grid-stride loop not vectorized: width=8 needs 32-byte accesses for 'x' (float); the widest is 16 bytes
// THREE: remark: grid-stride loop not vectorized: width=3 is not a power of two of at least 2
