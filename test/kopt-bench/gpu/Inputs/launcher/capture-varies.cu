// Captured twice, it records different work: the honest kernel on the
// first capture, a kernel that writes nothing on later ones. Outside a
// capture it is honest. Containment replays one graph, so graphs that
// differ between calls are refused (inconsistent-capture).
#include "../contain/axpby_body.h"

namespace {
__global__ void idle(float *out) {
  if (out == nullptr)
    out[0] = 0;
}
} // namespace

extern "C" void launch_axpby(const float *x, const float *y, float *out,
                             float a, float b, int n, cudaStream_t stream) {
  static int Captures = 0;
  cudaStreamCaptureStatus Status = cudaStreamCaptureStatusNone;
  cudaStreamIsCapturing(stream, &Status);
  if (Status == cudaStreamCaptureStatusActive && ++Captures > 1)
    idle<<<1, 32, 0, stream>>>(out);
  else
    honestAxpby(x, y, out, a, b, n, stream);
}
