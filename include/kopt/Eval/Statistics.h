//===- Statistics.h - Summaries of timing samples ---------------*- C++ -*-===//
//
// Medians and quantiles of run times, and the speedup of a candidate over
// the baseline with a bootstrap confidence interval. The samples come in
// pairs (baseline run i and candidate run i were interleaved), so the
// bootstrap resamples pairs: drift that hits both runs of a pair cancels.
//
//===----------------------------------------------------------------------===//
#ifndef KOPT_EVAL_STATISTICS_H
#define KOPT_EVAL_STATISTICS_H

#include <cstdint>
#include <vector>

namespace kopt::eval {

/// The \p Q quantile (0..1) with linear interpolation between order
/// statistics (numpy's default). Empty input gives 0.
double quantile(std::vector<double> Samples, double Q);
double median(std::vector<double> Samples);
double mean(const std::vector<double> &Samples);

struct SampleSummary {
  std::size_t Count = 0;
  double Median = 0, P20 = 0, P80 = 0, Min = 0, Max = 0, Mean = 0;
};
SampleSummary summarize(const std::vector<double> &Samples);

struct SpeedupEstimate {
  double Speedup = 0; // median(baseline) / median(candidate)
  double Low = 0;     // confidence interval
  double High = 0;
};

/// Speedup of \p Candidate over \p Baseline (paired samples of equal
/// length) with a \p Confidence interval from \p Resamples paired bootstrap
/// draws; the generator is seeded so reports are reproducible.
SpeedupEstimate estimateSpeedup(const std::vector<double> &Baseline,
                                const std::vector<double> &Candidate,
                                double Confidence = 0.95, int Resamples = 2000,
                                std::uint64_t Seed = 1);

/// Whether timing can stop: the 95% interval of the speedup lies within
/// +-\p Target (0.01: 1%) of the estimate, both in a quicker bootstrap of
/// \p Resamples draws and in estimateSpeedup's (the interval reports give).
/// False for fewer than 8 pairs or a Target <= 0.
bool speedupSettled(const std::vector<double> &Baseline,
                    const std::vector<double> &Candidate, double Target,
                    int Resamples = 400);

} // namespace kopt::eval

#endif // KOPT_EVAL_STATISTICS_H
