// Honest: splits the work over two streams of its own, forked from and
// joined back to the stream it was given with events (legal stream use).
#include "axpby_body.h"

extern "C" void launch_axpby(const float *x, const float *y, float *out,
                             float a, float b, int n, cudaStream_t stream) {
  static cudaStream_t Side[2];
  static cudaEvent_t Fork, Join[2];
  static bool Ready = [] {
    for (int I = 0; I < 2; ++I) {
      cudaStreamCreateWithFlags(&Side[I], cudaStreamNonBlocking);
      cudaEventCreateWithFlags(&Join[I], cudaEventDisableTiming);
    }
    cudaEventCreateWithFlags(&Fork, cudaEventDisableTiming);
    return true;
  }();
  (void)Ready;
  int Half = n / 2;
  cudaEventRecord(Fork, stream);
  for (int I = 0; I < 2; ++I) {
    int Begin = I * Half, Count = I ? n - Half : Half;
    cudaStreamWaitEvent(Side[I], Fork, 0);
    honestAxpby(x + Begin, y + Begin, out + Begin, a, b, Count, Side[I]);
    cudaEventRecord(Join[I], Side[I]);
    cudaStreamWaitEvent(stream, Join[I], 0);
  }
}
