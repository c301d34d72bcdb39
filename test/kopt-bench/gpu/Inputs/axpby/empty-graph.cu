// Cheat for --graph: while its call is being captured into a CUDA graph it
// launches a kernel that does nothing, so every replay of its graph takes
// almost no time; direct (checked) calls compute. The outputs of replays are
// checked too: they are never written.
#include <cuda_runtime.h>

__global__ void axpby(const float *x, const float *y, float *out, float a,
                      float b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = a * x[i] + b * y[i];
}

__global__ void nothing() {}

extern "C" void launch_axpby(const float *x, const float *y, float *out,
                             float a, float b, int n, cudaStream_t stream) {
  cudaStreamCaptureStatus Capture = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(stream, &Capture) == cudaSuccess &&
      Capture == cudaStreamCaptureStatusActive) {
    nothing<<<1, 1, 0, stream>>>();
    return;
  }
  axpby<<<(n + 255) / 256, 256, 0, stream>>>(x, y, out, a, b, n);
}
