#include "kopt/Eval/WorkerResult.h"
#include "kopt/Eval/WorkerJob.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

using namespace kopt::eval;

namespace {

ProcessResult cleanExit() {
  ProcessResult R;
  R.Started = true;
  R.ExitCode = 0;
  return R;
}

const char *OkWithoutTiming = R"({"status": "ok", "nonce": "abc",
  "messages": [], "correctness": {"shapes": []}})";

TEST(WorkerResult, TrustsAnOkVerdictWithItsNonce) {
  WorkerResultCheck C =
      checkWorkerResult(std::string(OkWithoutTiming), "abc", cleanExit(),
                        /*TimingExpected=*/false);
  EXPECT_TRUE(C.Trusted) << C.Problem;
  EXPECT_EQ(C.Result["status"], "ok");
}

TEST(WorkerResult, StaleResultOfAnEarlierRunIsNotTrusted) {
  // A file left in a reused --work-dir carries the earlier run's nonce.
  WorkerResultCheck C = checkWorkerResult(std::string(OkWithoutTiming), "fresh",
                                          cleanExit(), false);
  EXPECT_FALSE(C.Trusted);
  EXPECT_NE(C.Problem.find("nonce"), std::string::npos) << C.Problem;
  // One without any nonce (written by hand, or by an older kopt-bench).
  C = checkWorkerResult(std::string(R"({"status": "ok", "messages": [],
      "correctness": {"shapes": []}})"),
                        "fresh", cleanExit(), false);
  EXPECT_FALSE(C.Trusted);
}

TEST(WorkerResult, RequiresACleanExit) {
  ProcessResult Crashed = cleanExit();
  Crashed.ExitCode = 3;
  WorkerResultCheck C =
      checkWorkerResult(std::string(OkWithoutTiming), "abc", Crashed, false);
  EXPECT_FALSE(C.Trusted);
  EXPECT_NE(C.Problem.find("exit code 3"), std::string::npos) << C.Problem;
  ProcessResult Killed = cleanExit();
  Killed.ExitCode = -1;
  Killed.Signal = 11;
  C = checkWorkerResult(std::nullopt, "abc", Killed, false);
  EXPECT_FALSE(C.Trusted);
  EXPECT_NE(C.Problem.find("signal 11"), std::string::npos) << C.Problem;
  // exit(0) from the candidate before any verdict was written.
  C = checkWorkerResult(std::nullopt, "abc", cleanExit(), false);
  EXPECT_FALSE(C.Trusted);
  EXPECT_NE(C.Problem.find("without writing a verdict"), std::string::npos);
}

TEST(WorkerResult, OkNeedsItsReports) {
  EXPECT_FALSE(checkWorkerResult(std::string(OkWithoutTiming), "abc",
                                 cleanExit(), /*TimingExpected=*/true)
                   .Trusted);
  EXPECT_FALSE(checkWorkerResult(std::string(R"({"status": "ok",
      "nonce": "abc", "messages": []})"),
                                 "abc", cleanExit(), false)
                   .Trusted);
  EXPECT_FALSE(checkWorkerResult(std::string(R"({"status": "great",
      "nonce": "abc", "messages": []})"),
                                 "abc", cleanExit(), false)
                   .Trusted);
  EXPECT_FALSE(
      checkWorkerResult(std::string("{not json"), "abc", cleanExit(), false)
          .Trusted);
  const char *WithTiming = R"({"status": "ok", "nonce": "abc",
    "messages": [], "correctness": {"shapes": []},
    "timing": {"baseline": {}, "candidate": {},
               "speedup": 1.1, "speedup_ci95": [1.0, 1.2],
               "baseline_samples_ms": [1.0, 1.1],
               "candidate_samples_ms": [0.9, 1.0]}})";
  EXPECT_TRUE(
      checkWorkerResult(std::string(WithTiming), "abc", cleanExit(), true)
          .Trusted);
  // A timing without its interval (a verdict forged by hand) is not one:
  // the report reads it.
  const char *NoInterval = R"({"status": "ok", "nonce": "abc",
    "messages": [], "correctness": {"shapes": []},
    "timing": {"baseline": {}, "candidate": {}, "speedup": 10,
               "baseline_samples_ms": [1.0, 1.1],
               "candidate_samples_ms": [0.1, 0.1]}})";
  EXPECT_FALSE(
      checkWorkerResult(std::string(NoInterval), "abc", cleanExit(), true)
          .Trusted);
  // A non-ok verdict is trusted without reports.
  EXPECT_TRUE(checkWorkerResult(std::string(R"({"status": "wrong-result",
      "nonce": "abc", "messages": ["x"]})"),
                                "abc", cleanExit(), true)
                  .Trusted);
}

