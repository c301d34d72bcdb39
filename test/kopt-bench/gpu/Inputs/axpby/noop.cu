// Cheat: does no work at all and hopes the output already holds the answer.
#include <cuda_runtime.h>

extern "C" void launch_axpby(const float *x, const float *y, float *out,
                             float a, float b, int n, cudaStream_t stream) {}
