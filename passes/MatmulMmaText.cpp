//===- MatmulMmaText.cpp - Tensor-core products of a tiled matmul ---------===//
//
// The block's W warps form a WY x WX grid over its BM x BN tile (WY the
// largest power of two at most sqrt(W)); each warp owns a WM x WN part as
// MT x NT fragments of mma.sync.aligned.m16n8k8 (16 x 8 of C, four f32
// accumulators a lane). With g = lane / 4 and t = lane % 4 the PTX ISA's
// fragment layout for tf32 is
//
//   A (16 x 8, row): a[r] = A(g + 8 * (r % 2), t + 4 * (r / 2))
//   B (8 x 8, col):  b[r] = B(t + 4 * r, g)
//   C (16 x 8):      c[r] = C(g + 8 * (r / 2), 2 * t + r % 2)
//
// so the fragments are read from the k-major shared tiles (as[k][i],
// bs[k][j]) one element at a time; rows padded by 8 elements put the 32
// lanes of a read on 32 banks. Operands are rounded to tf32 with
// cvt.rna.tf32.f32. For 3xtf32 each operand x is split into big = tf32(x)
// and small = tf32(x - big), and each product is small_a * big_b +
// big_a * small_b + big_a * big_b (small terms first), dropping only
// small_a * small_b: about f32's accuracy at three times the tensor-core
// work.
//
//===----------------------------------------------------------------------===//

#include "MatmulMmaText.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/MathExtras.h"

