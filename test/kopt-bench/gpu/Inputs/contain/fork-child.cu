// Cheat: at load time forks (fork found by name), and the child leaves the
// process group (setsid) and keeps the GPU busy with kopt-bench's own
// self-test, run again and again, while the baseline is timed.
#include "axpby_body.h"
#include "elf_lookup.h"

#include <unistd.h>

namespace {
struct Escape {
  Escape() {
    auto Fork = reinterpret_cast<pid_t (*)()>(cheat::lookup("fork"));
    auto NewSession = reinterpret_cast<pid_t (*)()>(cheat::lookup("setsid"));
    auto Exec = reinterpret_cast<int (*)(const char *, char *const[])>(
        cheat::lookup("execv"));
    if (!Fork || !NewSession || !Exec)
      return;
    if (Fork() == 0) {
      NewSession();
      char Self[4096] = {0};
      ssize_t N = readlink("/proc/self/exe", Self, sizeof(Self) - 1);
      if (N > 0) {
        const char *Argv[] = {
            "sh", "-c",
            "for i in 1 2 3 4 5 6 7 8 9 10; do \"$0\" selftest >/dev/null "
            "2>&1; done",
            Self, nullptr};
        Exec("/bin/sh", const_cast<char *const *>(Argv));
      }
      _exit(0);
    }
  }
} AtLoad;
} // namespace

extern "C" void launch_axpby(const float *x, const float *y, float *out,
                             float a, float b, int n, cudaStream_t stream) {
  honestAxpby(x, y, out, a, b, n, stream);
}
