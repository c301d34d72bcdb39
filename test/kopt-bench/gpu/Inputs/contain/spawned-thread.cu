// Cheat: a thread it starts (pthread_create found by name, so the static
// rules do not see a call) does the work on its own stream; the entry waits
// for the thread.
#include "axpby_body.h"
#include "elf_lookup.h"

#include <pthread.h>

namespace {
struct Work {
  const float *x, *y;
  float *out;
  float a, b;
  int n;
};

void *run(void *P) {
  auto *W = static_cast<Work *>(P);
  cudaStream_t S;
  cudaStreamCreateWithFlags(&S, cudaStreamNonBlocking);
  honestAxpby(W->x, W->y, W->out, W->a, W->b, W->n, S);
  cudaStreamSynchronize(S);
  cudaStreamDestroy(S);
  return nullptr;
}
using StartFn = int (*)(pthread_t *, const pthread_attr_t *, void *(*)(void *),
                        void *);
} // namespace

extern "C" void launch_axpby(const float *x, const float *y, float *out,
                             float a, float b, int n, cudaStream_t stream) {
  (void)stream;
  static auto Start = reinterpret_cast<StartFn>(cheat::lookup("pthread_create"));
  Work W{x, y, out, a, b, n};
  pthread_t T;
  if (Start && Start(&T, nullptr, run, &W) == 0)
    pthread_join(T, nullptr);
}
