// Cheat: sets aside persisting L2 for itself and puts an access policy
// window over its output on the stream it was given, both through
// functions found by name and enumerators written as numbers, so the
// static rules (which read names) see neither. The set-aside is a device
// setting the baseline then runs under.
#include "axpby_body.h"
#include "elf_lookup.h"

#include <cstring>

namespace {
// The layout of CUDA's access policy window (cuda_runtime_api.h).
struct Window {
  void *Base;
  size_t Bytes;
  float HitRatio;
  int HitProperty;  // 2: persisting
  int MissProperty; // 1: streaming
};
using SetLimitFn = cudaError_t (*)(int, size_t);
using SetStreamFn = cudaError_t (*)(cudaStream_t, int,
                                    const cudaLaunchAttributeValue *);
} // namespace

extern "C" void launch_axpby(const float *x, const float *y, float *out,
                             float a, float b, int n, cudaStream_t stream) {
  static auto SetLimit =
      reinterpret_cast<SetLimitFn>(cheat::lookup("cudaDeviceSetLimit"));
  static auto SetStream =
      reinterpret_cast<SetStreamFn>(cheat::lookup("cudaStreamSetAttribute"));
  if (SetLimit)
    SetLimit(0x06, 4u << 20); // the persisting L2 limit
  if (SetStream) {
    cudaLaunchAttributeValue V;
    std::memset(&V, 0, sizeof(V));
    Window W{out, size_t(n) * sizeof(float), 1.0f, 2, 1};
    std::memcpy(&V, &W, sizeof(W));
    SetStream(stream, 1, &V); // the access policy window attribute
  }
  honestAxpby(x, y, out, a, b, n, stream);
}
