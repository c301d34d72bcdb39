//===- Evaluator.cpp - The parent side of check and run -------------------===//
#include "kopt/Eval/Evaluator.h"
#include "kopt/Eval/NcuProfile.h"

#include "kopt/Eval/CompileCache.h"
#include "kopt/Eval/Compiler.h"
#include "kopt/Eval/Containment.h"
#include "kopt/Eval/DeviceProbe.h"
#include "kopt/Eval/FileCheckRule.h"
#include "kopt/Eval/Process.h"
#include "kopt/Eval/ReferenceCache.h"
#include "kopt/Eval/Sha256.h"
#include "kopt/Eval/ObjectRules.h"
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

namespace kopt::eval {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string tail(const std::string &Text, std::size_t Max) {
  return Text.size() <= Max ? Text : "..." + Text.substr(Text.size() - Max);
}

/// CUDA_VISIBLE_DEVICES for the child that should see the user's device
/// \p Index, honouring a selection the parent itself runs under.
std::string visibleDeviceFor(int Index) {
  const char *Parent = std::getenv("CUDA_VISIBLE_DEVICES");
  if (!Parent || !*Parent)
    return std::to_string(Index);
  std::vector<std::string> Ids;
  std::stringstream In(Parent);
  std::string Id;
  while (std::getline(In, Id, ','))
    Ids.push_back(Id);
  if (Index >= 0 && static_cast<std::size_t>(Index) < Ids.size())
    return Ids[Index];
  return std::to_string(Index);
}

json resourcesJson(const ResourceUsage &Usage) {
  json Kernels = json::array();
  for (const KernelResources &K : Usage.Kernels) {
    json Loads = json::object(), Stores = json::object();
    for (auto [Width, Count] : K.GlobalLoadWidths)
      Loads[std::to_string(Width)] = Count;
    for (auto [Width, Count] : K.GlobalStoreWidths)
      Stores[std::to_string(Width)] = Count;
    json Entry = {{"name", K.Name},
                  {"mangled", K.MangledName},
                  {"global_load_widths_bits", Loads},
                  {"global_store_widths_bits", Stores}};
    if (K.Registers >= 0) {
      Entry["registers"] = K.Registers;
      Entry["shared_bytes"] = K.SharedBytes;
      Entry["stack_frame_bytes"] = K.StackFrameBytes;
      Entry["spill_store_bytes"] = K.SpillStoreBytes;
      Entry["spill_load_bytes"] = K.SpillLoadBytes;
    }
    Kernels.push_back(Entry);
  }
  return {{"kernels", Kernels}, {"sass_inspected", Usage.SassAvailable}};
}

void reject(json &Record, Status S, const std::string &Rule,
            const std::string &Message) {
  if (Record["status"] == "ok") {
    Record["status"] = std::string(statusName(S));
    if (!Rule.empty())
      Record["rule"] = Rule;
  }
  Record["messages"].push_back(Message);
}

/// SASS without cuobjdump's `identifier = FILE` lines, which name the
/// source: two candidates with the same machine code hash the same.
std::string withoutIdentifiers(const std::string &Sass) {
  std::istringstream In(Sass);
  std::string Line, Out;
  while (std::getline(In, Line))
    if (Line.find("identifier =") == std::string::npos)
      Out += Line + "\n";
  return Out;
}

struct CompiledCandidate {
  json Record;
  std::map<std::string, std::string> LibraryByArch;
};

class Evaluator {
public:
  Evaluator(const spec::Problem &P, const EvaluatorOptions &Options)
      : P(P), Options(Options) {}

  EvaluationOutcome run();

private:
  const spec::Problem &P;
  const EvaluatorOptions &Options;
  EvaluationOutcome Outcome;
  CompileOptions Compile;
  std::optional<CompileCache> Cache;
  std::string FileCheckTool; // when the problem has filecheck patterns
  std::string NvccVersion;
  fs::path Work;
  std::vector<DeviceInfo> Devices;
  std::map<std::string, std::string> ReferenceByArch;
  /// The reference cache's manifest per arch (empty: no cache).
  std::map<std::string, std::string> ManifestByArch;
  spec::EntrySignature ReferenceSignature;
  std::uint64_t SeedBase = 0;
  std::string ReferenceCacheNote;
  double ReferenceChildSeconds = 0;

