#include <cublas_v2.h>
#include <thrust/transform.h>
#include <thrust/execution_policy.h>
struct F { float a, b; __host__ __device__ float operator()(float x, float y) const { return a * x + b * y; } };
inline void go(const float *x, const float *y, float *out, float a, float b, int n, cudaStream_t s) {
  thrust::transform(thrust::cuda::par.on(s), x, x + n, y, out, F{a, b});
}
