//===- WorkerJob.h - What the parent asks an evaluation child ---*- C++ -*-===//
//
// The parent compiles and checks; a child process (`kopt-bench __evaluate
// JOB.json`) loads the reference and one candidate, runs correctness and
// timing, and writes its findings as JSON. The child may hang or crash: the
// parent then reports timeout or runtime-error from what the child left.
//
//===----------------------------------------------------------------------===//
#ifndef KOPT_EVAL_WORKERJOB_H
#define KOPT_EVAL_WORKERJOB_H

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace kopt::eval {

struct TimingOptions {
  double WarmupMs = 25;  // host time spent warming up, both kernels
  double RepeatMs = 400; // most measured time per kernel
  int MinRuns = 20;
  int MaxRuns = 2000;
  /// Stop once the speedup's 95% interval is within +-TargetCi of it
  /// (0: always run the whole budget).
  double TargetCi = 0.01;
  bool Graph = false; // replay a captured CUDA graph
  bool Skip = false;  // correctness only
};

struct WorkerJob {
  std::string ProblemPath;
  std::string ReferenceLibrary;
  std::string CandidateLibrary;
  std::string ResultPath;
  /// Random per evaluation; the result must echo it, so a stale or forged
  /// result file is not taken for this evaluation's verdict.
  std::string Nonce;
  std::uint64_t SeedBase = 0;
  long long L2Bytes = 0;
  double GateSeconds = 5; // how long the entry may block the gated stream
  TimingOptions Timing;
  /// Only run the candidate's entry on the benchmark shape, once to warm up
  /// and once between cudaProfilerStart/Stop, for ncu (NcuProfile.h).
  bool ProfileOnly = false;
  /// The reference cache's manifest for this (reference, problem, seed
  /// base): read by candidate children, written by the reference child.
  /// Empty: no reference cache.
  std::string ReferenceManifest;
  /// The reference child: no candidate; computes the reference's outputs
  /// of every correctness run and keeps them as ReferenceCachePolicy says
  /// ("auto": where recomputing costs more than reading back; "always").
  bool ReferenceOnly = false;
  std::string ReferenceCachePolicy = "auto";
  /// Containment (Capture.h): the candidate's host code ran in a capture
  /// child, which is gone; this child loads only the candidate's device
  /// code and replays the checked capture in CapturePath. The SHA-256 of
  /// each file the child reads, taken by the parent before any candidate
  /// code ran: a file changed since (by the capture child) is tampering.
  bool Contained = false;
  std::string CapturePath;
  std::string ProblemSha256;
  std::string ReferenceSha256;
  std::string CandidateSha256;
};

nlohmann::json workerJobToJson(const WorkerJob &Job);
WorkerJob workerJobFromJson(const nlohmann::json &J);

/// The job in the file at \p Path (a child's first step); on a missing,
/// unreadable or malformed file, says so on stderr as \p Who and returns
/// nullopt (the child then exits 2).
std::optional<WorkerJob> readWorkerJob(const std::string &Path,
                                       const char *Who);

/// Runs the job (in the child). Returns the process exit code.
int runEvaluationWorker(const std::string &JobPath);

/// The capture child of containment (Capture.h): loads the job's candidate,
/// captures its entry's work on every shape and writes the CaptureReport
/// to the job's ResultPath. Exit code 0 when the report was written.
int runCaptureWorker(const std::string &JobPath);

} // namespace kopt::eval

#endif // KOPT_EVAL_WORKERJOB_H
