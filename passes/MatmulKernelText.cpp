//===- MatmulKernelText.cpp - The source of a tiled matrix product --------===//
//
// Layout: the block's threads form a (BM / TM) x (BN / TN) grid, warps
// covering 4 x 8 of it where it has room (so a warp's vector reads of the
// tiles touch 4 and 8 distinct vectors). Thread (ty, tx) owns TM rows and
// TN columns of the block's tile, in chunks of one 16-byte vector spaced
// BM / chunks (BN / chunks) apart, so that a warp's reads of one chunk are
// contiguous in shared memory and its stores of C contiguous in global
// memory. The A tile is kept k-major (as[k][i]) and so is B (bs[k][j]);
// rows are padded by 4 elements so that a warp storing a k-major column of
// A walks distinct banks. Global loads walk whichever index has stride 1,
// so they stay contiguous across the warp for row-major, column-major and
// transposed operands alike. The next tile is loaded into registers while
// the current one is multiplied, then stored into the other shared buffer:
// one barrier per step of BK.
//
// Per output element the products are added in increasing k, one
// accumulator, as the original does; beyond K the tiles hold zeros, and
// acc + 0 * 0 == acc (except that a -0 sum becomes +0).
//
//===----------------------------------------------------------------------===//

#include "MatmulKernelText.h"
#include "MatmulMmaText.h"

#include "llvm/Support/MathExtras.h"

#include <string>

