//===- WorkerJob.cpp - What the parent asks an evaluation child -----------===//
#include "kopt/Eval/WorkerJob.h"

#include <cstdio>
#include <fstream>

namespace kopt::eval {

nlohmann::json workerJobToJson(const WorkerJob &Job) {
  return {{"problem", Job.ProblemPath},
          {"reference_library", Job.ReferenceLibrary},
          {"candidate_library", Job.CandidateLibrary},
          {"result", Job.ResultPath},
          {"nonce", Job.Nonce},
          {"seed_base", Job.SeedBase},
          {"l2_bytes", Job.L2Bytes},
          {"gate_seconds", Job.GateSeconds},
          {"profile_only", Job.ProfileOnly},
          {"reference_manifest", Job.ReferenceManifest},
          {"reference_only", Job.ReferenceOnly},
          {"reference_cache_policy", Job.ReferenceCachePolicy},
          {"contained", Job.Contained},
          {"capture", Job.CapturePath},
          {"problem_sha256", Job.ProblemSha256},
          {"reference_sha256", Job.ReferenceSha256},
          {"candidate_sha256", Job.CandidateSha256},
          {"timing",
           {{"warmup_ms", Job.Timing.WarmupMs},
            {"repeat_ms", Job.Timing.RepeatMs},
            {"min_runs", Job.Timing.MinRuns},
            {"max_runs", Job.Timing.MaxRuns},
            {"ci_target", Job.Timing.TargetCi},
            {"graph", Job.Timing.Graph},
            {"skip", Job.Timing.Skip}}}};
}

WorkerJob workerJobFromJson(const nlohmann::json &J) {
  WorkerJob Job;
  Job.ProblemPath = J.at("problem");
  Job.ReferenceLibrary = J.at("reference_library");
  Job.CandidateLibrary = J.at("candidate_library");
  Job.ResultPath = J.at("result");
  Job.Nonce = J.at("nonce");
  Job.SeedBase = J.at("seed_base");
  Job.L2Bytes = J.at("l2_bytes");
  Job.GateSeconds = J.at("gate_seconds");
  Job.ProfileOnly = J.value("profile_only", false);
  Job.ReferenceManifest = J.value("reference_manifest", "");
  Job.ReferenceOnly = J.value("reference_only", false);
  Job.ReferenceCachePolicy = J.value("reference_cache_policy", "auto");
  Job.Contained = J.value("contained", false);
  Job.CapturePath = J.value("capture", "");
  Job.ProblemSha256 = J.value("problem_sha256", "");
  Job.ReferenceSha256 = J.value("reference_sha256", "");
  Job.CandidateSha256 = J.value("candidate_sha256", "");
  const auto &T = J.at("timing");
  Job.Timing.WarmupMs = T.at("warmup_ms");
  Job.Timing.RepeatMs = T.at("repeat_ms");
  Job.Timing.MinRuns = T.at("min_runs");
  Job.Timing.MaxRuns = T.at("max_runs");
  Job.Timing.TargetCi = T.value("ci_target", 0.01);
  Job.Timing.Graph = T.at("graph");
  Job.Timing.Skip = T.at("skip");
  return Job;
}

std::optional<WorkerJob> readWorkerJob(const std::string &Path,
                                       const char *Who) {
  try {
    std::ifstream In(Path);
    return workerJobFromJson(nlohmann::json::parse(In));
  } catch (const std::exception &E) {
    std::fprintf(stderr, "kopt-bench %s: bad job %s: %s\n", Who, Path.c_str(),
                 E.what());
    return std::nullopt;
  }
}

} // namespace kopt::eval
