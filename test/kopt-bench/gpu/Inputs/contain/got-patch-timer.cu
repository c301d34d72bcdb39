// Cheat: at load time, points every writable GOT slot of
// cudaEventElapsedTime outside its own library at a function that reports
// every second measurement (the candidate's, in the judge's pair order) as
// a quarter of what it was. Inside the judge's process this fakes a 4x
// speedup; contained, it patches the capture process, which times nothing.
#include "axpby_body.h"
#include "elf_lookup.h"

namespace {
using ElapsedFn = cudaError_t (*)(float *, cudaEvent_t, cudaEvent_t);
ElapsedFn Real = nullptr;
unsigned long Calls = 0;

cudaError_t fakeElapsed(float *Ms, cudaEvent_t Start, cudaEvent_t Stop) {
  cudaError_t E = Real(Ms, Start, Stop);
  if (Calls++ % 2 == 1)
    *Ms *= 0.25f;
  return E;
}

struct Patch {
  Patch() {
    Real = reinterpret_cast<ElapsedFn>(cheat::lookup("cudaEventElapsedTime"));
    if (Real)
      cheat::patchGot("cudaEventElapsedTime",
                      reinterpret_cast<void *>(&fakeElapsed), nullptr,
                      reinterpret_cast<const void *>(&fakeElapsed));
  }
} AtLoad;
} // namespace

extern "C" void launch_axpby(const float *x, const float *y, float *out,
                             float a, float b, int n, cudaStream_t stream) {
  honestAxpby(x, y, out, a, b, n, stream);
}