  bool prepareWorkDir();
  std::string workerExecutable() const {
    if (!Options.WorkerExecutable.empty())
      return Options.WorkerExecutable;
    // Contained: this process's own image, even if its path was replaced
    // since it started.
    return Options.Contain ? "/proc/self/exe" : currentExecutable();
  }
  /// Containment turns the reference cache off: its files could be
  /// rewritten by a candidate's host code for later candidates.
  std::string referenceCachePolicy() const {
    return Options.Contain ? "off" : Options.ReferenceCache;
  }
  bool probeDevices();
  std::string cacheDir() const {
    return Options.CacheDir.empty() ? defaultCacheDir() : Options.CacheDir;
  }
  /// The options for compiling \p Source for \p Arch: with the compile
  /// cache, the source is preprocessed first (device pass for Arch; the
  /// host pass \p Host when given, else computed) for the cache's digest.
  CompileOptions compileOptions(const fs::path &Source, const std::string &Arch,
                                const std::string &Stem,
                                const PreprocessResult *Device,
                                const PreprocessResult *Host);
  bool compileReference(const std::vector<std::string> &Archs);
  CompiledCandidate compileCandidate(std::size_t Index, const std::string &Path,
                                     const std::vector<std::string> &Archs);
  void applyFileChecks(json &Record, const CompileResult &R,
                       const std::string &Stem, const fs::path &Source,
                       const CompileOptions &O);
  void runWorker(CompiledCandidate &C, const DeviceInfo &D, std::size_t Index);
  WorkerJob baseJob(const DeviceInfo &D, const std::string &Tag);
  bool prepareReferenceCache();
  json profile(WorkerJob Job, ProcessOptions Run, const std::string &Tag);
  void addDerivedTiming(json &Record);
};

bool Evaluator::prepareWorkDir() {
  std::error_code EC;
  if (!Options.WorkDir.empty()) {
    Work = Options.WorkDir;
    fs::create_directories(Work, EC);
  } else {
    std::string Template =
        (fs::temp_directory_path() / "kopt-bench-XXXXXX").string();
    if (!mkdtemp(Template.data())) {
      Outcome.ProblemErrors.push_back("cannot create a temporary directory");
      return false;
    }
    Work = Template;
  }
  Work = fs::absolute(Work);
  Outcome.WorkDir = Work.string();
  return true;
}

bool Evaluator::probeDevices() {
  std::string CacheDir = cacheDir();
  for (int Index : Options.Devices) {
    fs::path Result = Work / ("probe-" + std::to_string(Index) + ".json");
    ProcessOptions Run;
    Run.TimeoutSeconds = 180;
    Run.ExtraEnv["CUDA_VISIBLE_DEVICES"] = visibleDeviceFor(Index);
    ProcessResult R =
        runProcess({workerExecutable(), "__probe", Result.string(), CacheDir,
                    std::to_string(Index)},
                   Run);
    json Info;
    std::ifstream In(Result);
    if (In) {
      try {
        Info = json::parse(In);
      } catch (const json::exception &) {
      }
    }
    if (!R.succeeded() || !Info.is_object() || Info.contains("error")) {
      std::string Why = Info.is_object() && Info.contains("error")
                            ? Info["error"].get<std::string>()
                            : R.describeEnd() + ": " + tail(R.Output, 2000);
      Outcome.ProblemErrors.push_back("cannot use device " +
                                      std::to_string(Index) + ": " + Why);
      return false;
    }
    Devices.push_back(deviceInfoFromJson(Info));
    Outcome.Devices.push_back(Info);
  }
  return true;
}

CompileOptions Evaluator::compileOptions(const fs::path &Source,
                                         const std::string &Arch,
                                         const std::string &Stem,
                                         const PreprocessResult *Device,
                                         const PreprocessResult *Host) {
  CompileOptions O = Compile;
  O.Arch = Arch;
  if (!Cache)
    return O;
  PreprocessResult OwnDevice, OwnHost;
  if (!Device)
    Device = &(OwnDevice = preprocessSource(P, Source, Work, Stem + "-" + Arch,
                                            O, /*HostPass=*/false));
  if (!Host)
    Host = &(OwnHost = preprocessSource(P, Source, Work, Stem, O,
                                        /*HostPass=*/true));
  O.Cache = &*Cache;
  // A source that does not preprocess is compiled as it is (and fails).
  if (Device->Ok && Host->Ok)
    O.SourceDigest = sourceDigest(Device->Text, Host->Text);
  return O;
}

bool Evaluator::compileReference(const std::vector<std::string> &Archs) {
  for (const std::string &Arch : Archs) {
    CompileOptions O =
        compileOptions(P.referencePath(), Arch, "reference", nullptr, nullptr);
    CompileResult R =
        compileEntryLibrary(P, P.referencePath(), Work, "reference-" + Arch, O);
    if (!R.Ok) {
      Outcome.ProblemErrors.push_back("the reference '" + P.Reference +
                                      "' does not compile for " + Arch + ":\n" +
                                      tail(R.Log, 4000));
      return false;
    }
    ReferenceByArch[Arch] = R.LibraryPath;
  }
  return true;
}

CompiledCandidate
Evaluator::compileCandidate(std::size_t Index, const std::string &Path,
                            const std::vector<std::string> &Archs) {
  CompiledCandidate C;
  json &Record = C.Record;
  Record = {{"candidate", Path},
            {"problem", P.Name},
            {"status", "ok"},
            {"messages", json::array()},
            {"flags", json::array()}};
  auto Source = spec::readTextFile(Path);
  if (!Source) {
    reject(Record, Status::CompileError, "",
           "cannot read the candidate '" + Path + "'");
    return C;
  }
  Record["source_sha256"] = sha256Hex(*Source);
  Record["compile"] = {{"nvcc", Compile.Nvcc},
                       {"nvcc_version", NvccVersion},
                       {"flags", evaluationFlags(P, Compile)}};

  // The preprocessed source, device and host passes: the static rules read
  // it, and the compile cache keys on it.
  std::string Stem = "candidate-" + std::to_string(Index);
  fs::path Absolute = fs::absolute(Path);
  PreprocessResult Pre[2];
  for (bool HostPass : {false, true}) {
    CompileOptions O = Compile;
    O.Arch = Archs.front();
    Pre[HostPass] = preprocessSource(P, Absolute, Work, Stem, O, HostPass);
  }

  for (const std::string &Arch : Archs) {
    bool Front = Arch == Archs.front();
    CompileOptions O = compileOptions(Absolute, Arch, Stem,
                                      Front ? &Pre[0] : nullptr, &Pre[1]);
    CompileResult R =
        compileEntryLibrary(P, Absolute, Work, Stem + "-" + Arch, O);
    Record["compile"]["flags"] = evaluationFlags(P, O);
    Record["compile"]["arch"] = Arch;
    Record["compile"]["seconds"] = R.Seconds;
    Record["compile"]["command"] = R.Command;
    Record["compile"]["cached"] = R.Cached;
    if (!R.Ok) {
      Record["compile"]["log"] = tail(R.Log, 8000);
      reject(Record, Status::CompileError, "",
             "nvcc failed for " + Arch + ":\n" + tail(R.Log, 2000));
      return C;
    }
    Record["resources"] = resourcesJson(R.Resources);
    if (R.SassInspected && Arch == Archs.front())
      Record["sass_sha256"] = sha256Hex(withoutIdentifiers(R.Sass));
    Record["resources"]["sass_inspected"] = R.SassInspected;
    C.LibraryByArch[Arch] = R.LibraryPath;
    if (Front)
      applyFileChecks(Record, R, Stem, Absolute, O);
    for (const RuleViolation &V : checkSassRules(R.Sass, P))
      reject(Record, Status::Rejected, V.Rule, describeViolation(V, Path));
    if (!R.SassInspected && Arch == Archs.front()) {
      // Fail closed: the SASS rules (timer-read, device-printf) catch what
      // the source scan misses; without them a candidate is not cleared.
      Record["flags"].push_back("sass-not-inspected");
      std::string Why = Compile.Cuobjdump.empty()
                            ? "no cuobjdump was found beside nvcc or on PATH"
                            : "cuobjdump failed on the library";
      if (Options.OnDevice)
        reject(Record, Status::Rejected, "sass-not-inspected",
               "the SASS could not be inspected (" + Why +
                   "): the SASS rules were not applied, so the candidate is "
                   "not run");
      else
        Record["messages"].push_back(
            "warning: the SASS could not be inspected (" + Why +
            "): the SASS rules (timer-read, device-printf) were not applied; "
            "`run` rejects such a candidate (sass-not-inspected)");
    }
  }
  std::vector<RuleViolation> Violations =
      checkEntrySignatureRule(*Source, ReferenceSignature, P);
  for (RuleViolation &V : checkSourceRules(*Source, P))
    Violations.push_back(V);
  // The same rules over the preprocessed source, device and host passes:
  // macros, token pasting, line splices and local headers are resolved.
  std::vector<std::string> SystemDirs = toolkitDirectories(Compile.Nvcc);
  std::error_code EC;
  fs::path Canonical = fs::weakly_canonical(fs::absolute(Path), EC);
  for (bool HostPass : {false, true}) {
    if (!Pre[HostPass].Ok) {
      reject(Record, Status::CompileError, "",
             std::string("nvcc -E (the ") + (HostPass ? "host" : "device") +
                 " pass, for the static rules) failed:\n" +
                 tail(Pre[HostPass].Log, 2000));
      return C;
    }
    for (RuleViolation &V :
         checkPreprocessedRules(Pre[HostPass].Text, P, SystemDirs)) {
      std::error_code FileEC;
      if (!V.File.empty() &&
          fs::weakly_canonical(V.File, FileEC) == Canonical && !FileEC)
        V.File.clear();
      Violations.push_back(V);
    }
  }
  // What the host code calls, from the compiled library's imports and
  // instructions; the source's mentions of those names are second opinions.
  ObjectInspection Object = inspectHostObject(
      C.LibraryByArch.at(Archs.front()), Compile.Objdump, P);
  if (!Object.Inspected)
    Record["messages"].push_back(
        "warning: the compiled host code could not be fully inspected (" +
        Object.Error + "): names in the source decide the host API rules");
  SettledRules Settled = settleRules(std::move(Violations), Object, P);
  for (const RuleViolation &V : Settled.Rejections)
    reject(Record, Status::Rejected, V.Rule, describeViolation(V, Path));
  for (const RuleViolation &N : Settled.Notes)
    Record["messages"].push_back("note: " + describeViolation(N, Path));
  return C;
}

void Evaluator::applyFileChecks(json &Record, const CompileResult &R,
                                const std::string &Stem, const fs::path &Source,
                                const CompileOptions &O) {
  std::optional<PreprocessResult> Ptx; // compiled once, when asked for
  for (std::size_t I = 0; I < P.FileChecks.size(); ++I) {
    const spec::FileCheckSpec &Check = P.FileChecks[I];
    std::string Over = fileCheckInputName(Check.Over);
    std::string Which = "filecheck[" + std::to_string(I) + "] (" + Check.File +
                        " over the " + Over + " output)";
    if (Check.Over == spec::FileCheckSpec::Input::Sass && !R.SassInspected) {
      std::string Why = Which + ": the SASS could not be inspected (no "
                                "working cuobjdump), so the patterns were "
                                "not matched";
      if (Options.OnDevice)
        reject(Record, Status::Rejected, "filecheck", Why);
      else
        Record["messages"].push_back("warning: " + Why);
      continue;
    }
    if (Check.Over == spec::FileCheckSpec::Input::Ptx) {
      if (!Ptx)
        Ptx = compilePtx(P, Source, Work, Stem, O);
      if (!Ptx->Ok) {
        reject(Record, Status::CompileError, "",
               Which + ": nvcc -ptx failed:\n" + tail(Ptx->Log, 2000));
        continue;
      }
    }
    const std::string &Text =
        Check.Over == spec::FileCheckSpec::Input::Sass  ? R.Sass
        : Check.Over == spec::FileCheckSpec::Input::Ptx ? Ptx->Text
                                                        : R.Log;
    if (auto Failure = runFileCheck(
            FileCheckTool, P, Check, Text,
            Work / (Stem + ".filecheck-" + std::to_string(I) + "." + Over)))
      reject(Record, Status::Rejected, "filecheck",
             Which + " does not match:\n" + tail(*Failure, 2000));
  }
}

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

EvaluationOutcome Evaluator::run() {
  Compile.Nvcc = findNvcc();
  if (Compile.Nvcc.empty()) {
    Outcome.ProblemErrors.push_back(
        "nvcc not found (set KOPT_NVCC or CUDA_PATH, or put it on PATH)");
    return Outcome;
  }
  Compile.Cuobjdump = findCuobjdump(Compile.Nvcc);
  Compile.Objdump = findOnPath("objdump");
  NvccVersion = nvccVersion(Compile.Nvcc);
  if (Options.CompileCache) {
    Cache.emplace(cacheDir(), CompileCache::defaultMaxBytes());
    Compile.Toolchain = toolchainIdentity(NvccVersion);
  }
  if (!P.FileChecks.empty()) {
    FileCheckTool = findFileCheck();
    if (FileCheckTool.empty()) {
      Outcome.ProblemErrors.push_back(
          "problem.json has filecheck patterns, but neither kopt-filecheck "
          "nor LLVM's FileCheck was found (build kopt-filecheck, put it "
          "beside kopt-bench or on PATH, or set KOPT_FILECHECK)");
      return Outcome;
    }
  }
  if (!prepareWorkDir())
    return Outcome;

  auto ReferenceText = spec::readTextFile(P.referencePath());
  std::string Error;
  auto Sig = ReferenceText
                 ? spec::findEntrySignature(
                       spec::tokenizeSource(*ReferenceText), P.Entry, Error)
                 : std::nullopt;
  if (!Sig) {
    Outcome.ProblemErrors.push_back("reference: cannot find the entry '" +
                                    P.Entry + "' in " +
                                    P.referencePath().string());
    return Outcome;
  }
  ReferenceSignature = *Sig;

  if (Options.Contain && Options.OnDevice && !P.hasStreamArg()) {
    Outcome.ProblemErrors.push_back(
        "--contain replays the work the entry puts on the stream it is "
        "given, so the entry must take a cudaStream_t; '" +
        P.Entry + "' runs on the legacy default stream");
    return Outcome;
  }
  // Not dumpable: a process of the same user (a capture child) cannot
  // ptrace this one or write its memory through /proc/PID/mem.
  if (Options.Contain && Options.OnDevice)
    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);

