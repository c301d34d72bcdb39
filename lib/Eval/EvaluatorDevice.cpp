//===- EvaluatorDevice.cpp - The evaluator's worker processes -------------===//
//
// The Evaluator's steps on the devices: one worker process a candidate and
// device, the reference cache's child, Nsight Compute profiles, and the
// timing figures derived from a worker's record.
//
//===----------------------------------------------------------------------===//
#include "EvaluatorImpl.h"
#include "kopt/Eval/CompileCache.h"
#include "kopt/Eval/Compiler.h"
#include "kopt/Eval/Containment.h"
#include "kopt/Eval/DeviceProbe.h"
#include "kopt/Eval/FileCheckRule.h"
#include "kopt/Eval/NcuProfile.h"
#include "kopt/Eval/ObjectRules.h"
#include "kopt/Eval/Process.h"
#include "kopt/Eval/ReferenceCache.h"
#include "kopt/Eval/Sha256.h"
#include "kopt/Eval/StaticChecks.h"
#include "kopt/Eval/WorkerResult.h"
#include "kopt/Spec/EntrySignature.h"
#include "kopt/Spec/ProblemValidator.h"
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <sys/prctl.h>
#include <thread>
#include <tuple>
#include <unistd.h>

namespace kopt::eval::detail {

void Evaluator::addDerivedTiming(json &Record) {
  if (!Record.contains("timing"))
    return;
  json &T = Record["timing"];
  const spec::Shape &S = P.Shapes[P.BenchmarkShape];
  double Bytes = spec::bytesMoved(P, S);
  double Median = T["candidate"].value("median_ms", 0.0);
  double BaselineMedian = T["baseline"].value("median_ms", 0.0);
  T["bytes"] = Bytes;
  T["bytes_source"] = P.BytesExpression.empty()
                          ? "inputs read once + outputs written once"
                          : "problem.json: " + P.BytesExpression;
  if (Median > 0) {
    T["achieved_gbps"] = Bytes / (Median * 1e-3) / 1e9;
    T["baseline_achieved_gbps"] =
        BaselineMedian > 0 ? Bytes / (BaselineMedian * 1e-3) / 1e9 : 0.0;
    double Copy = Record.contains("device")
                      ? Record["device"].value("copy_bandwidth_gbps", 0.0)
                      : 0.0;
    if (Copy > 0)
      T["fraction_of_copy_bandwidth"] = T["achieved_gbps"].get<double>() / Copy;
    if (auto Flops = spec::flopCount(P, S)) {
      T["flops"] = *Flops;
      T["achieved_gflops"] = *Flops / (Median * 1e-3) / 1e9;
    }
  }
  double Speedup = T.value("speedup", 0.0);
  // A median this small is no kernel at all: the work escaped the events
  // (or there was none). Flag it like an implausible speedup.
  const double MinPlausibleMs = 1e-4;
  if (!(Median >= MinPlausibleMs)) {
    Record["flags"].push_back("speedup-above-10x");
    Record["flags"].push_back("candidate-time-near-zero");
    Record["messages"].push_back(
        "the candidate's median time is " + std::to_string(Median) +
        " ms (below 0.1 us): its work escaped the timing events or did not "
        "happen; look at this candidate a second time");
  } else if (Speedup > 10.0) {
    Record["flags"].push_back("speedup-above-10x");
    Record["messages"].push_back(
        "speedup above 10x: look at this candidate a second time");
  }
}

WorkerJob Evaluator::baseJob(const DeviceInfo &D, const std::string &Tag) {
  std::string Arch = archForComputeCapability(D.Major, D.Minor);
  WorkerJob Job;
  Job.ProblemPath = fs::absolute(P.SpecPath).string();
  Job.ReferenceLibrary = ReferenceByArch[Arch];
  Job.ResultPath = (Work / (Tag + ".result.json")).string();
  Job.Nonce = makeNonce();
  Job.L2Bytes = D.L2Bytes;
  Job.Timing = Options.Timing;
  Job.SeedBase = SeedBase;
  Job.ReferenceManifest = ManifestByArch[Arch];
  return Job;
}

void Evaluator::runWorker(CompiledCandidate &C, const DeviceInfo &D,
                          std::size_t Index) {
  json &Record = C.Record;
  std::string Arch = archForComputeCapability(D.Major, D.Minor);
  std::string Tag = "eval-" + std::to_string(Index);
  WorkerJob Job = baseJob(D, Tag);
  Job.CandidateLibrary = C.LibraryByArch[Arch];
  Record["seed_base"] = Job.SeedBase;
  Record["device"] = deviceInfoToJson(D);
  fs::path JobPath = Work / (Tag + ".job.json");
  double Limit =
      Options.TimeoutSeconds > 0 ? Options.TimeoutSeconds : P.TimeoutSeconds;
  ProcessOptions Run;
  Run.TimeoutSeconds = Limit;
  Run.ExtraEnv["CUDA_VISIBLE_DEVICES"] = visibleDeviceFor(D.Index);
  // Load every kernel when its library is loaded, not at its first launch:
  // a lazy load waits for the device, and the correctness check holds the
  // default stream while the candidate launches.
  Run.ExtraEnv["CUDA_MODULE_LOADING"] = "EAGER";
  if (Options.Contain) {
    // The candidate's host code runs in the capture child only; this
    // evaluation's files are written after that child and everything it
    // started are gone.
    CaptureVerdict Captured = captureCandidate(
        workerExecutable(), Job, (Work / (Tag + "-contained")).string(), Run);
    Record["containment"] = Captured.Report;
    if (!Captured.Ok) {
      for (const std::string &M : Captured.Messages)
        reject(Record, Captured.VerdictStatus, Captured.Rule, M);
      return;
    }
  }
  {
    // A result left by an earlier run in a reused work directory must not
    // be read as this one's (it would not carry the nonce anyway).
    std::error_code EC;
    fs::remove(Job.ResultPath, EC);
    if (fs::exists(Job.ResultPath, EC)) {
      reject(Record, Status::RuntimeError, "",
             "cannot remove the stale result file " + Job.ResultPath);
      return;
    }
  }
  {
    std::error_code EC;
    fs::remove(JobPath, EC); // not through a link someone left there
    std::ofstream Out(JobPath);
    Out << workerJobToJson(Job).dump(2) << "\n";
  }
  Run.OutputFile = (Work / (Tag + ".log")).string();
  ProcessResult R =
      runProcess({workerExecutable(), "__evaluate", JobPath.string()}, Run);
  Record["worker"] = {
      {"seconds", R.Seconds}, {"end", R.describeEnd()}, {"limit_s", Limit}};

  // Only the tail: a child that prints without end must not fill memory.
  std::string Log = readFileTail(Run.OutputFile, 64 * 1024);
  std::string LastStage = "(unknown: no stage line in the log's last 64 KiB)";
  {
    std::istringstream In(Log);
    std::string Line;
    const std::string Marker = "kopt-bench worker: stage: ";
    while (std::getline(In, Line))
      if (Line.rfind(Marker, 0) == 0)
        LastStage = Line.substr(Marker.size());
  }
  if (R.TimedOut) {
    reject(Record, Status::Timeout, "",
           "killed after the " + std::to_string((int)Limit) +
               " s limit during: " + LastStage);
    return;
  }
  std::optional<std::string> ResultText;
  {
    std::error_code EC;
    // A verdict is a few KiB plus the samples; anything far larger is not
    // one of ours.
    if (fs::is_regular_file(Job.ResultPath, EC) &&
        fs::file_size(Job.ResultPath, EC) < (256u << 20) && !EC)
      ResultText = spec::readTextFile(Job.ResultPath);
  }
  WorkerResultCheck Check =
      checkWorkerResult(ResultText, Job.Nonce, R, !Options.Timing.Skip);
  if (!Check.Trusted) {
    std::string Exit =
        R.Signal || R.ExitCode != 0 ? " (" + R.describeEnd() + ")" : "";
    reject(Record, Status::RuntimeError, "",
           Check.Problem + Exit + "; last stage: " + LastStage + "\n" +
               tail(Log, 2000));
    Record["worker"]["exit_code"] = R.ExitCode;
    Record["worker"]["signal"] = R.Signal;
    return;
  }
  json &Result = Check.Result;
  for (const char *Key : {"correctness", "timing", "timing_check",
                          "clocks_after_timing", "stage_seconds"})
    if (Result.contains(Key))
      Record[Key == std::string("clocks_after_timing") ? "clocks" : Key] =
          Result[Key];
  if (Result.contains("flags") && Result["flags"].is_array())
    for (const json &F : Result["flags"])
      if (F.is_string())
        Record["flags"].push_back(F);
  std::string WorkerStatus = Result.value("status", "runtime-error");
  auto S = parseStatus(WorkerStatus).value_or(Status::RuntimeError);
  for (const auto &M : Result["messages"])
    Record["messages"].push_back(M);
  if (S != Status::Ok) {
    Record["status"] = WorkerStatus;
    if (Result.contains("rule"))
      Record["rule"] = Result["rule"];
  }
  if (Result.value("reference_failed", false))
    Record["reference_failed"] = true;
  addDerivedTiming(Record);
  if (Options.Profile && S == Status::Ok)
    Record["profile"] = profile(Job, Run, Tag);
}

/// The reference cache (docs/evaluator.md): for each arch, a manifest named
/// by the reference library's content, the problem and the seed base. When
/// it is missing, a reference child (no candidate) computes the reference's
/// outputs of every correctness run and keeps those worth keeping. False
/// when the reference fails there (a problem error).
bool Evaluator::prepareReferenceCache() {
  if (!Options.OnDevice || referenceCachePolicy() == "off")
    return true;
  fs::path Dir = fs::path(cacheDir()) / "reference";
  std::error_code EC;
  fs::create_directories(Dir, EC);
  auto ProblemText = spec::readTextFile(P.SpecPath);
  for (const DeviceInfo &D : Devices) {
    std::string Arch = archForComputeCapability(D.Major, D.Minor);
    if (ManifestByArch.count(Arch))
      continue;
    ManifestByArch[Arch] = "";
    auto Library = spec::readTextFile(ReferenceByArch[Arch]);
    if (!Library || !ProblemText || EC)
      continue;
    fs::path Manifest =
        Dir / (referenceCacheKey(*Library, *ProblemText, SeedBase) + ".json");
    if (fs::exists(Manifest, EC)) {
      // Used: the least recently used groups go first when pruning.
      fs::last_write_time(Manifest, fs::file_time_type::clock::now(), EC);
      ManifestByArch[Arch] = Manifest.string();
      continue;
    }
    std::string Tag = "reference-" + Arch;
    WorkerJob Job = baseJob(D, Tag);
    Job.ReferenceOnly = true;
    Job.ReferenceManifest = Manifest.string();
    Job.ReferenceCachePolicy = referenceCachePolicy();
    fs::path JobPath = Work / (Tag + ".job.json");
    std::ofstream(JobPath) << workerJobToJson(Job).dump(2) << "\n";
    ProcessOptions Run;
    Run.TimeoutSeconds =
        Options.TimeoutSeconds > 0 ? Options.TimeoutSeconds : P.TimeoutSeconds;
    Run.ExtraEnv["CUDA_VISIBLE_DEVICES"] = visibleDeviceFor(D.Index);
    Run.ExtraEnv["CUDA_MODULE_LOADING"] = "EAGER";
    Run.OutputFile = (Work / (Tag + ".log")).string();
    ProcessResult R =
        runProcess({workerExecutable(), "__evaluate", JobPath.string()}, Run);
    WorkerResultCheck Check =
        checkWorkerResult(spec::readTextFile(Job.ResultPath), Job.Nonce, R,
                          false, WorkerKind::ReferenceCache);
    std::string Log = readFileTail(Run.OutputFile, 64 * 1024);
    if (Check.Trusted && Check.Result.value("reference_failed", false)) {
      std::string Why;
      for (const json &M : Check.Result["messages"])
        if (M.is_string())
          Why += "\n" + M.get<std::string>();
      Outcome.ProblemErrors.push_back("the reference failed while its outputs "
                                      "were computed for the cache:" +
                                      Why);
      return false;
    }
    if (!Check.Trusted || Check.Result.value("status", "") != "ok") {
      // The cache is an optimization: without it every child recomputes.
      ReferenceCacheNote =
          "note: the reference cache was not used (" +
          (Check.Trusted ? Check.Result.dump() : Check.Problem) +
          "): " + tail(Log, 1000);
      continue;
    }
    ReferenceChildSeconds += R.Seconds;
    ManifestByArch[Arch] = Manifest.string();
  }
  return true;
}

/// One more child, under ncu, that runs the candidate's entry once on the
/// benchmark shape (NcuProfile.h): the metrics, or why there are none.
json Evaluator::profile(WorkerJob Job, ProcessOptions Run,
                        const std::string &Tag) {
  std::string Ncu = findNcu(Compile.Nvcc);
  if (Ncu.empty())
    return {{"error", "ncu not found (beside nvcc, on PATH or $KOPT_NCU)"}};
  Job.ProfileOnly = true;
  Job.Nonce = makeNonce();
  Job.ResultPath = (Work / (Tag + ".profile.result.json")).string();
  fs::path JobPath = Work / (Tag + ".profile.job.json");
  fs::path Csv = Work / (Tag + ".ncu.csv");
  std::ofstream(JobPath) << workerJobToJson(Job).dump(2) << "\n";
  Run.OutputFile = (Work / (Tag + ".profile.log")).string();
  ProcessResult R = runProcess(
      // ncu starts the program itself: a path, not /proc/self/exe (which
      // would name ncu there).
      ncuCommand(Ncu,
                 Options.WorkerExecutable.empty() ? currentExecutable()
                                                  : Options.WorkerExecutable,
                 JobPath.string(), Csv.string()),
      Run);
  json Out = parseNcuCsv(spec::readTextFile(Csv).value_or(""));
  if (!R.succeeded() || Out.contains("error"))
    Out = {{"error", "ncu " + R.describeEnd() + ": " +
                         tail(readFileTail(Run.OutputFile, 64 * 1024) +
                                  spec::readTextFile(Csv).value_or(""),
                              1500)}};
  Out["tool"] = Ncu;
  return Out;
}

} // namespace kopt::eval::detail
