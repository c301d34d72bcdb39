// Cheat: skips a call whose pointers and size are the previous call's,
// as if the inputs could not have changed.
#include "../contain/axpby_body.h"

extern "C" void launch_axpby(const float *x, const float *y, float *out,
                             float a, float b, int n, cudaStream_t stream) {
  static const void *Last[3] = {nullptr, nullptr, nullptr};
  static int LastN = -1;
  bool Same = Last[0] == x && Last[1] == y && Last[2] == out && LastN == n;
  Last[0] = x;
  Last[1] = y;
  Last[2] = out;
  LastN = n;
  if (!Same)
    honestAxpby(x, y, out, a, b, n, stream);
}
