//===- Candidate.h - One point of a search and its verdicts -----*- C++ -*-===//
#ifndef KOPT_SEARCH_CANDIDATE_H
#define KOPT_SEARCH_CANDIDATE_H

#include <cstdint>
#include <optional>
#include <string>

namespace kopt::search {

/// What the GPU (or the simulated model standing in for it) said.
struct Evaluation {
  std::string Executor; // "gpu", "simulate:cost", "simulate:replay"
  std::string Status;   // kopt-bench's statuses: ok, wrong-result, ...
  double Speedup = 0, SpeedupLow = 0, SpeedupHigh = 0; // vs the original
  double MedianMs = 0, BaselineMedianMs = 0;
  std::optional<double> AchievedGbps, FractionOfCopyBandwidth;
  double GpuSeconds = 0;
  std::string Device, Driver, Clocks; // JSON text where structured
  std::string Record;                 // kopt-bench's record, JSON text
  std::string KoptVersion;
  /// Why a verdict is not ok: the rule and the first message ("timer-read:
  /// ..."); empty for ok.
  std::string Reason;
};

/// Candidate statuses before the GPU, in the order they are reached.
/// The device model an evaluation ran on ("NVIDIA H100 80GB HBM3",
/// "simulated"), from its device record; "" when unknown. Speedups are
/// compared only within one model.
std::string deviceModel(const Evaluation &E);
/// The node it ran on, when the executor recorded one (Slurm).
std::string deviceNode(const Evaluation &E);

namespace status {
inline constexpr const char *Pending = "pending"; // proposed, not made
inline constexpr const char *Invalid = "invalid"; // kopt-opt refused it
/// The LLM gave no candidate source (the request failed, the reply held no
/// usable code); the reason and the exchange are in the store.
inline constexpr const char *LLMError = "llm-error";
inline constexpr const char *Made = "made"; // kopt-opt wrote it
inline constexpr const char *Duplicate = "duplicate";
inline constexpr const char *Validated = "validated"; // waits for the GPU
// After validation: compile-error, rejected (kopt-bench's names); after
// evaluation: the evaluation's status.
} // namespace status

struct Candidate {
  std::int64_t Id = 0;
  std::int64_t ParentId = 0; // 0: a root
  int Depth = 0;
  std::string Proposer;
  std::string Recipe;
  std::string Status = status::Pending;
  std::string Reason;
  std::string Source; // the candidate's full source, once made
  std::string SourceSha256, SassSha256;
  std::int64_t DuplicateOf = 0;
  bool Expanded = false; // its children were proposed
  std::optional<Evaluation> Eval;

  bool evaluatedOk() const { return Eval && Eval->Status == "ok"; }
  /// Steps in the recipe (0 for the original).
  int steps() const;
};

} // namespace kopt::search

#endif // KOPT_SEARCH_CANDIDATE_H