TEST(WorkerResult, NoncesDiffer) {
  std::string A = makeNonce(), B = makeNonce();
  EXPECT_EQ(A.size(), 32u);
  EXPECT_NE(A, B);
}

TEST(WorkerResult, ReadsOnlyTheTailOfALog) {
  std::string Path = ::testing::TempDir() + "/kopt-worker-log.txt";
  {
    std::ofstream Out(Path);
    for (int I = 0; I < 10000; ++I)
      Out << "line " << I << "\n";
  }
  std::string Tail = readFileTail(Path, 100);
  EXPECT_EQ(Tail.size(), 100u);
  EXPECT_NE(Tail.find("line 9999\n"), std::string::npos);
  EXPECT_EQ(readFileTail(Path + ".missing", 100), "");
  std::remove(Path.c_str());
}

} // namespace

namespace {
// The job carries the reference cache's fields and the interval target
// through JSON; a job written without them (an older parent) gets the
// defaults.
TEST(WorkerJob, RoundTripsTheReferenceCacheAndTargetInterval) {
  kopt::eval::WorkerJob Job;
  Job.ReferenceManifest = "/c/reference/k.json";
  Job.ReferenceOnly = true;
  Job.ReferenceCachePolicy = "always";
  Job.Timing.TargetCi = 0.02;
  kopt::eval::WorkerJob Back =
      kopt::eval::workerJobFromJson(kopt::eval::workerJobToJson(Job));
  EXPECT_EQ(Back.ReferenceManifest, Job.ReferenceManifest);
  EXPECT_TRUE(Back.ReferenceOnly);
  EXPECT_EQ(Back.ReferenceCachePolicy, "always");
  EXPECT_DOUBLE_EQ(Back.Timing.TargetCi, 0.02);
  nlohmann::json Old = kopt::eval::workerJobToJson(kopt::eval::WorkerJob());
  Old.erase("reference_manifest");
  Old.erase("reference_only");
  Old["timing"].erase("ci_target");
  kopt::eval::WorkerJob Defaults = kopt::eval::workerJobFromJson(Old);
  EXPECT_TRUE(Defaults.ReferenceManifest.empty());
  EXPECT_FALSE(Defaults.ReferenceOnly);
  EXPECT_DOUBLE_EQ(Defaults.Timing.TargetCi, 0.01);
}
} // namespace

namespace {
// The reference cache's child reports what it kept instead of a
// correctness report; each kind of result needs its own.
TEST(WorkerResult, ReferenceChildNeedsWhatItKept) {
  using namespace kopt::eval;
  ProcessResult Clean = cleanExit();
  std::string Kept = R"({"status": "ok", "messages": [], "nonce": "n",
                         "reference_cache": {"entries_kept": 3}})";
  EXPECT_TRUE(
      checkWorkerResult(Kept, "n", Clean, false, WorkerKind::ReferenceCache)
          .Trusted);
  EXPECT_FALSE(checkWorkerResult(Kept, "n", Clean, false).Trusted);
  std::string Bare = R"({"status": "ok", "messages": [], "nonce": "n"})";
  EXPECT_FALSE(
      checkWorkerResult(Bare, "n", Clean, false, WorkerKind::ReferenceCache)
          .Trusted);
}
} // namespace
