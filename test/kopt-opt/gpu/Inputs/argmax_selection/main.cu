// Runs kernels/argmax_f32's launcher as written (compiled with its names
// prefixed ref_) and as -O rewrote it on rows made to tie: small integers,
// +0.0 mixed with -0.0, NaNs, rows of -INFINITY only, all equal, on widths
// that put some rows' starts off a 16-byte boundary (the rewrite's scalar
// fallback) and others on it (its vector loop). Prints one line per case
// and "N failed"; the results must equal bit for bit, and the CPU's answer
// (the first index of the largest non-NaN element; cols if none exceeds
// -INFINITY).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <vector>

extern "C" void launch_argmax(const float *x, int *out, int rows, int cols,
                              cudaStream_t stream);
extern "C" void ref_launch_argmax(const float *x, int *out, int rows, int cols,
                                  cudaStream_t stream);

#define CHECK(X)                                                               \
  do {                                                                         \
    cudaError_t E = (X);                                                       \
    if (E != cudaSuccess) {                                                    \
      std::printf("CUDA error %s at %s:%d\n", cudaGetErrorString(E), __FILE__, \
                  __LINE__);                                                   \
      std::exit(2);                                                            \
    }                                                                          \
  } while (0)

static unsigned Seed = 12345;
static unsigned next() { return Seed = Seed * 1103515245u + 12345u; }

static int cpuArgmax(const float *Row, int Cols) {
  float V = -INFINITY;
  int Idx = Cols;
  for (int J = 0; J < Cols; ++J)
    if (Row[J] > V) {
      V = Row[J];
      Idx = J;
    }
  return Idx;
}

enum Fill { SmallInts, SignedZeros, WithNaN, AllNegInf, AllEqual, AllNaN };

static float element(Fill F, int J) {
  switch (F) {
  case SmallInts:
    return float(int(next() % 5) - 2);
  case SignedZeros:
    return next() % 2 ? 0.0f : -0.0f;
  case WithNaN:
    return next() % 3 == 0 ? NAN : float(int(next() % 7) - 3);
  case AllNegInf:
    return -INFINITY;
  case AllEqual:
    return 1.5f;
  case AllNaN:
    return NAN;
  }
  return 0;
}

int main() {
  const char *Names[] = {"small-ints", "signed-zeros", "with-nan",
                         "all-neg-inf", "all-equal", "all-nan"};
  const int Shapes[][2] = {{64, 8192}, {37, 1001}, {17, 4099}, {9, 300},
                           {5, 1},     {3, 5},     {8, 4},     {6, 2050}};
  int Failed = 0, Cases = 0;
  for (int F = SmallInts; F <= AllNaN; ++F)
    for (const auto &S : Shapes) {
      int Rows = S[0], Cols = S[1];
      std::vector<float> X(size_t(Rows) * Cols);
      for (size_t I = 0; I < X.size(); ++I)
        X[I] = element(Fill(F), int(I % Cols));
      float *DX;
      int *DOut, *DRef;
      CHECK(cudaMalloc(&DX, X.size() * sizeof(float)));
      CHECK(cudaMalloc(&DOut, Rows * sizeof(int)));
      CHECK(cudaMalloc(&DRef, Rows * sizeof(int)));
      CHECK(cudaMemcpy(DX, X.data(), X.size() * sizeof(float),
                       cudaMemcpyHostToDevice));
      launch_argmax(DX, DOut, Rows, Cols, 0);
      ref_launch_argmax(DX, DRef, Rows, Cols, 0);
      CHECK(cudaGetLastError());
      CHECK(cudaDeviceSynchronize());
      std::vector<int> Out(Rows), Ref(Rows);
      CHECK(cudaMemcpy(Out.data(), DOut, Rows * sizeof(int),
                       cudaMemcpyDeviceToHost));
      CHECK(cudaMemcpy(Ref.data(), DRef, Rows * sizeof(int),
                       cudaMemcpyDeviceToHost));
      int Bad = 0;
      for (int R = 0; R < Rows; ++R) {
        int Cpu = cpuArgmax(&X[size_t(R) * Cols], Cols);
        if (Out[R] != Ref[R] || Out[R] != Cpu) {
          if (!Bad)
            std::printf("row %d: rewritten %d, original %d, cpu %d\n", R,
                        Out[R], Ref[R], Cpu);
          ++Bad;
        }
      }
      ++Cases;
      std::printf("%s: %s %dx%d\n", Bad ? "FAIL" : "ok", Names[F], Rows, Cols);
      Failed += Bad != 0;
      CHECK(cudaFree(DX));
      CHECK(cudaFree(DOut));
      CHECK(cudaFree(DRef));
    }
  std::printf("%d cases\n%d failed\n", Cases, Failed);
  return Failed != 0;
}
