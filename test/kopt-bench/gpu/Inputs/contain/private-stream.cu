// Cheat: does its work on a stream of its own and waits for it, so that
// nothing is on the stream it was given (hole #3: outside the judge's
// events). Contained, the capture sees no work on the given stream.
#include "axpby_body.h"

extern "C" void launch_axpby(const float *x, const float *y, float *out,
                             float a, float b, int n, cudaStream_t stream) {
  static cudaStream_t Mine = [] {
    cudaStream_t S;
    cudaStreamCreateWithFlags(&S, cudaStreamNonBlocking);
    return S;
  }();
  (void)stream;
  honestAxpby(x, y, out, a, b, n, Mine);
  cudaStreamSynchronize(Mine);
}