namespace kopt {

const char *const MatmulFitsHelperName = "kopt_matmul_tiles_fit";

const char *mathName(MatmulMath M) {
  switch (M) {
  case MatmulMath::Exact:
    return "f32";
  case MatmulMath::TF32:
    return "tf32";
  case MatmulMath::TF32x3:
    return "3xtf32";
  }
  return "f32";
}

std::optional<MatmulMath> parseMath(const std::string &S) {
  for (MatmulMath M : {MatmulMath::Exact, MatmulMath::TF32, MatmulMath::TF32x3})
    if (S == mathName(M))
      return M;
  return std::nullopt;
}

std::string MatmulTiling::whyInvalid(unsigned ElemBytes) const {
  auto Power = [](unsigned X) { return X && llvm::isPowerOf2_32(X); };
  if (!Power(BM) || !Power(BN) || !Power(BK) || !Power(TM) || !Power(TN))
    return "tile sizes must be powers of two";
  if (TM > BM || TN > BN || TM * TN > 256)
    return "the thread tile must fit the block tile and hold at most 256 "
           "accumulators";
  unsigned Threads = threads();
  if (Threads < 32 || Threads > 1024)
    return "the block would have " + std::to_string(Threads) +
           " threads (32 to 1024 allowed)";
  if ((BM * BK) % Threads || (BN * BK) % Threads)
    return "a tile of A or B (" + std::to_string(BM * BK) + ", " +
           std::to_string(BN * BK) + " elements) does not split evenly over " +
           std::to_string(Threads) + " threads";
  unsigned long Shared = 2ul * BK * (BM + pad() + BN + pad()) * ElemBytes;
  if (Shared > 48 * 1024)
    return "the tiles need " + std::to_string(Shared) +
           " bytes of shared memory (48 KiB allowed)";
  return Math == MatmulMath::Exact ? "" : whyInvalidMma(*this, ElemBytes);
}

namespace {

std::string num(unsigned X) { return std::to_string(X); }

/// One operand's tile: Extent rows (i of A, j of B) by BK, as the kernel
/// names it.
struct OperandTile {
  std::string Ptr, Reg, Smem, Base, Bound, OuterStride, ReduceStride;
  unsigned Extent;
  bool OuterUnit, ReduceUnit;
  /// The vector type of 16 bytes of the element ("float4"), empty if none;
  /// Vec elements a vector; VecOk names the run-time flag saying that the
  /// operand's base and the stride across vectors are aligned for it.
  std::string VecType;
  unsigned Vec;
  std::string VecOk;
};

/// This thread's part of a tile at k0 = K0 loaded into registers, and the
/// statements storing them into shared buffer kopt_buf.
struct TileCode {
  std::string Load, Store;
};

TileCode tileCode(const OperandTile &O, unsigned BK, unsigned Threads,
                  const std::string &K0, const std::string &Indent) {
  unsigned Per = O.Extent * BK / Threads;
  // The index whose stride is 1 walks first across threads (the reduced
  // one when neither is), so a warp's loads are contiguous.
  bool ReduceFirst = O.ReduceUnit || !O.OuterUnit;
  unsigned FastExtent = ReduceFirst ? BK : O.Extent;
  bool Unit = ReduceFirst ? O.ReduceUnit : O.OuterUnit;
  unsigned V = !O.VecType.empty() && Unit && FastExtent % O.Vec == 0 &&
                       Per % O.Vec == 0
                   ? O.Vec
                   : 1;
  std::string Fast = num(FastExtent / V);
  std::string Pos = "(kopt_tid + kopt_r * " + num(Threads) + ")";
  std::string FastIn = "(" + Pos + " % " + Fast + ") * " + num(V);
  std::string SlowIn = Pos + " / " + Fast;
  std::string KIn = ReduceFirst ? FastIn : SlowIn;
  std::string XIn = ReduceFirst ? SlowIn : FastIn;
  std::string I2 = Indent + "  ", I3 = I2 + "  ";
  auto Element = [&](const std::string &E) {
    std::string X = ReduceFirst ? "kopt_x" : "kopt_x + " + E;
    std::string K = ReduceFirst ? "kopt_k + " + E : "kopt_k";
    return O.Reg + "[kopt_r * " + num(V) + " + " + E + "] = " + X + " < " +
           O.Bound + " && " + K + " < kopt_K ? " + O.Ptr + "[(" + X +
           ") * (long long)(" + O.OuterStride + ") + (" + K +
           ") * (long long)(" + O.ReduceStride + ")] : kopt_elem(0);\n";
  };
  TileCode C;
  C.Load = Indent + "#pragma unroll\n" + Indent +
           "for (int kopt_r = 0; kopt_r < " + num(Per / V) + "; ++kopt_r) {\n" +
           I2 + "const long long kopt_x = " + O.Base + " + " + XIn + ";\n" + I2 +
           "const long long kopt_k = " + K0 + " + " + KIn + ";\n";
  if (V == 1) {
    C.Load += I2 + Element("0");
  } else {
    static const char *const Lanes[] = {"x", "y", "z", "w"};
    std::string Last = num(V - 1);
    C.Load += I2 + "if (" + O.VecOk + " && kopt_x" +
              (ReduceFirst ? "" : " + " + Last) + " < " + O.Bound +
              " && kopt_k" + (ReduceFirst ? " + " + Last : "") +
              " < kopt_K) {\n" + I3 + "const " + O.VecType +
              " kopt_v = *reinterpret_cast<const " + O.VecType + " *>(&" +
              O.Ptr + "[kopt_x * (long long)(" + O.OuterStride +
              ") + kopt_k * (long long)(" + O.ReduceStride + ")]);\n";
    for (unsigned E = 0; E < V; ++E)
      C.Load += I3 + O.Reg + "[kopt_r * " + num(V) + " + " + num(E) +
                "] = kopt_v." + Lanes[E] + ";\n";
    C.Load += I2 + "} else {\n" + I3 + "#pragma unroll\n" + I3 +
              "for (int kopt_e = 0; kopt_e < " + num(V) + "; ++kopt_e)\n" +
              I3 + "  " + Element("kopt_e") + I2 + "}\n";
  }
  C.Load += Indent + "}\n";
  std::string KE = ReduceFirst && V > 1 ? KIn + " + kopt_e" : KIn;
  std::string XE = !ReduceFirst && V > 1 ? XIn + " + kopt_e" : XIn;
  C.Store = Indent + "#pragma unroll\n" + Indent +
            "for (int kopt_r = 0; kopt_r < " + num(Per / V) + "; ++kopt_r) {\n" +
            Indent + "  #pragma unroll\n" + Indent +
            "  for (int kopt_e = 0; kopt_e < " + num(V) + "; ++kopt_e)\n" +
            Indent + "    " + O.Smem + "[kopt_buf][" + KE + "][" + XE + "] = " +
            O.Reg + "[kopt_r * " + num(V) + " + kopt_e];\n" + Indent + "}\n";
  return C;
}

std::string indented(const std::string &Code, const std::string &Extra) {
  std::string Out;
  size_t Start = 0;
  while (Start < Code.size()) {
    size_t End = Code.find('\n', Start);
    if (End == std::string::npos)
      End = Code.size() - 1;
    Out += Extra + Code.substr(Start, End - Start + 1);
    Start = End + 1;
  }
  return Out;
}

} // namespace

std::string tiledMatmulKernel(const MatmulKernelParts &P,
                              const MatmulTiling &T) {
  unsigned Threads = T.threads();
  // A thread's TM rows (TN columns) are chunks of one 16-byte vector each,
  // the chunks BM / chunks apart: a warp's vector reads of one chunk are
  // then contiguous in shared memory (no bank conflicts), and so are its
  // stores of C.
  auto Spread = [](unsigned Per, unsigned Extent, unsigned Vector,
                   const char *Thread) {
    unsigned V = Per < Vector ? Per : Vector;
    unsigned Chunks = Per / V;
    unsigned Span = Extent / Chunks;
    return [=](const std::string &Index) {
      std::string Within = std::string(Thread) + " * " + num(V) + " + " +
                           Index + " % " + num(V);
      return Chunks == 1 ? std::string(Thread) + " * " + num(V) + " + " + Index
                         : "(" + Index + " / " + num(V) + ") * " + num(Span) +
                               " + " + Within;
    };
  };
  unsigned Vector = P.ElemBytes ? 16 / P.ElemBytes : 1;
  auto RowOf = Spread(T.TM, T.BM, Vector, "kopt_ty");
  auto ColOf = Spread(T.TN, T.BN, Vector, "kopt_tx");
  std::string I = "  ";
  std::string Out;
  Out += "// kopt tile-matmul: " + num(T.BM) + " x " + num(T.BN) +
         " elements of " + P.Name.substr(0, P.Name.rfind("_kopt_tiled")) +
         "'s output a block, " +
         (T.Math == MatmulMath::Exact
              ? num(T.TM) + " x " + num(T.TN) + " a thread, K in steps of " +
                    num(T.BK) + ".\n"
              : "K in steps of " + num(T.BK) +
                    ", products on tensor cores "
                    "(math=" +
                    mathName(T.Math) + ": changes rounding).\n");
  Out += "__global__ void __launch_bounds__(" + num(Threads) + ") " + P.Name +
         P.Params + " {\n";
  Out += I + "typedef " + P.Elem + " kopt_elem;\n";
  Out += I + "__shared__ __align__(16) kopt_elem kopt_as[2][" + num(T.BK) +
         "][" + num(T.BM + T.pad()) + "];\n";
  Out += I + "__shared__ __align__(16) kopt_elem kopt_bs[2][" + num(T.BK) +
         "][" + num(T.BN + T.pad()) + "];\n";
  Out += I + "const long long kopt_M = (long long)(" + P.M +
         "), kopt_N = (long long)(" + P.N + "), kopt_K = (long long)(" + P.K +
         ");\n";
  Out += I + "const int kopt_tid = threadIdx.x;\n";
  // Warps cover 4 x 8 threads of the thread grid where it has room, so
  // that a warp's reads of the A and B tiles touch 4 and 8 vectors each.
  // (The tensor-core path places warps itself: mmaSetup.)
  bool Exact = T.Math == MatmulMath::Exact;
  unsigned ThreadsX = T.BN / T.TN, ThreadsY = T.BM / T.TM;
  if (Exact && ThreadsX % 8 == 0 && ThreadsY % 4 == 0) {
    Out += I + "const int kopt_warp = kopt_tid / 32, kopt_lane = kopt_tid % 32;\n";
    Out += I + "const int kopt_ty = (kopt_warp / " + num(ThreadsX / 8) +
           ") * 4 + kopt_lane / 8;\n";
    Out += I + "const int kopt_tx = (kopt_warp % " + num(ThreadsX / 8) +
           ") * 8 + kopt_lane % 8;\n";
  } else if (Exact) {
    Out += I + "const int kopt_ty = kopt_tid / " + num(ThreadsX) + ";\n";
    Out += I + "const int kopt_tx = kopt_tid % " + num(ThreadsX) + ";\n";
  }
  Out += I + "const long long kopt_i0 = (long long)blockIdx.y * " + num(T.BM) +
         ";\n";
  Out += I + "const long long kopt_j0 = (long long)blockIdx.x * " + num(T.BN) +
         ";\n";
  if (Exact) {
    Out += I + "kopt_elem kopt_acc[" + num(T.TM) + "][" + num(T.TN) + "];\n";
    Out += I + "#pragma unroll\n" + I + "for (int kopt_m = 0; kopt_m < " +
           num(T.TM) + "; ++kopt_m) {\n" + I + "  #pragma unroll\n" + I +
           "  for (int kopt_n = 0; kopt_n < " + num(T.TN) + "; ++kopt_n)";
    if (P.Init.empty()) {
      Out += "\n" + I + "    kopt_acc[kopt_m][kopt_n] = kopt_elem(0);\n";
    } else {
      std::string I3 = I + "    ";
      Out += " {\n" + I3 + "kopt_acc[kopt_m][kopt_n] = kopt_elem(0);\n";
      Out +=
          I3 + "const long long kopt_i = kopt_i0 + " + RowOf("kopt_m") + ";\n";
      Out +=
          I3 + "const long long kopt_j = kopt_j0 + " + ColOf("kopt_n") + ";\n";
      Out += matmulElementInit(P, "kopt_acc[kopt_m][kopt_n]", I3);
      Out += I + "  }\n";
    }
    Out += I + "}\n";
  } else {
    Out += mmaSetup(P, T, I);
  }
  std::string VecType = P.Elem == "float" ? "float4"
                        : P.Elem == "double" ? "double2"
                                             : "";
  unsigned Vec = P.ElemBytes ? 16 / P.ElemBytes : 1;
  OperandTile A{P.A, "kopt_ra", "kopt_as", "kopt_i0", "kopt_M", P.AOuter,
                P.AReduce, T.BM, P.AOuterUnit, P.AReduceUnit, VecType, Vec,
                "kopt_vec_a"};
  OperandTile B{P.B, "kopt_rb", "kopt_bs", "kopt_j0", "kopt_N", P.BOuter,
                P.BReduce, T.BN, P.BOuterUnit, P.BReduceUnit, VecType, Vec,
                "kopt_vec_b"};
  // 16-byte loads where the operand's base is aligned and so is the stride
  // from one vector's row to the next (checked once, the same in every
  // thread).
  if (!VecType.empty())
    for (const OperandTile *O : {&A, &B}) {
      bool ReduceFirst = O->ReduceUnit || !O->OuterUnit;
      Out += I + "const bool " + O->VecOk + " = (unsigned long long)(" +
             O->Ptr + ") % 16 == 0 && (long long)(" +
             (ReduceFirst ? O->OuterStride : O->ReduceStride) + ") % " +
             num(Vec) + " == 0;\n";
    }
  auto Tiles = [&](const std::string &K0, const std::string &Ind) {
    TileCode CA = tileCode(A, T.BK, Threads, K0, Ind);
    TileCode CB = tileCode(B, T.BK, Threads, K0, Ind);
    return std::make_pair(CA.Load + CB.Load, CA.Store + CB.Store);
  };
  auto [Load0, Store0] = Tiles("0", I + "  ");
  std::string I2 = I + "  ";
  auto [LoadNext, StoreNext] = Tiles("kopt_k0 + " + num(T.BK), I2 + "  ");
  std::string I3 = I2 + "  ";
  // One step of BK on the tiles in buffer kopt_cur.
  std::string Compute;
  Compute += I2 + "#pragma unroll\n" + I2 + "for (int kopt_k = 0; kopt_k < " +
             num(T.BK) + "; ++kopt_k) {\n";
  Compute += I3 + "kopt_elem kopt_a[" + num(T.TM) + "], kopt_b[" + num(T.TN) +
             "];\n";
  Compute += I3 + "#pragma unroll\n" + I3 + "for (int kopt_m = 0; kopt_m < " +
             num(T.TM) + "; ++kopt_m)\n" + I3 +
             "  kopt_a[kopt_m] = kopt_as[kopt_cur][kopt_k][" + RowOf("kopt_m") +
             "];\n";
  Compute += I3 + "#pragma unroll\n" + I3 + "for (int kopt_n = 0; kopt_n < " +
             num(T.TN) + "; ++kopt_n)\n" + I3 +
             "  kopt_b[kopt_n] = kopt_bs[kopt_cur][kopt_k][" + ColOf("kopt_n") +
             "];\n";
  Compute += I3 + "#pragma unroll\n" + I3 + "for (int kopt_m = 0; kopt_m < " +
             num(T.TM) + "; ++kopt_m) {\n" + I3 + "  #pragma unroll\n" + I3 +
             "  for (int kopt_n = 0; kopt_n < " + num(T.TN) + "; ++kopt_n)\n" +
             I3 +
             "    kopt_acc[kopt_m][kopt_n] += kopt_a[kopt_m] * kopt_b[kopt_n];\n" +
             I3 + "}\n";
  Compute += I2 + "}\n";
  std::string Step = I + "for (long long kopt_k0 = 0; kopt_k0 < kopt_K; "
                         "kopt_k0 += " +
                     num(T.BK) + ") {\n" + I2 + "const int kopt_cur = (int)(kopt_k0 / " +
                     num(T.BK) + ") & 1;\n" + I2 +
                     "const bool kopt_more = kopt_k0 + " + num(T.BK) +
                     " < kopt_K;\n";
  // The next tile is loaded into registers while this one is multiplied.
  Out += I + "kopt_elem kopt_ra[" + num(T.BM * T.BK / Threads) + "], kopt_rb[" +
         num(T.BN * T.BK / Threads) + "];\n";
  Out += I + "{\n" + Load0 + I + "  const int kopt_buf = 0;\n" + Store0 + I +
         "}\n";
  Out += I + "__syncthreads();\n";
  Out += Step;
  Out += I2 + "if (kopt_more) {\n" + LoadNext + I2 + "}\n";
  Out += Exact ? Compute : mmaStep(T, I2);
  Out += I2 + "if (kopt_more) {\n" + I2 + "  const int kopt_buf = kopt_cur ^ 1;\n" +
         StoreNext + I2 + "}\n";
  Out += I2 + "__syncthreads();\n";
  Out += I + "}\n";
  // The original guard and store, for each of the thread's elements.
  if (!Exact) {
    Out += mmaEpilogue(P, T, I);
    Out += "}\n";
    return Out;
  }
  Out += I + "#pragma unroll\n" + I + "for (int kopt_m = 0; kopt_m < " +
         num(T.TM) + "; ++kopt_m) {\n";
  Out += I2 + "#pragma unroll\n" + I2 + "for (int kopt_n = 0; kopt_n < " +
         num(T.TN) + "; ++kopt_n) {\n";
  Out += I3 + "const long long kopt_i = kopt_i0 + " + RowOf("kopt_m") + ";\n";
  Out += I3 + "const long long kopt_j = kopt_j0 + " + ColOf("kopt_n") + ";\n";
  Out += matmulElementStore(P, "kopt_acc[kopt_m][kopt_n]", I3);
  Out += I2 + "}\n";
  Out += I + "}\n";
  Out += "}\n";
  return Out;
}

std::string matmulElementInit(const MatmulKernelParts &P,
                              const std::string &Acc, const std::string &I) {
  std::string Out;
  Out += I + "if (kopt_i < kopt_M && kopt_j < kopt_N) {\n";
  Out += I + "  " + P.RowDecl + " = kopt_i;\n";
  Out += I + "  " + P.ColDecl + " = kopt_j;\n";
  Out += I + "  if (" + P.Guard + ")\n";
  Out += I + "    " + Acc + " = " + P.Init + ";\n";
  Out += I + "}\n";
  return Out;
}

std::string matmulElementStore(const MatmulKernelParts &P,
                               const std::string &Acc, const std::string &I) {
  std::string Out;
  Out +=
      I + "if (kopt_i >= kopt_M || kopt_j >= kopt_N)\n" + I + "  continue;\n";
  Out += I + P.RowDecl + " = kopt_i;\n";
  Out += I + P.ColDecl + " = kopt_j;\n";
  Out += I + P.AccDecl + " = " + Acc + ";\n";
  Out += I + "if (" + P.Guard + ")\n";
  Out += indented(P.Store + "\n", I + "  ");
  return Out;
}

std::string matmulFitsHelper() {
  return std::string(
             "// kopt tile-matmul: the tiled kernel is launched only where it "
             "computes what the\n// original does: C (elements of CSize "
             "bytes) overlaps neither A nor B, and the\n// grid fits. Each "
             "matrix spans X rows of stride XS and Y columns of stride YS.\n"
             "static inline bool ") +
         MatmulFitsHelperName +
         "(long long M, long long N, long long K, long long BM,\n"
         "    long long BN, const void *A, long long AMS, long long AKS,\n"
         "    unsigned long long ASize, const void *B, long long BKS,\n"
         "    long long BNS, unsigned long long BSize, const void *C,\n"
         "    long long CMS, long long CNS, unsigned long long CSize) {\n"
         "  if (M <= 0 || N <= 0 || (M + BM - 1) / BM > 65535 ||\n"
         "      (N + BN - 1) / BN > 2147483647LL)\n"
         "    return false;\n"
         "  struct Span {\n"
         "    unsigned long long Lo, Hi;\n"
         "  };\n"
         "  auto SpanOf = [](const void *P, long long X, long long XS, "
         "long long Y,\n"
         "                   long long YS, unsigned long long Size) {\n"
         "    long long DX = (X - 1) * XS, DY = (Y - 1) * YS;\n"
         "    long long Lo = (DX < 0 ? DX : 0) + (DY < 0 ? DY : 0);\n"
         "    long long Hi = (DX > 0 ? DX : 0) + (DY > 0 ? DY : 0);\n"
         "    unsigned long long Base = (unsigned long long)P;\n"
         "    return Span{Base + (unsigned long long)Lo * Size,\n"
         "                Base + (unsigned long long)(Hi + 1) * Size};\n"
         "  };\n"
         "  Span SC = SpanOf(C, M, CMS, N, CNS, CSize);\n"
         "  if (K <= 0)\n"
         "    return true;\n"
         "  Span SA = SpanOf(A, M, AMS, K, AKS, ASize);\n"
         "  Span SB = SpanOf(B, K, BKS, N, BNS, BSize);\n"
         "  return (SC.Hi <= SA.Lo || SA.Hi <= SC.Lo) &&\n"
         "         (SC.Hi <= SB.Lo || SB.Hi <= SC.Lo);\n"
         "}\n\n";
}

} // namespace kopt
