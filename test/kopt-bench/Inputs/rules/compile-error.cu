// Does not compile.
#include <cuda_runtime.h>

extern "C" void launch_axpby(const float *x, const float *y, float *out,
                             float a, float b, int n, cudaStream_t stream) {
  undeclared_kernel<<<1, 1, 0, stream>>>(x);
}
