// Host check of fp4-intrinsics' rewrite of an NVFP4 kernel, over every fp32
// bit pattern: KERNEL is the rewritten kernel.cu, which still defines the
// original helper float_to_e2m1 next to the wrapper kopt_float_to_e2m1_x2
// the pass emitted. For every pattern x (in the low nibble, and with a
// companion pattern in the high nibble, so the high nibble also sees every
// pattern):
//   * the wrapper equals float_to_e2m1(lo) | (float_to_e2m1(hi) << 4)
//     exactly (NaNs included) with EXACT_NAN=1; with EXACT_NAN=0 it differs
//     only where a NaN has the sign bit set (0x7 instead of 0xF);
//   * float_to_e2m1 equals an independent exact reference (nearest of the
//     e2m1 grid, ties to the even code, saturating; sign bit kept);
//   * the intrinsic's host implementation (__nv_cvt_float2_to_fp4x2, the
//     emulation cuda_fp4.hpp documents as round to nearest even, satfinite,
//     NaN to +6) equals the helper everywhere except NaNs with the sign bit.
// The hardware instruction (sm_100a) cannot run here; its PTX is checked by
// ptx.test, and NVIDIA documents the same results for it.
#include KERNEL

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>

static const double Grid[8] = {0, 0.5, 1, 1.5, 2, 3, 4, 6};

static int reference(float v) {
  if (std::isnan(v))
    return (std::signbit(v) ? 8 : 0) | 7;
  double a = std::fabs(static_cast<double>(v));
  int best = 7;
  if (a < 0.25) // nearer 0 than 0.5 (most patterns: a fast path)
    best = 0;
  else if (a < 6) {
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

static float fromBits(uint32_t b) {
  float f;
  std::memcpy(&f, &b, sizeof f);
  return f;
}

static bool negativeNaN(float f) { return std::isnan(f) && std::signbit(f); }

int main(int argc, char **argv) {
  // A stride > 1 samples the patterns (and then adds every NaN).
  uint64_t stride = argc > 1 ? std::strtoull(argv[1], nullptr, 0) : 1;
  uint64_t checked = 0, failures = 0;
  auto fail = [&](const char *what, uint32_t lo, uint32_t hi, int got,
                  int want) {
    if (failures++ < 10)
      std::printf("%s: lo=0x%08x hi=0x%08x got 0x%02x want 0x%02x\n", what,
                  lo, hi, got, want);
  };
  // With a stride, every NaN pattern is checked as well.
  auto pattern = [&](uint64_t i) -> uint32_t {
    uint64_t sampled = (((uint64_t(1) << 32) - 1) / stride) + 1;
    if (stride == 1 || i < sampled)
      return uint32_t(i * stride);
    i -= sampled; // the 2 * (2^23 - 1) NaNs
    uint32_t payload = uint32_t(i % 0x7fffff) + 1;
    return (i < 0x7fffff ? 0x7f800000u : 0xff800000u) | payload;
  };
  uint64_t total = stride == 1 ? (uint64_t(1) << 32)
                               : (((uint64_t(1) << 32) - 1) / stride) + 1 +
                                     2 * 0x7fffff;
  for (uint64_t i = 0; i < total; ++i) {
    uint32_t lo = pattern(i);
    // A bijection, so the high nibble also sees every pattern.
    uint32_t hi = ((lo << 16) | (lo >> 16)) ^ 0x80000000u;
    float a = fromBits(lo), b = fromBits(hi);
    int ha = float_to_e2m1(a), hb = float_to_e2m1(b);
    int original = ha | (hb << 4);
    int rewritten = kopt_float_to_e2m1_x2(a, b);
    int intrinsic =
        __nv_cvt_float2_to_fp4x2(make_float2(a, b), __NV_E2M1, cudaRoundNearest);
    int expect = original;
#if !EXACT_NAN
    if (negativeNaN(a))
      expect = (expect & 0xF0) | 0x7;
    if (negativeNaN(b))
      expect = (expect & 0x0F) | 0x70;
#endif
    if (rewritten != expect)
      fail("rewrite", lo, hi, rewritten, expect);
    if (ha != reference(a))
      fail("helper vs reference", lo, lo, ha, reference(a));
    int intrinsicExpect = original;
    if (negativeNaN(a))
      intrinsicExpect = (intrinsicExpect & 0xF0) | 0x7;
    if (negativeNaN(b))
      intrinsicExpect = (intrinsicExpect & 0x0F) | 0x70;
    if (intrinsic != intrinsicExpect)
      fail("intrinsic", lo, hi, intrinsic, intrinsicExpect);
    ++checked;
  }
  std::printf("%llu patterns, %llu wrong\n", (unsigned long long)checked,
              (unsigned long long)failures);
  return failures ? 1 : 0;
}
