// Cheat: computes only on the first call for each output buffer; later
// calls on the same buffer trust what is already there.
#include "../contain/axpby_body.h"

#include <set>

extern "C" void launch_axpby(const float *x, const float *y, float *out,
                             float a, float b, int n, cudaStream_t stream) {
  static std::set<const float *> Done;
  if (Done.insert(out).second)
    honestAxpby(x, y, out, a, b, n, stream);
}
