// Runs kernels/rmsnorm_bf16's launcher as written (compiled with its names
// prefixed ref_) and as rewritten (shared-cache, alone or in -O), on rows
// that fit the shared-memory cache (whole vectors, a tail), rows longer
// than it (the original loops run), odd widths (every other row starts off
// a 16-byte boundary) and a matrix that starts one element past an aligned
// address. The bf16 outputs must be equal bit for bit: each thread adds the
// same squares in the same order. Prints one line per case and "N failed".
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <vector>

extern "C" void launch_rmsnorm(const __nv_bfloat16 *x, const __nv_bfloat16 *w,
                               __nv_bfloat16 *out, float eps, int rows,
                               int hidden, cudaStream_t stream);
extern "C" void ref_launch_rmsnorm(const __nv_bfloat16 *x,
                                   const __nv_bfloat16 *w, __nv_bfloat16 *out,
                                   float eps, int rows, int hidden,
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

static unsigned Seed = 4242;
static float uniform() {
  Seed = Seed * 1103515245u + 12345u;
  return float(Seed >> 8) / float(1u << 24) * 2.0f - 1.0f;
}

int main() {
  // rows, hidden, elements the matrix starts past an aligned address
  const int Cases[][3] = {{64, 8192, 0}, {37, 1001, 0}, {17, 4099, 0},
                          {5, 1, 0},     {3, 20000, 0}, {9, 8200, 0},
                          {8, 8184, 0},  {4, 100, 0},   {6, 4096, 1},
                          {2, 8, 0}};
  int Failed = 0, N = 0;
  for (const auto &C : Cases) {
    int Rows = C[0], Hidden = C[1], Skew = C[2];
    size_t Elems = size_t(Rows) * Hidden;
    std::vector<__nv_bfloat16> X(Elems + Skew), W(Hidden);
    for (auto &V : X)
      V = __float2bfloat16(uniform() * 8.0f);
    for (auto &V : W)
      V = __float2bfloat16(1.0f + uniform() * 0.5f);
    __nv_bfloat16 *DX, *DW, *DOut, *DRef;
    CHECK(cudaMalloc(&DX, X.size() * sizeof(__nv_bfloat16)));
    CHECK(cudaMalloc(&DW, W.size() * sizeof(__nv_bfloat16)));
    CHECK(cudaMalloc(&DOut, Elems * sizeof(__nv_bfloat16)));
    CHECK(cudaMalloc(&DRef, Elems * sizeof(__nv_bfloat16)));
    CHECK(cudaMemcpy(DX, X.data(), X.size() * sizeof(__nv_bfloat16),
                     cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(DW, W.data(), W.size() * sizeof(__nv_bfloat16),
                     cudaMemcpyHostToDevice));
    launch_rmsnorm(DX + Skew, DW, DOut, 1e-6f, Rows, Hidden, 0);
    ref_launch_rmsnorm(DX + Skew, DW, DRef, 1e-6f, Rows, Hidden, 0);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    std::vector<__nv_bfloat16> Out(Elems), Ref(Elems);
    CHECK(cudaMemcpy(Out.data(), DOut, Elems * sizeof(__nv_bfloat16),
                     cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(Ref.data(), DRef, Elems * sizeof(__nv_bfloat16),
                     cudaMemcpyDeviceToHost));
    size_t Bad = 0;
    for (size_t I = 0; I < Elems; ++I)
      if (std::memcmp(&Out[I], &Ref[I], sizeof(__nv_bfloat16)) != 0) {
        if (!Bad)
          std::printf("element %zu: rewritten %.9g, original %.9g\n", I,
                      __bfloat162float(Out[I]), __bfloat162float(Ref[I]));
        ++Bad;
      }
    ++N;
    std::printf("%s: %dx%d skew %d\n", Bad ? "FAIL" : "ok", Rows, Hidden,
                Skew);
    Failed += Bad != 0;
    CHECK(cudaFree(DX));
    CHECK(cudaFree(DW));
    CHECK(cudaFree(DOut));
    CHECK(cudaFree(DRef));
  }
  std::printf("%d cases\n%d failed\n", N, Failed);
  return Failed != 0;
}
