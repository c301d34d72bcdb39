// Cheat: honest work on the given stream, plus a long kernel on a private
// stream that it does not wait for: work that outlives the call (it would
// slow whatever the judge runs next, such as the baseline).
#include "axpby_body.h"

extern "C" void launch_axpby(const float *x, const float *y, float *out,
                             float a, float b, int n, cudaStream_t stream) {
  static cudaStream_t Mine = [] {
    cudaStream_t S;
    cudaStreamCreateWithFlags(&S, cudaStreamNonBlocking);
    return S;
  }();
  spin<<<132, 128, 0, Mine>>>(200000000, nullptr);
  honestAxpby(x, y, out, a, b, n, stream);
}