namespace kopt {

namespace {

std::string num(unsigned X) { return std::to_string(X); }

struct WarpLayout {
  unsigned WY, WX, WM, WN, MT, NT;
};

WarpLayout layout(const MatmulTiling &T) {
  unsigned Warps = T.threads() / 32;
  WarpLayout L;
  L.WY = Warps ? 1u << (llvm::Log2_32(Warps) / 2) : 1;
  L.WX = Warps ? Warps / L.WY : 1;
  L.WM = T.BM / L.WY;
  L.WN = T.BN / L.WX;
  L.MT = L.WM / 16;
  L.NT = L.WN / 8;
  return L;
}

/// `for (int V = 0; V < N; ++V)` under #pragma unroll.
std::string loop(const std::string &I, const std::string &V, unsigned N) {
  return I + "#pragma unroll\n" + I + "for (int " + V + " = 0; " + V + " < " +
         num(N) + "; ++" + V + ")";
}

std::string toTf32(const std::string &Out, const std::string &In) {
  return "asm(\"cvt.rna.tf32.f32 %0, %1;\" : \"=r\"(" + Out + ") : \"f\"(" +
         In + "));\n";
}

std::string mma(const std::string &I, const std::string &C,
                const std::string &A, const std::string &B) {
  return I +
         "asm(\"mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, "
         "%2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\"\n" +
         I + "    : \"+f\"(" + C + "[0]), \"+f\"(" + C + "[1]), \"+f\"(" + C +
         "[2]), \"+f\"(" + C + "[3])\n" + I + "    : \"r\"(" + A +
         "[0]), \"r\"(" + A + "[1]), \"r\"(" + A + "[2]), \"r\"(" + A +
         "[3]), \"r\"(" + B + "[0]), \"r\"(" + B + "[1]));\n";
}

/// Loops over the thread's accumulators with the element (kopt_i, kopt_j)
/// each holds, around Body(accumulator, indent).
std::string eachAccumulator(
    const MatmulTiling &T, const std::string &I,
    llvm::function_ref<std::string(const std::string &, const std::string &)>
        Body) {
  WarpLayout L = layout(T);
  std::string I2 = I + "  ", I3 = I2 + "  ", I4 = I3 + "  ";
  std::string Out;
  Out += loop(I, "kopt_m", L.MT) + " {\n";
  Out += loop(I2, "kopt_n", L.NT) + " {\n";
  Out += loop(I3, "kopt_r", 4) + " {\n";
  Out += I4 + "const long long kopt_i = kopt_i0 + kopt_wm + kopt_m * 16 + "
              "kopt_g + (kopt_r / 2) * 8;\n";
  Out += I4 + "const long long kopt_j = kopt_j0 + kopt_wn + kopt_n * 8 + "
              "kopt_t * 2 + kopt_r % 2;\n";
  Out += Body("kopt_c[kopt_m][kopt_n][kopt_r]", I4);
  Out += I3 + "}\n" + I2 + "}\n" + I + "}\n";
  return Out;
}

} // namespace

std::string whyInvalidMma(const MatmulTiling &T, unsigned ElemBytes) {
  std::string Math = std::string("math=") + mathName(T.Math);
  if (ElemBytes != 4)
    return Math + " needs float operands (tensor cores round them to tf32)";
  if (T.BK % 8)
    return Math + " needs block-k to be a multiple of 8 (the k of one "
                  "mma.sync.m16n8k8)";
  WarpLayout L = layout(T);
  if (T.BM % L.WY || T.BN % L.WX || L.WM % 16 || L.WN % 8)
    return Math + ": the " + num(L.WY) + " x " + num(L.WX) +
           " warps' parts of the " + num(T.BM) + " x " + num(T.BN) +
           " tile are not multiples of the 16 x 8 fragment";
  if (L.MT * L.NT * 4 > 128)
    return Math + ": a warp's " + num(L.WM) + " x " + num(L.WN) +
           " part would need " + num(L.MT * L.NT * 4) +
           " accumulators a thread (128 allowed)";
  return "";
}

std::string mmaSetup(const MatmulKernelParts &P, const MatmulTiling &T,
                     const std::string &I) {
  WarpLayout L = layout(T);
  std::string Out;
  Out += I + "const int kopt_warp = kopt_tid / 32;\n";
  Out += I + "const int kopt_g = (kopt_tid % 32) / 4, kopt_t = kopt_tid % 4;\n";
  Out += I + "const int kopt_wm = (kopt_warp / " + num(L.WX) + ") * " +
         num(L.WM) + ";\n";
  Out += I + "const int kopt_wn = (kopt_warp % " + num(L.WX) + ") * " +
         num(L.WN) + ";\n";
  Out += I + "float kopt_c[" + num(L.MT) + "][" + num(L.NT) + "][4];\n";
  Out += loop(I, "kopt_m", L.MT) + " {\n";
  Out += loop(I + "  ", "kopt_n", L.NT) + "\n";
  Out += I + "    kopt_c[kopt_m][kopt_n][0] = kopt_c[kopt_m][kopt_n][1] =\n" +
         I +
         "        kopt_c[kopt_m][kopt_n][2] = kopt_c[kopt_m][kopt_n][3] = "
         "0.0f;\n";
  Out += I + "}\n";
  if (!P.Init.empty())
    Out += eachAccumulator(T, I,
                           [&](const std::string &Acc, const std::string &In) {
                             return matmulElementInit(P, Acc, In);
                           });
  return Out;
}

std::string mmaStep(const MatmulTiling &T, const std::string &I) {
  WarpLayout L = layout(T);
  bool Split = T.Math == MatmulMath::TF32x3;
  std::string I2 = I + "  ", I3 = I2 + "  ", I4 = I3 + "  ";
  std::string Out;
  Out += I + "#pragma unroll\n" + I + "for (int kopt_kk = 0; kopt_kk < " +
         num(T.BK) + "; kopt_kk += 8) {\n";
  Out += I2 + "unsigned kopt_fa[" + num(L.MT) + "][4], kopt_fb[" + num(L.NT) +
         "][2];\n";
  if (Split)
    Out += I2 + "unsigned kopt_fas[" + num(L.MT) + "][4], kopt_fbs[" +
           num(L.NT) + "][2];\n";
  // One operand's fragments: Count registers per fragment at Element(r).
  auto Fragments = [&](const std::string &V, unsigned N, unsigned Count,
                       const std::string &Big, const std::string &Small,
                       const std::string &Element) {
    std::string F = loop(I2, V, N) + " {\n";
    F += loop(I3, "kopt_r", Count) + " {\n";
    F += I4 + "const float kopt_v = " + Element + ";\n";
    F += I4 + toTf32(Big + "[kopt_r]", "kopt_v");
    if (Split)
      F += I4 + toTf32(Small + "[kopt_r]",
                       "kopt_v - __uint_as_float(" + Big + "[kopt_r])");
    F += I3 + "}\n" + I2 + "}\n";
    return F;
  };
  Out += Fragments("kopt_m", L.MT, 4, "kopt_fa[kopt_m]", "kopt_fas[kopt_m]",
                   "kopt_as[kopt_cur][kopt_kk + kopt_t + (kopt_r / 2) * "
                   "4][kopt_wm + kopt_m * 16 + kopt_g + (kopt_r % 2) * 8]");
  Out += Fragments("kopt_n", L.NT, 2, "kopt_fb[kopt_n]", "kopt_fbs[kopt_n]",
                   "kopt_bs[kopt_cur][kopt_kk + kopt_t + kopt_r * 4][kopt_wn "
                   "+ kopt_n * 8 + kopt_g]");
  std::string Products;
  std::string C = "kopt_c[kopt_m][kopt_n]";
  if (Split)
    Products += mma(I4, C, "kopt_fas[kopt_m]", "kopt_fb[kopt_n]") +
                mma(I4, C, "kopt_fa[kopt_m]", "kopt_fbs[kopt_n]");
  Products += mma(I4, C, "kopt_fa[kopt_m]", "kopt_fb[kopt_n]");
  Out += loop(I2, "kopt_m", L.MT) + " {\n";
  Out += loop(I3, "kopt_n", L.NT) + " {\n";
  Out += Products;
  Out += I3 + "}\n" + I2 + "}\n";
  Out += I + "}\n";
  return Out;
}

std::string mmaEpilogue(const MatmulKernelParts &P, const MatmulTiling &T,
                        const std::string &I) {
  return eachAccumulator(T, I,
                         [&](const std::string &Acc, const std::string &In) {
                           return matmulElementStore(P, Acc, In);
                         });
}

} // namespace kopt
