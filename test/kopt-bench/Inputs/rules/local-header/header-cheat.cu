// cuBLAS and thrust through a header next to the candidate.
#include <cuda_runtime.h>
#include "helper.cuh"
extern "C" void launch_axpby(const float *x, const float *y, float *out,
                             float a, float b, int n, cudaStream_t stream) {
  go(x, y, out, a, b, n, stream);
}
