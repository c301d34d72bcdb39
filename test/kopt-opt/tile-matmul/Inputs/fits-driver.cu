// Calls the run-time check tile-matmul adds (kopt_matmul_tiles_fit) of the
// rewritten file KOPT_TILED on host memory: it must pick the tiled kernel
// exactly when C overlaps neither A nor B and the grid fits.
#include KOPT_TILED
#include <cstdio>

static int Failures = 0;
static void expect(bool Got, bool Want, const char *What) {
  std::printf("%s: %s\n", What, Got ? "tiled" : "original");
  if (Got != Want)
    ++Failures;
}

int main() {
  static float Mem[1 << 16];
  const long long M = 10, N = 20, K = 30;
  float *A = Mem, *B = Mem + M * K, *C = B + K * N;
  auto Fits = [&](const float *A, const float *B, const float *C, long long M,
                  long long N, long long K) {
    // Row-major A (M x K), B (K x N), C (M x N).
    return kopt_matmul_tiles_fit(M, N, K, 128, 128, A, K, 1, 4, B, N, 1, 4, C,
                                 N, 1, 4);
  };
  expect(Fits(A, B, C, M, N, K), true, "apart, C right after B");
  expect(Fits(A, B, A, M, N, K), false, "C is A");
  expect(Fits(A, B, B + 5, M, N, K), false, "C inside B");
  expect(Fits(A, B, A + M * K - 1, M, N, K), false, "C starts at A's last element");
  expect(Fits(A, B, B - M * N, M, N, K), false, "C ends inside A");
  expect(Fits(A, B, A, M, N, 0), true, "K = 0: A and B are not read");
  expect(Fits(A, B, C, 0, N, K), false, "M = 0");
  expect(Fits(A, B, C, 65535LL * 128 + 1, 1, 0), false, "grid y too large");
  expect(Fits(A, B, C, 65535LL * 128, 1, 0), true, "grid y at the limit");
  std::printf("%d failures\n", Failures);
  return Failures != 0;
}
