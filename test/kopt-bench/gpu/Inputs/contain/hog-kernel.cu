// Cheat: at load time starts a kernel that keeps every SM busy for seconds
// on a stream of its own, to slow the baseline timed beside it.
#include "axpby_body.h"

namespace {
struct Hog {
  Hog() {
    cudaStream_t S;
    if (cudaStreamCreateWithFlags(&S, cudaStreamNonBlocking) == cudaSuccess)
      spin<<<132 * 4, 256, 0, S>>>(400000000, nullptr);
  }
} AtLoad;
} // namespace

extern "C" void launch_axpby(const float *x, const float *y, float *out,
                             float a, float b, int n, cudaStream_t stream) {
  honestAxpby(x, y, out, a, b, n, stream);
}
