// Runs kernels/rowsum_bf16's launcher as written (compiled with its names
// prefixed ref_) and as staged-loads rewrote it, on rows of several widths:
// whole chunks, chunks and a tail, shorter than a chunk, rows starting off
// a 16-byte boundary (odd widths: the original loop runs). The float sums
// must be equal bit for bit: each thread adds the same elements in the
// same order. Prints one line per shape and "N failed".
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <vector>

extern "C" void launch_row_sum(const __nv_bfloat16 *x, float *out, int rows,
                               int cols, cudaStream_t stream);
extern "C" void ref_launch_row_sum(const __nv_bfloat16 *x, float *out,
                                   int rows, int cols, cudaStream_t stream);

#define CHECK(X)                                                               \
  do {                                                                         \
    cudaError_t E = (X);                                                       \
    if (E != cudaSuccess) {                                                    \
      std::printf("CUDA error %s at %s:%d\n", cudaGetErrorString(E), __FILE__, \
                  __LINE__);                                                   \
      std::exit(2);                                                            \
    }                                                                          \
  } while (0)

static unsigned Seed = 777;
static float uniform() {
  Seed = Seed * 1103515245u + 12345u;
  return float(Seed >> 8) / float(1u << 24) * 2.0f - 1.0f;
}

int main() {
  const int Shapes[][2] = {{64, 8192}, {37, 1001}, {17, 4099}, {5, 1},
                           {3, 20000}, {8, 16384}, {9, 8200}, {4, 100}};
  int Failed = 0, Cases = 0;
  for (const auto &S : Shapes) {
    int Rows = S[0], Cols = S[1];
    std::vector<__nv_bfloat16> X(size_t(Rows) * Cols);
    for (auto &V : X)
      V = __float2bfloat16(uniform() * 1000.0f);
    __nv_bfloat16 *DX;
    float *DOut, *DRef;
    CHECK(cudaMalloc(&DX, X.size() * sizeof(__nv_bfloat16)));
    CHECK(cudaMalloc(&DOut, Rows * sizeof(float)));
    CHECK(cudaMalloc(&DRef, Rows * sizeof(float)));
    CHECK(cudaMemcpy(DX, X.data(), X.size() * sizeof(__nv_bfloat16),
                     cudaMemcpyHostToDevice));
    launch_row_sum(DX, DOut, Rows, Cols, 0);
    ref_launch_row_sum(DX, DRef, Rows, Cols, 0);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    std::vector<float> Out(Rows), Ref(Rows);
    CHECK(cudaMemcpy(Out.data(), DOut, Rows * sizeof(float),
                     cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(Ref.data(), DRef, Rows * sizeof(float),
                     cudaMemcpyDeviceToHost));
    int Bad = 0;
    for (int R = 0; R < Rows; ++R)
      if (std::memcmp(&Out[R], &Ref[R], sizeof(float)) != 0) {
        if (!Bad)
          std::printf("row %d: rewritten %.9g, original %.9g\n", R, Out[R],
                      Ref[R]);
        ++Bad;
      }
    ++Cases;
    std::printf("%s: %dx%d\n", Bad ? "FAIL" : "ok", Rows, Cols);
    Failed += Bad != 0;
    CHECK(cudaFree(DX));
    CHECK(cudaFree(DOut));
    CHECK(cudaFree(DRef));
  }
  std::printf("%d cases\n%d failed\n", Cases, Failed);
  return Failed != 0;
}
