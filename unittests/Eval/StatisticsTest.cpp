#include "kopt/Eval/Statistics.h"

#include <gtest/gtest.h>

#include <random>

using namespace kopt::eval;

namespace {
TEST(Statistics, MedianAndQuantiles) {
  EXPECT_DOUBLE_EQ(median({3, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(median({4, 1, 3, 2}), 2.5);
  // numpy.quantile([1..5], 0.2) == 1.8
  EXPECT_DOUBLE_EQ(quantile({5, 4, 3, 2, 1}, 0.2), 1.8);
  EXPECT_DOUBLE_EQ(quantile({5, 4, 3, 2, 1}, 0.8), 4.2);
  EXPECT_DOUBLE_EQ(quantile({7}, 0.3), 7);
  EXPECT_DOUBLE_EQ(quantile({}, 0.5), 0);
  SampleSummary S = summarize({1, 2, 3, 4, 5});
  EXPECT_EQ(S.Count, 5u);
  EXPECT_DOUBLE_EQ(S.Median, 3);
  EXPECT_DOUBLE_EQ(S.Min, 1);
  EXPECT_DOUBLE_EQ(S.Max, 5);
  EXPECT_DOUBLE_EQ(S.Mean, 3);
}

TEST(Statistics, SpeedupOfIdenticalSamplesIsOne) {
  std::vector<double> A;
  for (int I = 0; I < 200; ++I)
    A.push_back(1.0 + 0.01 * ((I * 37) % 11));
  SpeedupEstimate E = estimateSpeedup(A, A);
  EXPECT_DOUBLE_EQ(E.Speedup, 1.0);
  EXPECT_DOUBLE_EQ(E.Low, 1.0);
  EXPECT_DOUBLE_EQ(E.High, 1.0);
}

TEST(Statistics, SpeedupIntervalBracketsTheEstimate) {
  std::vector<double> Baseline, Candidate;
  for (int I = 0; I < 300; ++I) {
    double Noise = 0.02 * ((I * 7919) % 13) / 13.0;
    Baseline.push_back(2.0 + Noise);
    Candidate.push_back(1.0 + 0.5 * ((I * 104729) % 17) / 17.0 * 0.02);
  }
  SpeedupEstimate E = estimateSpeedup(Baseline, Candidate);
  EXPECT_NEAR(E.Speedup, 2.0, 0.05);
  EXPECT_LE(E.Low, E.Speedup);
  EXPECT_GE(E.High, E.Speedup);
  EXPECT_LT(E.High - E.Low, 0.1);
  // Reproducible: the bootstrap is seeded.
  SpeedupEstimate Again = estimateSpeedup(Baseline, Candidate);
  EXPECT_DOUBLE_EQ(E.Low, Again.Low);
}

TEST(Statistics, EmptyAndSingleSamples) {
  EXPECT_DOUBLE_EQ(estimateSpeedup({}, {}).Speedup, 0);
  SpeedupEstimate One = estimateSpeedup({2}, {1});
  EXPECT_DOUBLE_EQ(One.Speedup, 2);
  EXPECT_DOUBLE_EQ(One.Low, 2);
}
} // namespace

namespace {
// Adaptive timing stops on a tight interval, never on a loose or short one.
TEST(Statistics, SpeedupSettlesOnlyWhenTheIntervalIsTight) {
  std::vector<double> Base, Steady, Noisy;
  for (int I = 0; I < 64; ++I) {
    double Jitter = 0.001 * ((I * 37) % 7); // within 0.6%
    Base.push_back(1.0 + Jitter);
    Steady.push_back(0.5 + Jitter / 2);
    Noisy.push_back(I % 2 ? 0.4 : 0.65); // two modes 50% apart
  }
  EXPECT_TRUE(speedupSettled(Base, Steady, 0.01));
  EXPECT_FALSE(speedupSettled(Base, Noisy, 0.01));
  EXPECT_FALSE(speedupSettled(Base, Steady, 0.0)); // 0: never stop early
  std::vector<double> FewBase(Base.begin(), Base.begin() + 7);
  std::vector<double> FewSteady(Steady.begin(), Steady.begin() + 7);
  EXPECT_FALSE(speedupSettled(FewBase, FewSteady, 0.01)); // too few pairs
}

// A run that stops as settled reports the interval it stopped on: over
// sample sets whose noise runs from well inside to well outside the
// target, every settled one's reported interval lies within +-1%.
TEST(Statistics, SettledRunsReportAnIntervalWithinTheTarget) {
  std::mt19937_64 Generator(3);
  std::normal_distribution<double> Noise(0.0, 1.0);
  int Settled = 0, Unsettled = 0;
  for (int Case = 0; Case < 300; ++Case) {
    double Sigma = 0.002 + 0.00015 * Case; // 0.2% to 4.7% per sample
    std::vector<double> Base, Cand;
    for (int I = 0; I < 40; ++I) {
      Base.push_back(1.0 * (1 + Sigma * Noise(Generator)));
      Cand.push_back(0.8 * (1 + Sigma * Noise(Generator)));
    }
    if (!speedupSettled(Base, Cand, 0.01)) {
      ++Unsettled;
      continue;
    }
    ++Settled;
    SpeedupEstimate E = estimateSpeedup(Base, Cand);
    EXPECT_LE(E.High, E.Speedup * 1.01) << "case " << Case;
    EXPECT_GE(E.Low, E.Speedup * 0.99) << "case " << Case;
  }
  EXPECT_GT(Settled, 0);
  EXPECT_GT(Unsettled, 0);
}
} // namespace
