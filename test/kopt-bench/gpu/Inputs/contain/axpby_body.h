// The honest part of every containment cheat: out = a*x + b*y.
#ifndef KOPT_TEST_AXPBY_BODY_H
#define KOPT_TEST_AXPBY_BODY_H

#include <cuda_runtime.h>

namespace {
__global__ void axpby(const float *x, const float *y, float *out, float a,
                      float b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = a * x[i] + b * y[i];
}

/// Busy for about Iterations * 4 cycles (dependent multiply-adds).
__global__ void spin(long long Iterations, float *Sink) {
  float Acc = threadIdx.x;
  for (long long I = 0; I < Iterations; ++I)
    Acc = Acc * 1.0000001f + 1e-7f;
  if (Acc == 12345.0f)
    *Sink = Acc;
}

inline void honestAxpby(const float *x, const float *y, float *out, float a,
                        float b, int n, cudaStream_t stream) {
  axpby<<<(n + 255) / 256, 256, 0, stream>>>(x, y, out, a, b, n);
}
} // namespace

#endif
