#include "kopt/Eval/HostData.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

using namespace kopt::eval;
using kopt::spec::DType;

namespace {
double roundTrip(DType T, double V) {
  unsigned char Bytes[8] = {0};
  encodeElement(T, V, Bytes);
  return decodeElement(T, Bytes);
}

TEST(HostData, FloatFormatsRoundToNearestEven) {
  EXPECT_EQ(roundTrip(DType::F16, 1.0), 1.0);
  EXPECT_EQ(roundTrip(DType::F16, 65504.0), 65504.0);
  EXPECT_TRUE(std::isinf(roundTrip(DType::F16, 70000.0)));
  EXPECT_EQ(roundTrip(DType::F16, 1.0 + 1.0 / 2048), 1.0); // tie to even
  EXPECT_EQ(roundTrip(DType::F16, std::ldexp(1.0, -24)), std::ldexp(1.0, -24));
  EXPECT_EQ(roundTrip(DType::BF16, 1.0 + 1.0 / 256), 1.0); // tie to even
  EXPECT_EQ(roundTrip(DType::BF16, -2.5), -2.5);
  EXPECT_EQ(roundTrip(DType::FP8E4M3, 448.0), 448.0);
  EXPECT_EQ(roundTrip(DType::FP8E4M3, 1000.0), 448.0); // saturates
  EXPECT_EQ(roundTrip(DType::FP8E4M3, 0.1), 0.1015625);
  EXPECT_EQ(roundTrip(DType::FP8E5M2, 57344.0), 57344.0);
  EXPECT_EQ(roundTrip(DType::FP8E5M2, -1.25), -1.25);
  EXPECT_EQ(roundTrip(DType::I8, 300), 127);
  EXPECT_EQ(roundTrip(DType::U32, 7), 7);
}

TEST(HostData, PoisonIsNaNForEveryFloat) {
  for (DType T : {DType::F64, DType::F32, DType::F16, DType::BF16,
                  DType::FP8E4M3, DType::FP8E5M2}) {
    unsigned char Bytes[8];
    std::fill(Bytes, Bytes + 8, FirstPoisonByte);
    EXPECT_TRUE(std::isnan(decodeElement(T, Bytes)));
  }
}

TEST(HostData, SecondPoisonIsFiniteForEveryFloat) {
  // Where the reference is NaN, an element left unwritten must still fail
  // in run 2: the second poison is a finite number in every float dtype.
  static_assert((FirstPoisonByte ^ SecondPoisonByte) == 0xA5,
                "the poisons differ in every bit of every byte");
  for (DType T : {DType::F64, DType::F32, DType::F16, DType::BF16,
                  DType::FP8E4M3, DType::FP8E5M2}) {
    unsigned char Bytes[8];
    std::fill(Bytes, Bytes + 8, SecondPoisonByte);
    EXPECT_TRUE(std::isfinite(decodeElement(T, Bytes)))
        << kopt::spec::dtypeName(T);
    unsigned char Nan[8];
    std::fill(Nan, Nan + 8, FirstPoisonByte);
    ComparisonResult R =
        compareOutputs(T, Bytes, Nan, 1, {}, false, SecondPoisonByte);
    EXPECT_FALSE(R.Ok) << kopt::spec::dtypeName(T);
    EXPECT_EQ(R.Unwritten, 1) << kopt::spec::dtypeName(T);
  }
}

TEST(HostData, GeneratedInputsAreReproducibleAndNotZero) {
  kopt::spec::Arg A;
  A.Type = DType::F32;
  A.Initializer = {kopt::spec::Init::Kind::Normal, 0, 1};
  auto One = generateBuffer(A, 1000, 7, 0);
  auto Two = generateBuffer(A, 1000, 7, 0);
  auto Other = generateBuffer(A, 1000, 8, 0);
  EXPECT_EQ(One, Two);
  EXPECT_NE(One, Other);
  double Sum = 0, Zeros = 0;
  for (int I = 0; I < 1000; ++I) {
    double V = decodeElement(DType::F32, One.data() + 4 * I);
    Sum += V;
    Zeros += V == 0;
  }
  EXPECT_NEAR(Sum / 1000, 0.0, 0.15);
  EXPECT_EQ(Zeros, 0);

  A.Initializer = {kopt::spec::Init::Kind::RandInt, -3, 3};
  A.Type = DType::I32;
  auto Ints = generateBuffer(A, 500, 1, 2);
  for (int I = 0; I < 500; ++I) {
    double V = decodeElement(DType::I32, Ints.data() + 4 * I);
    EXPECT_GE(V, -3);
    EXPECT_LT(V, 3);
  }
}

TEST(HostData, ComparisonFindsMismatchesAndUnwrittenElements) {
  float Expected[4] = {1.0f, 2.0f, NAN, INFINITY};
  float Got[4] = {1.0f, 2.0f, NAN, INFINITY};
  auto *G = reinterpret_cast<unsigned char *>(Got);
  auto *E = reinterpret_cast<unsigned char *>(Expected);
  kopt::spec::Tolerance Tol{1e-5, 1e-5};
  EXPECT_TRUE(compareOutputs(DType::F32, G, E, 4, Tol, false, 0xFF).Ok);

  Got[1] = 2.0f + 1e-3f;
  ComparisonResult R = compareOutputs(DType::F32, G, E, 4, Tol, false, 0xFF);
  EXPECT_FALSE(R.Ok);
  EXPECT_EQ(R.FirstMismatch, 1);
  EXPECT_NEAR(R.MaxAbsError, 1e-3, 1e-6);

  std::fill(G + 4, G + 8, 0xFF); // element 1 still holds the poison
  R = compareOutputs(DType::F32, G, E, 4, Tol, false, 0xFF);
  EXPECT_TRUE(R.FirstUnwritten);
  EXPECT_EQ(R.Unwritten, 1);

  // NaN never passes where the reference is finite.
  Got[1] = NAN;
  EXPECT_FALSE(compareOutputs(DType::F32, G, E, 4, Tol, false, 0xFF).Ok);
  // Integers are exact unless the buffer sets its own tolerance.
  int IE[2] = {5, 6}, IG[2] = {5, 7};
  auto *IGb = reinterpret_cast<unsigned char *>(IG);
  auto *IEb = reinterpret_cast<unsigned char *>(IE);
  EXPECT_FALSE(compareOutputs(DType::I32, IGb, IEb, 2, {2, 0}, false, 0xFF).Ok);
  EXPECT_TRUE(compareOutputs(DType::I32, IGb, IEb, 2, {2, 0}, true, 0xFF).Ok);
}
// Large buffers are generated and compared in chunks on several threads;
// the result must not depend on where the chunks begin.
TEST(HostData, LargeBuffersMatchWhateverTheChunking) {
  kopt::spec::Arg A;
  A.Type = DType::BF16;
  A.Initializer = {kopt::spec::Init::Kind::Normal, 0, 2};
  const std::int64_t Big = 3 << 20, Small = 2 << 20, Tiny = 1000;
  auto Three = generateBuffer(A, Big, 11, 1);
  auto Two = generateBuffer(A, Small, 11, 1);
  auto One = generateBuffer(A, Tiny, 11, 1);
  ASSERT_EQ(Three.size(), std::size_t(2 * Big));
  EXPECT_TRUE(std::equal(Two.begin(), Two.end(), Three.begin()));
  EXPECT_TRUE(std::equal(One.begin(), One.end(), Three.begin()));
}

TEST(HostData, LargeComparisonsMergeChunksInOrder) {
  const std::int64_t Count = 3 << 20;
  std::vector<float> Expected(Count, 1.0f), Got(Count, 1.0f);
  auto *G = reinterpret_cast<unsigned char *>(Got.data());
  auto *E = reinterpret_cast<unsigned char *>(Expected.data());
  kopt::spec::Tolerance Tol{1e-5, 1e-5};
  EXPECT_TRUE(compareOutputs(DType::F32, G, E, Count, Tol, false, 0xFF).Ok);

  // Mismatches in the last third and near the end; one unwritten element.
  Got[Count - 1] = 5.0f;
  Got[(5 * Count) / 6] = 3.0f;
  std::fill(G + 4 * (Count - 2), G + 4 * (Count - 1), 0xFF);
  ComparisonResult R =
      compareOutputs(DType::F32, G, E, Count, Tol, false, 0xFF);
  EXPECT_FALSE(R.Ok);
  EXPECT_EQ(R.Mismatches, 3);
  EXPECT_EQ(R.Unwritten, 1);
  EXPECT_EQ(R.FirstMismatch, (5 * Count) / 6);
  EXPECT_EQ(R.FirstGot, 3.0);
  EXPECT_FALSE(R.FirstUnwritten);
  EXPECT_TRUE(std::isinf(R.MaxAbsError)); // the poison is NaN for f32

  // The first mismatch in the first chunk wins over later ones.
  Got[10] = 2.0f;
  R = compareOutputs(DType::F32, G, E, Count, Tol, false, 0xFF);
  EXPECT_EQ(R.FirstMismatch, 10);
  EXPECT_EQ(R.Mismatches, 4);
}
} // namespace
