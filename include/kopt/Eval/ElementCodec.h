//===- ElementCodec.h - One element's value, bytes and comparison -*- C++ -*-=//
//
// The element-level rules of the evaluator, written once for the host and
// the GPU: how an input element's value is drawn from the problem's
// distribution (a counter-based generator keyed by seed, buffer and index),
// how a value becomes the bytes of a dtype (round to nearest even,
// saturating small floats) and back, and when an output element matches
// the reference's. HostData.cpp runs them on the CPU (and the unit tests
// check them there); lib/Eval/Device/DeviceData.cu runs the same functions
// in kernels, so a buffer generated on the GPU holds the bytes the host
// would have made, and the GPU's comparison is the host's.
//
//===----------------------------------------------------------------------===//
#ifndef KOPT_EVAL_ELEMENTCODEC_H
#define KOPT_EVAL_ELEMENTCODEC_H

#include "kopt/Spec/DType.h"

#include <cmath>
#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
#define KOPT_HD __host__ __device__
#else
#define KOPT_HD
#endif

namespace kopt::eval::codec {

using spec::DType;

/// The math the codec needs, from <cmath> on the host and from CUDA's
/// device math library on the GPU (the same IEEE operations).
namespace math {
#if defined(__CUDA_ARCH__)
KOPT_HD inline bool isNaN(double X) { return ::isnan(X); }
KOPT_HD inline bool isInf(double X) { return ::isinf(X); }
KOPT_HD inline bool isFinite(double X) { return ::isfinite(X); }
KOPT_HD inline bool signBit(double X) { return ::signbit(X); }
KOPT_HD inline double fabs(double X) { return ::fabs(X); }
KOPT_HD inline double ldexp(double X, int E) { return ::ldexp(X, E); }
KOPT_HD inline double floor(double X) { return ::floor(X); }
KOPT_HD inline double sqrt(double X) { return ::sqrt(X); }
KOPT_HD inline double log(double X) { return ::log(X); }
KOPT_HD inline double cos(double X) { return ::cos(X); }
KOPT_HD inline double nearbyint(double X) { return ::rint(X); }
KOPT_HD inline float nearbyintf(float X) { return ::rintf(X); }
#else
inline bool isNaN(double X) { return std::isnan(X); }
inline bool isInf(double X) { return std::isinf(X); }
inline bool isFinite(double X) { return std::isfinite(X); }
inline bool signBit(double X) { return std::signbit(X); }
inline double fabs(double X) { return std::fabs(X); }
inline double ldexp(double X, int E) { return std::ldexp(X, E); }
inline double floor(double X) { return std::floor(X); }
inline double sqrt(double X) { return std::sqrt(X); }
inline double log(double X) { return std::log(X); }
inline double cos(double X) { return std::cos(X); }
// The default rounding mode (to nearest even), as rint on the GPU.
inline double nearbyint(double X) { return std::nearbyint(X); }
inline float nearbyintf(float X) { return std::nearbyint(X); }
#endif
} // namespace math

/// Bytes per element (spec::dtypeSize is constexpr, so kernels call it).
KOPT_HD inline int elementSize(DType T) {
  return static_cast<int>(spec::dtypeSize(T));
}

KOPT_HD inline bool isFloatType(DType T) {
  return T == DType::F64 || T == DType::F32 || T == DType::F16 ||
         T == DType::BF16 || T == DType::FP8E4M3 || T == DType::FP8E5M2;
}

KOPT_HD inline std::uint32_t floatBits(float F) {
  std::uint32_t U;
  memcpy(&U, &F, 4);
  return U;
}
KOPT_HD inline float bitsFloat(std::uint32_t U) {
  float F;
  memcpy(&F, &U, 4);
  return F;
}

/// A small float format (f16; fp8 e4m3 and e5m2) decoded from its bits.
/// \p E4M3Style: no infinity, and only S.1111.111 is NaN.
KOPT_HD inline double decodeMinifloat(std::uint32_t Bits, int ExpBits,
                                      int ManBits, bool E4M3Style) {
  int Bias = (1 << (ExpBits - 1)) - 1;
  bool Negative = (Bits >> (ExpBits + ManBits)) & 1;
  std::uint32_t Exp = (Bits >> ManBits) & ((1u << ExpBits) - 1);
  std::uint32_t Man = Bits & ((1u << ManBits) - 1);
  std::uint32_t MaxExp = (1u << ExpBits) - 1;
  if (E4M3Style && Exp == MaxExp && Man == (1u << ManBits) - 1)
    return NAN;
  if (!E4M3Style && Exp == MaxExp)
    return Man ? NAN : (Negative ? -INFINITY : INFINITY);
  double Value;
  if (Exp == 0)
    Value = math::ldexp(static_cast<double>(Man), 1 - Bias - ManBits);
  else
    Value = math::ldexp(static_cast<double>(Man + (1u << ManBits)),
                        static_cast<int>(Exp) - Bias - ManBits);
  return Negative ? -Value : Value;
}

/// Round-to-nearest-even into a small format by searching the sorted codes
/// of its non-negative finite values; saturates to the largest finite value
/// (what __NV_SATFINITE does for fp8).
KOPT_HD inline std::uint32_t encodeMinifloat(double Value, int ExpBits,
                                             int ManBits, bool E4M3Style) {
  int Total = 1 + ExpBits + ManBits;
  std::uint32_t SignBit = 1u << (Total - 1);
  if (math::isNaN(Value))
    return 0x7F; // the canonical NaN of both fp8 formats
  bool Negative = math::signBit(Value);
  double Magnitude = math::fabs(Value);
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

KOPT_HD inline std::uint16_t floatToHalf(float F) {
  std::uint32_t X = floatBits(F);
  std::uint32_t Sign = (X >> 16) & 0x8000;
  std::uint32_t Abs = X & 0x7FFFFFFF;
  if (Abs > 0x7F800000)
    return static_cast<std::uint16_t>(Sign | 0x7E00); // NaN
  if (Abs >= 0x477FF000) // rounds to >= 65520: infinity
    return static_cast<std::uint16_t>(Sign | 0x7C00);
  if (Abs < 0x38800000) { // subnormal or zero in half
    // Scale so the half subnormal unit is 1, then round to nearest even.
    float Rounded = math::nearbyintf(bitsFloat(Abs) * 16777216.0f); // 2^24
    return static_cast<std::uint16_t>(Sign |
                                      static_cast<std::uint32_t>(Rounded));
  }
  std::uint32_t Mantissa = Abs & 0x7FFFFF;
  std::uint32_t Exponent = (Abs >> 23) - 127 + 15;
  std::uint32_t Half = (Exponent << 10) | (Mantissa >> 13);
  std::uint32_t Rest = Mantissa & 0x1FFF;
  if (Rest > 0x1000 || (Rest == 0x1000 && (Half & 1)))
    ++Half;
  return static_cast<std::uint16_t>(Sign | Half);
}

KOPT_HD inline std::uint16_t floatToBF16(float F) {
  std::uint32_t U = floatBits(F);
  if ((U & 0x7FFFFFFF) > 0x7F800000)
    return static_cast<std::uint16_t>((U >> 16) | 0x40);
  U += 0x7FFF + ((U >> 16) & 1);
  return static_cast<std::uint16_t>(U >> 16);
}

/// \p V rounded to the nearest integer and clamped to [Lo, Hi]; NaN is 0.
KOPT_HD inline double clampedInteger(double V, double Lo, double Hi) {
  if (math::isNaN(V))
    return 0;
  V = math::nearbyint(V);
  return V < Lo ? Lo : (V > Hi ? Hi : V);
}

template <class T> KOPT_HD inline void storeAs(T X, unsigned char *Out) {
  memcpy(Out, &X, sizeof(T));
}
template <class T> KOPT_HD inline T loadAs(const unsigned char *In) {
  T X;
  memcpy(&X, In, sizeof(T));
  return X;
}

/// Writes \p V as dtype \p T into \p Out (elementSize(T) bytes).
KOPT_HD inline void encodeElement(DType T, double V, unsigned char *Out) {
  switch (T) {
  case DType::F64:
    return storeAs<double>(V, Out);
  case DType::F32:
    return storeAs<float>(static_cast<float>(V), Out);
  case DType::F16:
    return storeAs<std::uint16_t>(floatToHalf(static_cast<float>(V)), Out);
  case DType::BF16:
    return storeAs<std::uint16_t>(floatToBF16(static_cast<float>(V)), Out);
  case DType::FP8E4M3:
    *Out = static_cast<unsigned char>(encodeMinifloat(V, 4, 3, true));
    return;
  case DType::FP8E5M2:
    *Out = static_cast<unsigned char>(encodeMinifloat(V, 5, 2, false));
    return;
  case DType::I8:
    return storeAs<std::int8_t>(
        static_cast<std::int8_t>(clampedInteger(V, -128, 127)), Out);
  case DType::U8:
    return storeAs<std::uint8_t>(
        static_cast<std::uint8_t>(clampedInteger(V, 0, 255)), Out);
  case DType::I16:
    return storeAs<std::int16_t>(
        static_cast<std::int16_t>(clampedInteger(V, -32768, 32767)), Out);
  case DType::I32:
    return storeAs<std::int32_t>(static_cast<std::int32_t>(clampedInteger(
                                     V, -2147483648.0, 2147483647.0)),
                                 Out);
  case DType::I64: {
    // 2^63 is not an int64: the largest double below it is.
    double C = clampedInteger(V, -9223372036854775808.0, 9223372036854774784.0);
    return storeAs<std::int64_t>(static_cast<std::int64_t>(C), Out);
  }
  case DType::U32:
    return storeAs<std::uint32_t>(
        static_cast<std::uint32_t>(clampedInteger(V, 0, 4294967295.0)), Out);
  case DType::U64: {
    double C = clampedInteger(V, 0, 18446744073709549568.0);
    return storeAs<std::uint64_t>(static_cast<std::uint64_t>(C), Out);
  }
  }
}

/// Reads one element of dtype \p T.
KOPT_HD inline double decodeElement(DType T, const unsigned char *In) {
  switch (T) {
  case DType::F64:
    return loadAs<double>(In);
  case DType::F32:
    return loadAs<float>(In);
  case DType::F16:
    return decodeMinifloat(loadAs<std::uint16_t>(In), 5, 10, false);
  case DType::BF16:
    return bitsFloat(static_cast<std::uint32_t>(loadAs<std::uint16_t>(In))
                     << 16);
  case DType::FP8E4M3:
    return decodeMinifloat(*In, 4, 3, true);
  case DType::FP8E5M2:
    return decodeMinifloat(*In, 5, 2, false);
  case DType::I8:
    return loadAs<std::int8_t>(In);
  case DType::U8:
    return *In;
  case DType::I16:
    return loadAs<std::int16_t>(In);
  case DType::I32:
    return loadAs<std::int32_t>(In);
  case DType::I64:
    return static_cast<double>(loadAs<std::int64_t>(In));
  case DType::U32:
    return loadAs<std::uint32_t>(In);
  case DType::U64:
    return static_cast<double>(loadAs<std::uint64_t>(In));
  }
  return 0.0;
}

/// SplitMix64's output function: a counter-based generator, so element i of
/// a buffer depends on nothing but (key, i).
KOPT_HD inline std::uint64_t mix(std::uint64_t X) {
  X += 0x9E3779B97F4A7C15ull;
  X = (X ^ (X >> 30)) * 0xBF58476D1CE4E5B9ull;
  X = (X ^ (X >> 27)) * 0x94D049BB133111EBull;
  return X ^ (X >> 31);
}

KOPT_HD inline double unitInterval(std::uint64_t Bits) {
  return static_cast<double>(Bits >> 11) * (1.0 / 9007199254740992.0); // [0,1)
}

/// The key of one input buffer: its seed and its argument index.
KOPT_HD inline std::uint64_t bufferKey(std::uint64_t Seed,
                                       std::uint64_t Argument) {
  return mix(Seed * 0x100000001B3ull ^ mix(Argument + 1));
}

/// A problem.json "init" (spec::Init) as plain numbers, for kernels.
struct Distribution {
  enum Kind : int { Normal, Uniform, RandInt, Constant };
  int Dist = Normal;
  double First = 0;  // mean, lo or the constant
  double Second = 1; // std or hi (RandInt excludes hi)
};

/// Element \p Index of the buffer keyed \p Key, before rounding to a dtype.
KOPT_HD inline double drawValue(const Distribution &D, std::uint64_t Key,
                                std::uint64_t Index) {
  std::uint64_t R = mix(Key + Index);
  switch (D.Dist) {
  case Distribution::Normal: {
    // Box-Muller from two independent uniforms.
    double U1 = unitInterval(R);
    double U2 = unitInterval(mix(R ^ 0xD1B54A32D192ED03ull));
    double Z = math::sqrt(-2.0 * math::log(1.0 - U1)) *
               math::cos(6.283185307179586 * U2);
    return D.First + D.Second * Z;
  }
  case Distribution::Uniform:
    return D.First + (D.Second - D.First) * unitInterval(R);
  case Distribution::RandInt:
    return D.First + math::floor((D.Second - D.First) * unitInterval(R));
  default:
    return D.First;
  }
}

/// How one output element compares with the reference's.
struct ElementComparison {
  bool Match = true;
  bool Poisoned = false; // every byte still holds the poison
  double Got = 0, Expected = 0;
  double AbsError = 0, RelError = 0; // 0 where not measured
};

/// |got - expected| <= atol + rtol * |expected|; NaN matches only where the
/// reference is NaN, infinities must match exactly, a non-finite result
/// where the reference is finite counts as an infinite error; \p Exact
/// (integers without their own tolerance) compares bytes.
KOPT_HD inline ElementComparison
compareElement(DType T, const unsigned char *G, const unsigned char *E,
               double Atol, double Rtol, bool Exact, unsigned char PoisonByte) {
  ElementComparison C;
  int Size = elementSize(T);
  C.Poisoned = true;
  bool SameBytes = true;
  for (int B = 0; B < Size; ++B) {
    C.Poisoned = C.Poisoned && G[B] == PoisonByte;
    SameBytes = SameBytes && G[B] == E[B];
  }
  C.Got = decodeElement(T, G);
  C.Expected = decodeElement(T, E);
  double GV = C.Got, EV = C.Expected;
  if (Exact) {
    C.Match = SameBytes;
    if (!C.Match) {
      C.AbsError = math::fabs(GV - EV);
      if (EV != 0)
        C.RelError = C.AbsError / math::fabs(EV);
    }
  } else if (math::isNaN(EV)) {
    C.Match = math::isNaN(GV);
  } else if (math::isInf(EV)) {
    C.Match = GV == EV;
  } else if (!math::isFinite(GV)) {
    C.Match = false;
    C.AbsError = C.RelError = INFINITY;
  } else {
    C.AbsError = math::fabs(GV - EV);
    C.Match = C.AbsError <= Atol + Rtol * math::fabs(EV);
    if (EV != 0)
      C.RelError = C.AbsError / math::fabs(EV);
  }
  return C;
}

} // namespace kopt::eval::codec

#endif // KOPT_EVAL_ELEMENTCODEC_H
