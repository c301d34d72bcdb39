// Cheat: honest for 40 calls (warm-up and a short check), then skips
// every third call.
#include "../contain/axpby_body.h"

extern "C" void launch_axpby(const float *x, const float *y, float *out,
                             float a, float b, int n, cudaStream_t stream) {
  static long Calls = 0;
  ++Calls;
  if (Calls > 40 && Calls % 3 == 0)
    return;
  honestAxpby(x, y, out, a, b, n, stream);
}