  if (Options.Contain && Options.OnDevice && !becomeChildSubreaper()) {
    Outcome.ProblemErrors.push_back(
        "--contain: cannot become the subreaper of the capture processes "
        "(prctl PR_SET_CHILD_SUBREAPER)");
    return Outcome;
  }

  std::vector<std::string> Archs;
  if (Options.OnDevice) {
    if (!probeDevices())
      return Outcome;
    for (const DeviceInfo &D : Devices) {
      std::string Arch = archForComputeCapability(D.Major, D.Minor);
      if (std::find(Archs.begin(), Archs.end(), Arch) == Archs.end())
        Archs.push_back(Arch);
    }
  } else {
    Archs.push_back(Options.Arch.empty() ? "sm_90a" : Options.Arch);
  }
  Compile.Arch = Archs.front();
  if (!compileReference(Archs))
    return Outcome;
  if (Options.Seed) {
    SeedBase = *Options.Seed;
  } else {
    std::random_device Random;
    SeedBase = (static_cast<std::uint64_t>(Random()) << 20) ^ Random();
  }

  std::vector<std::string> Paths = Options.Candidates;
  if (Paths.empty())
    Paths.push_back(P.sourcePath().string());
  std::vector<CompiledCandidate> Compiled(Paths.size());
  std::mutex ProgressMutex;
  std::size_t Done = 0;
  auto Report = [&](const char *Stage, std::size_t Total,
                    const CompiledCandidate &C) {
    if (!Options.OnProgress)
      return;
    std::lock_guard<std::mutex> Lock(ProgressMutex);
    Options.OnProgress(Stage, ++Done, Total,
                       C.Record.value("candidate", std::string()),
                       C.Record.value("status", std::string()));
  };
  {
    // nvcc is single-threaded: compile candidates side by side.
    std::atomic<std::size_t> Next{0};
    unsigned Workers =
        std::max(1u, std::min<unsigned>(std::thread::hardware_concurrency(),
                                        static_cast<unsigned>(Paths.size())));
    std::vector<std::thread> Pool;
    for (unsigned W = 0; W < Workers; ++W)
      Pool.emplace_back([&] {
        for (std::size_t I; (I = Next++) < Paths.size();) {
          Compiled[I] = compileCandidate(I, Paths[I], Archs);
          Report("compiled", Paths.size(), Compiled[I]);
        }
      });
    for (std::thread &T : Pool)
      T.join();
  }

