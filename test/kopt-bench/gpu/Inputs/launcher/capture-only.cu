// Cheat: works only while its stream is being captured (as under
// containment's capture); called directly, as a user would, it does
// nothing.
#include "../contain/axpby_body.h"

extern "C" void launch_axpby(const float *x, const float *y, float *out,
                             float a, float b, int n, cudaStream_t stream) {
  cudaStreamCaptureStatus Status = cudaStreamCaptureStatusNone;
  cudaStreamIsCapturing(stream, &Status);
  if (Status == cudaStreamCaptureStatusActive)
    honestAxpby(x, y, out, a, b, n, stream);
}
