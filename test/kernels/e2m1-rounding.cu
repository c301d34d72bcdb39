// The NVFP4 kernels' hand-written e2m1 conversion rounds to nearest with
// ties to the even code and saturates: checked on the host against an exact
// reference at every midpoint of the e2m1 grid, one float either side of
// it, and a sweep of [-8, 8]. The three kernels carry the same function.
// REQUIRES: cuda-toolkit
// RUN: %nvcc -std=c++17 -o %t %s -I%kernels/nvfp4_quantize -DKERNEL=\"%kernels/nvfp4_quantize/kernel.cu\"
// RUN: %t
// RUN: sed -n '/float_to_e2m1(float v)/,/^}/p' %kernels/nvfp4_quantize/kernel.cu > %t.a
// RUN: sed -n '/float_to_e2m1(float v)/,/^}/p' %kernels/add_rmsnorm_fp4quant/kernel.cu > %t.b
// RUN: sed -n '/float_to_e2m1(float v)/,/^}/p' %kernels/silu_mul_fp4quant/kernel.cu > %t.c
// RUN: test -s %t.a && diff %t.a %t.b && diff %t.a %t.c
#include KERNEL

#include <cmath>
#include <cstdio>

static const double Grid[8] = {0, 0.5, 1, 1.5, 2, 3, 4, 6};

// Nearest grid value, ties to the even code, everything >= 6 saturating.
static int reference(float v) {
  double a = std::fabs(static_cast<double>(v));
  int best = 7;
  if (a < 6) {
    double bestDist = 1e30;
    for (int c = 0; c < 8; ++c) {
      double d = std::fabs(a - Grid[c]);
      if (d < bestDist || (d == bestDist && c % 2 == 0)) {
        bestDist = d;
        best = c;
      }
    }
  }
  return (std::signbit(v) ? 8 : 0) | best;
}

static int failures = 0;
static void expect(float v) {
  int got = float_to_e2m1(v), want = reference(v);
  if (got != want && failures++ < 10)
    std::printf("float_to_e2m1(%a) = %d, expected %d\n", v, got, want);
}

int main() {
  int checked = 0;
  for (int c = 0; c < 7; ++c) {
    float mid = static_cast<float>((Grid[c] + Grid[c + 1]) / 2);
    for (float v : {mid, std::nextafter(mid, 0.0f), std::nextafter(mid, 8.0f)}) {
      expect(v);
      expect(-v);
      checked += 2;
    }
  }
  for (float v = -8.0f; v <= 8.0f; v += 1.0f / 1024) {
    expect(v);
    ++checked;
  }
  for (float v : {0.0f, -0.0f, 6.0f, 6.5f, 1e30f, -1e30f, INFINITY, -INFINITY}) {
    expect(v);
    ++checked;
  }
  std::printf("%d values, %d wrong\n", checked, failures);
  return failures ? 1 : 0;
}