  // The reference child only pays off when some candidate will run.
  bool AnyToRun = std::any_of(
      Compiled.begin(), Compiled.end(),
      [](const CompiledCandidate &C) { return C.Record["status"] == "ok"; });
  if (Options.OnDevice && AnyToRun && !prepareReferenceCache()) {
    // A problem error (exit 2): no candidate is run against a failing
    // reference.
    if (!Options.KeepWorkDir && Options.WorkDir.empty()) {
      std::error_code EC;
      fs::remove_all(Work, EC);
    }
    return Outcome;
  }
  if (Options.OnDevice) {
    // One worker thread per device; each evaluation is its own process.
    std::size_t ToRun = std::count_if(
        Compiled.begin(), Compiled.end(),
        [](const CompiledCandidate &C) { return C.Record["status"] == "ok"; });
    Done = 0;
    std::atomic<std::size_t> Next{0};
    std::vector<std::thread> Pool;
    for (const DeviceInfo &D : Devices)
      Pool.emplace_back([&, D] {
        for (std::size_t I; (I = Next++) < Compiled.size();)
          if (Compiled[I].Record["status"] == "ok") {
            runWorker(Compiled[I], D, I);
            Report("evaluated", ToRun, Compiled[I]);
          }
      });
    for (std::thread &T : Pool)
      T.join();
  }
  if (Options.OnDevice && referenceCachePolicy() != "off")
    pruneKeyedFiles(fs::path(cacheDir()) / "reference",
                    referenceCacheMaxBytes());
  for (CompiledCandidate &C : Compiled) {
    if (!ReferenceCacheNote.empty())
      C.Record["messages"].push_back(ReferenceCacheNote);
    if (C.Record.contains("correctness") && referenceCachePolicy() != "off")
      C.Record["reference_cache"] = {
          {"policy", referenceCachePolicy()},
          {"outputs_read",
           C.Record["correctness"].value("reference_outputs_read", 0)},
          {"reference_child_seconds", ReferenceChildSeconds}};
    if (C.Record.value("reference_failed", false))
      Outcome.ProblemErrors.push_back("the reference failed while evaluating " +
                                      C.Record["candidate"].get<std::string>());
    Outcome.Records.push_back(std::move(C.Record));
  }
  if (!Options.KeepWorkDir && Options.WorkDir.empty()) {
    std::error_code EC;
    fs::remove_all(Work, EC);
  }
  return Outcome;
}

} // namespace

Status recordStatus(const json &Record) {
  return parseStatus(Record.value("status", "runtime-error"))
      .value_or(Status::RuntimeError);
}

EvaluationOutcome evaluateCandidates(const spec::Problem &P,
                                     const EvaluatorOptions &Options) {
  return Evaluator(P, Options).run();
}

} // namespace kopt::eval
