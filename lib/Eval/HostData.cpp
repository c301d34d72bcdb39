//===- HostData.cpp - Element encoding and random inputs on the host ------===//
#include "kopt/Eval/HostData.h"
#include "kopt/Eval/ElementCodec.h"

#include <algorithm>
#include <thread>

namespace kopt::eval {

using spec::DType;

namespace {

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
  codec::encodeElement(T, V, Out);
}

double decodeElement(DType T, const unsigned char *In) {
  return codec::decodeElement(T, In);
}

codec::Distribution distributionOf(const spec::Init &I) {
  codec::Distribution D;
  switch (I.Dist) {
  case spec::Init::Kind::Normal:
    D.Dist = codec::Distribution::Normal;
    break;
  case spec::Init::Kind::Uniform:
    D.Dist = codec::Distribution::Uniform;
    break;
  case spec::Init::Kind::RandInt:
    D.Dist = codec::Distribution::RandInt;
    break;
  case spec::Init::Kind::Constant:
    D.Dist = codec::Distribution::Constant;
    break;
  }
  D.First = I.First;
  D.Second = I.Second;
  return D;
}

std::vector<unsigned char> generateBuffer(const spec::Arg &A,
                                          std::int64_t Count,
                                          std::uint64_t Seed,
                                          std::uint64_t Stream) {
  std::size_t Size = spec::dtypeSize(A.Type);
  std::vector<unsigned char> Bytes(static_cast<std::size_t>(Count) * Size);
  std::uint64_t Key = codec::bufferKey(Seed, Stream);
  codec::Distribution D = distributionOf(A.Initializer);
  forEachChunk(Count, ParallelChunk,
               [&](std::int64_t Begin, std::int64_t End, std::size_t) {
                 for (std::int64_t E = Begin; E < End; ++E)
                   codec::encodeElement(
                       A.Type,
                       codec::drawValue(D, Key, static_cast<std::uint64_t>(E)),
                       Bytes.data() + E * Size);
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
    codec::ElementComparison C =
        codec::compareElement(T, Got + I * Size, Expected + I * Size, Tol.Atol,
                              Tol.Rtol, Exact, PoisonByte);
    R.MaxAbsError = std::max(R.MaxAbsError, C.AbsError);
    R.MaxRelError = std::max(R.MaxRelError, C.RelError);
    if (C.Match)
      continue;
    if (C.Poisoned)
      ++R.Unwritten;
    if (R.Mismatches++ == 0) {
      R.FirstMismatch = I;
      R.FirstGot = C.Got;
      R.FirstExpected = C.Expected;
      R.FirstUnwritten = C.Poisoned;
    }
  }
  R.Ok = R.Mismatches == 0;
  return R;
}
} // namespace

} // namespace kopt::eval
