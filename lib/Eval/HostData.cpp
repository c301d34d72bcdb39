//===- HostData.cpp - Element encoding and random inputs on the host ------===//
#include "kopt/Eval/HostData.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <thread>

namespace kopt::eval {

using spec::DType;

namespace {

std::uint32_t floatBits(float F) {
  std::uint32_t U;
  std::memcpy(&U, &F, 4);
  return U;
}
float bitsFloat(std::uint32_t U) {
  float F;
  std::memcpy(&F, &U, 4);
  return F;
}

/// A small float format (f16, bf16 aside; fp8 e4m3 and e5m2) decoded from
/// its bits. \p FiniteOnlyNaN: e4m3 has no infinity, and only S.1111.111
/// is NaN.
double decodeMinifloat(std::uint32_t Bits, int ExpBits, int ManBits,
                       bool E4M3Style) {
  int Bias = (1 << (ExpBits - 1)) - 1;
  bool Negative = (Bits >> (ExpBits + ManBits)) & 1;
  std::uint32_t Exp = (Bits >> ManBits) & ((1u << ExpBits) - 1);
  std::uint32_t Man = Bits & ((1u << ManBits) - 1);
  std::uint32_t MaxExp = (1u << ExpBits) - 1;
  double Value;
  if (E4M3Style && Exp == MaxExp && Man == (1u << ManBits) - 1)
    return std::numeric_limits<double>::quiet_NaN();
  if (!E4M3Style && Exp == MaxExp)
    return Man ? std::numeric_limits<double>::quiet_NaN()
               : (Negative ? -INFINITY : INFINITY);
  if (Exp == 0)
    Value = std::ldexp(static_cast<double>(Man), 1 - Bias - ManBits);
  else
    Value = std::ldexp(static_cast<double>(Man + (1u << ManBits)),
                       static_cast<int>(Exp) - Bias - ManBits);
  return Negative ? -Value : Value;
}

/// Round-to-nearest-even into a small format by searching the sorted
/// table of its non-negative finite values; saturates to the largest
/// finite value (what __NV_SATFINITE does for fp8).
std::uint32_t encodeMinifloat(double Value, int ExpBits, int ManBits,
                              bool E4M3Style) {
  int Total = 1 + ExpBits + ManBits;
  std::uint32_t SignBit = 1u << (Total - 1);
  if (std::isnan(Value))
    return E4M3Style ? 0x7F : 0x7F; // canonical NaN for both fp8 formats
  bool Negative = std::signbit(Value);
  double Magnitude = std::fabs(Value);
  // Non-negative finite codes are 0 .. Largest, in increasing order.
  std::uint32_t Largest =
      E4M3Style ? (SignBit - 2) : (((1u << ExpBits) - 1) << ManBits) - 1;
  std::uint32_t Lo = 0, Hi = Largest;
  if (Magnitude >= decodeMinifloat(Largest, ExpBits, ManBits, E4M3Style)) {
    Lo = Largest;
  } else {
    while (Hi - Lo > 1) {
      std::uint32_t Mid = (Lo + Hi) / 2;
      if (decodeMinifloat(Mid, ExpBits, ManBits, E4M3Style) <= Magnitude)
        Lo = Mid;
      else
        Hi = Mid;
    }
    double Below = decodeMinifloat(Lo, ExpBits, ManBits, E4M3Style);
    double Above = decodeMinifloat(Hi, ExpBits, ManBits, E4M3Style);
    if (Magnitude - Below > Above - Magnitude ||
        (Magnitude - Below == Above - Magnitude && (Lo & 1)))
      Lo = Hi;
  }
  return Negative ? (Lo | SignBit) : Lo;
}

std::uint16_t floatToHalf(float F) {
  std::uint32_t X = floatBits(F);
  std::uint32_t Sign = (X >> 16) & 0x8000;
  std::uint32_t Abs = X & 0x7FFFFFFF;
  if (Abs > 0x7F800000)
    return Sign | 0x7E00; // NaN
  if (Abs >= 0x477FF000)  // rounds to >= 65520: infinity
    return Sign | 0x7C00;
  if (Abs < 0x38800000) { // subnormal or zero in half
    // Scale so the half subnormal unit is 1, then round to nearest even.
    float Scaled = bitsFloat(Abs) * 16777216.0f; // 2^24
    float Rounded = std::nearbyint(Scaled);
    return Sign | static_cast<std::uint16_t>(Rounded);
  }
  std::uint32_t Mantissa = Abs & 0x7FFFFF;
  std::uint32_t Exponent = (Abs >> 23) - 127 + 15;
  std::uint32_t Half = (Exponent << 10) | (Mantissa >> 13);
  std::uint32_t Rest = Mantissa & 0x1FFF;
  if (Rest > 0x1000 || (Rest == 0x1000 && (Half & 1)))
    ++Half;
  return Sign | Half;
}

double halfToDouble(std::uint16_t H) {
  return decodeMinifloat(H, 5, 10, false);
}

std::uint16_t floatToBF16(float F) {
  std::uint32_t U = floatBits(F);
  if ((U & 0x7FFFFFFF) > 0x7F800000)
    return static_cast<std::uint16_t>((U >> 16) | 0x40);
  U += 0x7FFF + ((U >> 16) & 1);
  return static_cast<std::uint16_t>(U >> 16);
}

/// SplitMix64: a counter-based generator, so element i of a buffer does not
/// depend on how many elements were drawn before it.
std::uint64_t mix(std::uint64_t X) {
  X += 0x9E3779B97F4A7C15ull;
  X = (X ^ (X >> 30)) * 0xBF58476D1CE4E5B9ull;
  X = (X ^ (X >> 27)) * 0x94D049BB133111EBull;
  return X ^ (X >> 31);
}

double unitInterval(std::uint64_t Bits) {
  return (Bits >> 11) * (1.0 / 9007199254740992.0); // [0, 1)
}

template <class T> T clampTo(double V) {
  if (std::isnan(V))
    return 0;
  V = std::clamp(V, (double)std::numeric_limits<T>::lowest(),
                 (double)std::numeric_limits<T>::max());
  return static_cast<T>(V);
}

/// Runs Fn(Begin, End, Chunk) over [0, Count) in contiguous chunks of at
/// least MinChunk elements, one thread per chunk (at most the machine's
/// cores); returns the number of chunks. Chunk k covers lower indices than
/// chunk k+1, so results merged in chunk order are the sequential ones.
template <class F>
std::size_t forEachChunk(std::int64_t Count, std::int64_t MinChunk, F Fn) {
  std::int64_t Cores = std::max(1u, std::thread::hardware_concurrency());
  std::int64_t Chunks =
      std::clamp<std::int64_t>(Count / std::max<std::int64_t>(MinChunk, 1), 1,
                               std::min<std::int64_t>(Cores, 64));
  if (Chunks == 1) {
    Fn(std::int64_t(0), Count, std::size_t(0));
    return 1;
  }
  std::vector<std::thread> Pool;
  for (std::int64_t C = 0; C < Chunks; ++C)
    Pool.emplace_back(Fn, Count * C / Chunks, Count * (C + 1) / Chunks,
                      static_cast<std::size_t>(C));
  for (std::thread &T : Pool)
    T.join();
  return static_cast<std::size_t>(Chunks);
}

/// Buffers this large are generated and compared on several threads: every
/// element depends only on its index, so the result is the same.
constexpr std::int64_t ParallelChunk = 1 << 20;

ComparisonResult compareRange(spec::DType T, const unsigned char *Got,
                              const unsigned char *Expected, std::int64_t Begin,
                              std::int64_t End, spec::Tolerance Tol,
                              bool IntegerTolerance, unsigned char PoisonByte);

} // namespace

void encodeElement(DType T, double V, unsigned char *Out) {
  switch (T) {
  case DType::F64:
    std::memcpy(Out, &V, 8);
    return;
  case DType::F32: {
    float F = static_cast<float>(V);
    std::memcpy(Out, &F, 4);
    return;
  }
  case DType::F16: {
    std::uint16_t H = floatToHalf(static_cast<float>(V));
    std::memcpy(Out, &H, 2);
    return;
  }
  case DType::BF16: {
    std::uint16_t B = floatToBF16(static_cast<float>(V));
    std::memcpy(Out, &B, 2);
    return;
  }
  case DType::FP8E4M3:
    *Out = static_cast<unsigned char>(encodeMinifloat(V, 4, 3, true));
    return;
  case DType::FP8E5M2:
    *Out = static_cast<unsigned char>(encodeMinifloat(V, 5, 2, false));
    return;
  case DType::I8: {
    auto X = clampTo<std::int8_t>(std::nearbyint(V));
    std::memcpy(Out, &X, 1);
    return;
  }
  case DType::U8: {
    auto X = clampTo<std::uint8_t>(std::nearbyint(V));
    std::memcpy(Out, &X, 1);
    return;
  }
  case DType::I16: {
    auto X = clampTo<std::int16_t>(std::nearbyint(V));
    std::memcpy(Out, &X, 2);
    return;
  }
  case DType::I32: {
    auto X = clampTo<std::int32_t>(std::nearbyint(V));
    std::memcpy(Out, &X, 4);
    return;
  }
  case DType::I64: {
    auto X = clampTo<std::int64_t>(std::nearbyint(V));
    std::memcpy(Out, &X, 8);
    return;
  }
  case DType::U32: {
    auto X = clampTo<std::uint32_t>(std::nearbyint(V));
    std::memcpy(Out, &X, 4);
    return;
  }
  case DType::U64: {
    auto X = clampTo<std::uint64_t>(std::nearbyint(V));
    std::memcpy(Out, &X, 8);
    return;
  }
  }
}

double decodeElement(DType T, const unsigned char *In) {
  switch (T) {
  case DType::F64: {
    double D;
    std::memcpy(&D, In, 8);
    return D;
  }
  case DType::F32: {
    float F;
    std::memcpy(&F, In, 4);
    return F;
  }
  case DType::F16: {
    std::uint16_t H;
    std::memcpy(&H, In, 2);
    return halfToDouble(H);
  }
  case DType::BF16: {
    std::uint16_t B;
    std::memcpy(&B, In, 2);
    return bitsFloat(static_cast<std::uint32_t>(B) << 16);
  }
  case DType::FP8E4M3:
    return decodeMinifloat(*In, 4, 3, true);
  case DType::FP8E5M2:
    return decodeMinifloat(*In, 5, 2, false);
  case DType::I8:
    return static_cast<std::int8_t>(*In);
  case DType::U8:
    return *In;
  case DType::I16: {
    std::int16_t X;
    std::memcpy(&X, In, 2);
    return X;
  }
  case DType::I32: {
    std::int32_t X;
    std::memcpy(&X, In, 4);
    return X;
  }
  case DType::I64: {
    std::int64_t X;
    std::memcpy(&X, In, 8);
    return static_cast<double>(X);
  }
  case DType::U32: {
    std::uint32_t X;
    std::memcpy(&X, In, 4);
    return X;
  }
  case DType::U64: {
    std::uint64_t X;
    std::memcpy(&X, In, 8);
    return static_cast<double>(X);
  }
  }
  return 0.0;
}

std::vector<unsigned char> generateBuffer(const spec::Arg &A,
                                          std::int64_t Count,
                                          std::uint64_t Seed,
                                          std::uint64_t Stream) {
  std::size_t Size = spec::dtypeSize(A.Type);
  std::vector<unsigned char> Bytes(static_cast<std::size_t>(Count) * Size);
  std::uint64_t Key = mix(Seed * 0x100000001B3ull ^ mix(Stream + 1));
  const spec::Init &I = A.Initializer;
  forEachChunk(Count, ParallelChunk,
               [&](std::int64_t Begin, std::int64_t End, std::size_t) {
                 for (std::int64_t E = Begin; E < End; ++E) {
                   std::uint64_t R = mix(Key + static_cast<std::uint64_t>(E));
                   double V;
                   switch (I.Dist) {
                   case spec::Init::Kind::Normal: {
                     // Box-Muller from two independent uniforms.
                     double U1 = unitInterval(R);
                     double U2 = unitInterval(mix(R ^ 0xD1B54A32D192ED03ull));
                     double Z = std::sqrt(-2.0 * std::log(1.0 - U1)) *
                                std::cos(6.283185307179586 * U2);
                     V = I.First + I.Second * Z;
                     break;
                   }
                   case spec::Init::Kind::Uniform:
                     V = I.First + (I.Second - I.First) * unitInterval(R);
                     break;
                   case spec::Init::Kind::RandInt:
                     V = I.First +
                         std::floor((I.Second - I.First) * unitInterval(R));
                     break;
                   case spec::Init::Kind::Constant:
                   default:
                     V = I.First;
                     break;
                   }
                   encodeElement(A.Type, V, Bytes.data() + E * Size);
                 }
               });
  return Bytes;
}

ComparisonResult compareOutputs(DType T, const unsigned char *Got,
                                const unsigned char *Expected,
                                std::int64_t Count, spec::Tolerance Tol,
                                bool IntegerTolerance,
                                unsigned char PoisonByte) {
  std::vector<ComparisonResult> Parts(
      std::max<std::int64_t>(1, std::thread::hardware_concurrency()) + 1);
  std::size_t Used = forEachChunk(
      Count, ParallelChunk,
      [&](std::int64_t Begin, std::int64_t End, std::size_t Chunk) {
        Parts[Chunk] = compareRange(T, Got, Expected, Begin, End, Tol,
                                    IntegerTolerance, PoisonByte);
      });
  ComparisonResult R = Parts[0];
  for (std::size_t C = 1; C < Used; ++C) {
    const ComparisonResult &Part = Parts[C];
    if (R.Mismatches == 0 && Part.Mismatches) {
      R.FirstMismatch = Part.FirstMismatch;
      R.FirstGot = Part.FirstGot;
      R.FirstExpected = Part.FirstExpected;
      R.FirstUnwritten = Part.FirstUnwritten;
    }
    R.Mismatches += Part.Mismatches;
    R.Unwritten += Part.Unwritten;
    R.MaxAbsError = std::max(R.MaxAbsError, Part.MaxAbsError);
    R.MaxRelError = std::max(R.MaxRelError, Part.MaxRelError);
  }
  R.Ok = R.Mismatches == 0;
  return R;
}

namespace {
ComparisonResult compareRange(DType T, const unsigned char *Got,
                              const unsigned char *Expected, std::int64_t Begin,
                              std::int64_t End, spec::Tolerance Tol,
                              bool IntegerTolerance, unsigned char PoisonByte) {
  ComparisonResult R;
  std::size_t Size = spec::dtypeSize(T);
  bool Exact = !spec::isFloating(T) && !IntegerTolerance;
  for (std::int64_t I = Begin; I < End; ++I) {
    const unsigned char *G = Got + I * Size;
    const unsigned char *E = Expected + I * Size;
    bool Poisoned = std::all_of(
        G, G + Size, [&](unsigned char B) { return B == PoisonByte; });
    double GV = decodeElement(T, G), EV = decodeElement(T, E);
    bool Match;
    if (Exact) {
      Match = std::memcmp(G, E, Size) == 0;
    } else if (std::isnan(EV)) {
      Match = std::isnan(GV);
    } else if (std::isinf(EV)) {
      Match = GV == EV;
    } else if (!std::isfinite(GV)) {
      Match = false;
    } else {
      double Abs = std::fabs(GV - EV);
      Match = Abs <= Tol.Atol + Tol.Rtol * std::fabs(EV);
      R.MaxAbsError = std::max(R.MaxAbsError, Abs);
      if (EV != 0)
        R.MaxRelError = std::max(R.MaxRelError, Abs / std::fabs(EV));
    }
    if (!std::isnan(EV) && !std::isinf(EV) && !std::isfinite(GV)) {
      R.MaxAbsError = INFINITY;
      R.MaxRelError = INFINITY;
    }
    if (Exact && !Match) {
      double Abs = std::fabs(GV - EV);
      R.MaxAbsError = std::max(R.MaxAbsError, Abs);
      if (EV != 0)
        R.MaxRelError = std::max(R.MaxRelError, Abs / std::fabs(EV));
    }
    if (Match)
      continue;
    if (Poisoned)
      ++R.Unwritten;
    if (R.Mismatches++ == 0) {
      R.FirstMismatch = I;
      R.FirstGot = GV;
      R.FirstExpected = EV;
      R.FirstUnwritten = Poisoned;
    }
  }
  R.Ok = R.Mismatches == 0;
  return R;
}
} // namespace

} // namespace kopt::eval
