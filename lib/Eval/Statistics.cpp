//===- Statistics.cpp - Summaries of timing samples -----------------------===//
#include "kopt/Eval/Statistics.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

namespace kopt::eval {

double quantile(std::vector<double> Samples, double Q) {
  if (Samples.empty())
    return 0.0;
  std::sort(Samples.begin(), Samples.end());
  Q = std::clamp(Q, 0.0, 1.0);
  double Position = Q * (Samples.size() - 1);
  std::size_t Below = static_cast<std::size_t>(std::floor(Position));
  std::size_t Above = std::min(Below + 1, Samples.size() - 1);
  double Fraction = Position - Below;
  return Samples[Below] + (Samples[Above] - Samples[Below]) * Fraction;
}

double median(std::vector<double> Samples) {
  return quantile(std::move(Samples), 0.5);
}

double mean(const std::vector<double> &Samples) {
  if (Samples.empty())
    return 0.0;
  return std::accumulate(Samples.begin(), Samples.end(), 0.0) / Samples.size();
}

SampleSummary summarize(const std::vector<double> &Samples) {
  SampleSummary S;
  S.Count = Samples.size();
  if (Samples.empty())
    return S;
  S.Median = quantile(Samples, 0.5);
  S.P20 = quantile(Samples, 0.2);
  S.P80 = quantile(Samples, 0.8);
  S.Min = *std::min_element(Samples.begin(), Samples.end());
  S.Max = *std::max_element(Samples.begin(), Samples.end());
  S.Mean = mean(Samples);
  return S;
}

SpeedupEstimate estimateSpeedup(const std::vector<double> &Baseline,
                                const std::vector<double> &Candidate,
                                double Confidence, int Resamples,
                                std::uint64_t Seed) {
  SpeedupEstimate E;
  std::size_t N = std::min(Baseline.size(), Candidate.size());
  if (N == 0)
    return E;
  double CandidateMedian = median(Candidate);
  E.Speedup = CandidateMedian > 0 ? median(Baseline) / CandidateMedian : 0.0;
  E.Low = E.High = E.Speedup;
  if (N < 2 || Resamples < 2)
    return E;

  std::mt19937_64 Generator(Seed);
  std::uniform_int_distribution<std::size_t> Pick(0, N - 1);
  std::vector<double> Ratios, B(N), C(N);
  Ratios.reserve(Resamples);
  for (int R = 0; R < Resamples; ++R) {
    for (std::size_t I = 0; I < N; ++I) {
      std::size_t J = Pick(Generator);
      B[I] = Baseline[J];
      C[I] = Candidate[J];
    }
    double MC = median(C);
    if (MC > 0)
      Ratios.push_back(median(B) / MC);
  }
  double Tail = (1.0 - Confidence) / 2.0;
  E.Low = quantile(Ratios, Tail);
  E.High = quantile(Ratios, 1.0 - Tail);
  return E;
}

bool speedupSettled(const std::vector<double> &Baseline,
                    const std::vector<double> &Candidate, double Target,
                    int Resamples) {
  if (Target <= 0 || std::min(Baseline.size(), Candidate.size()) < 8)
    return false;
  auto Within = [&](const SpeedupEstimate &E) {
    return E.Speedup > 0 && E.High <= E.Speedup * (1 + Target) &&
           E.Low >= E.Speedup * (1 - Target);
  };
  // The quick bootstrap screens; the one the report gives (estimateSpeedup's
  // defaults) decides, so a run that stops as settled reports an interval
  // within the target.
  return Within(estimateSpeedup(Baseline, Candidate, 0.95, Resamples,
                                /*Seed=*/7)) &&
         Within(estimateSpeedup(Baseline, Candidate));
}

} // namespace kopt::eval
