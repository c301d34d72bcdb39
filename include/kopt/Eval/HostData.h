//===- HostData.h - Element encoding and random inputs on the host -*- C++ -*-//
//
// Inputs are drawn from a counter-based generator keyed by (seed,
// argument), so the same seed gives the same bytes on any machine, and
// converted to each dtype by round-to-nearest-even (ElementCodec.h). The
// evaluation child does this on the GPU (lib/Eval/Device/DeviceData.cu);
// these host versions of the same functions serve the unit tests and
// `kopt-bench selftest`, which checks that both sides agree.
//
//===----------------------------------------------------------------------===//
#ifndef KOPT_EVAL_HOSTDATA_H
#define KOPT_EVAL_HOSTDATA_H

#include "kopt/Eval/ElementCodec.h"
#include "kopt/Spec/Problem.h"

#include <cstdint>
#include <vector>

namespace kopt::eval {

/// Writes \p Value as dtype \p T into \p Out (dtypeSize(T) bytes).
void encodeElement(spec::DType T, double Value, unsigned char *Out);

/// Reads one element of dtype \p T.
double decodeElement(spec::DType T, const unsigned char *In);

/// A problem's "init" as the codec's plain numbers.
codec::Distribution distributionOf(const spec::Init &I);

/// \p Count elements of \p A's dtype drawn from its init for \p Seed.
std::vector<unsigned char> generateBuffer(const spec::Arg &A,
                                          std::int64_t Count,
                                          std::uint64_t Seed,
                                          std::uint64_t Stream);

/// The byte an output is filled with before a run. Every byte 0xFF is NaN
/// for every float dtype and -1/all-ones for integers. The second pattern,
/// 0x5A, differs from it in every byte and is a finite number in every float
/// dtype (f64, f32, f16, bf16, fp8e4m3, fp8e5m2), so an element left
/// unwritten cannot match the reference in both candidate runs, not even
/// where the reference is NaN.
inline constexpr unsigned char FirstPoisonByte = 0xFF;
inline constexpr unsigned char SecondPoisonByte = 0x5A;

struct ComparisonResult {
  bool Ok = true;
  std::int64_t Mismatches = 0;
  std::int64_t FirstMismatch = -1;
  double FirstGot = 0, FirstExpected = 0;
  bool FirstUnwritten = false; // still holds the poison bytes
  std::int64_t Unwritten = 0;
  double MaxAbsError = 0, MaxRelError = 0;
};

/// Compares \p Got with \p Expected element by element:
/// |got - expected| <= atol + rtol * |expected|; NaN passes only where the
/// reference is NaN, infinities must match exactly, integers are exact
/// unless \p IntegerTolerance is set.
ComparisonResult compareOutputs(spec::DType T, const unsigned char *Got,
                                const unsigned char *Expected,
                                std::int64_t Count, spec::Tolerance Tol,
                                bool IntegerTolerance,
                                unsigned char PoisonByte);

} // namespace kopt::eval

#endif // KOPT_EVAL_HOSTDATA_H
