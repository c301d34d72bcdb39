// thrust through a digraph include and a namespace alias.
#include <cuda_runtime.h>
%:include <thrust/transform.h>
%:include <thrust/execution_policy.h>
namespace T = thrust;
struct F { float a, b; __host__ __device__ float operator()(float x, float y) const { return a * x + b * y; } };
extern "C" void launch_axpby(const float *x, const float *y, float *out,
                             float a, float b, int n, cudaStream_t stream) {
  T::transform(T::cuda::par.on(stream), x, x + n, y, out, F{a, b});
}
