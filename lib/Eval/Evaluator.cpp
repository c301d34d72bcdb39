//===- Evaluator.cpp - The parent side of check and run -------------------===//
#include "kopt/Eval/Evaluator.h"
#include "EvaluatorImpl.h"
#include "kopt/Eval/NcuProfile.h"

#include "kopt/Eval/CompileCache.h"
#include "kopt/Eval/Compiler.h"
#include "kopt/Eval/Containment.h"
#include "kopt/Eval/DeviceProbe.h"
#include "kopt/Eval/FileCheckRule.h"
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

namespace kopt::eval {

namespace fs = std::filesystem;
using nlohmann::json;

namespace detail {

std::string tail(const std::string &Text, std::size_t Max) {
  return Text.size() <= Max ? Text : "..." + Text.substr(Text.size() - Max);
}

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

std::vector<RuleViolation>
Evaluator::sourceViolations(const std::string &Source,
                            const PreprocessResult (&Pre)[2],
                            const std::string &Path) const {
  std::vector<RuleViolation> Violations =
      checkEntrySignatureRule(Source, ReferenceSignature, P);
  for (RuleViolation &V : checkSourceRules(Source, P))
    Violations.push_back(V);
  // The same rules over the preprocessed source, device and host passes:
  // macros, token pasting, line splices and local headers are resolved.
  std::vector<std::string> SystemDirs = toolkitDirectories(Compile.Nvcc);
  std::error_code EC;
  fs::path Canonical = fs::weakly_canonical(fs::absolute(Path), EC);
  for (const PreprocessResult &Pass : Pre)
    for (RuleViolation &V : checkPreprocessedRules(Pass.Text, P, SystemDirs)) {
      std::error_code FileEC;
      if (!V.File.empty() &&
          fs::weakly_canonical(V.File, FileEC) == Canonical && !FileEC)
        V.File.clear();
      Violations.push_back(V);
    }
  return Violations;
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

  // A rule the source breaks rejects the candidate whatever its compiled
  // code holds: nvcc does not run for it (a vendor library's headers alone
  // can take it ten seconds).
  std::vector<RuleViolation> Violations;
  if (Pre[0].Ok && Pre[1].Ok) {
    Violations = sourceViolations(*Source, Pre, Path);
    ObjectInspection Clean;
    Clean.Inspected = true; // the most an inspection could clear
    SettledRules Certain = settleRules(Violations, Clean, P);
    if (!Certain.Rejections.empty()) {
      for (const RuleViolation &V : Certain.Rejections)
        reject(Record, Status::Rejected, V.Rule, describeViolation(V, Path));
      for (const RuleViolation &N : Certain.Notes)
        Record["messages"].push_back("note: " + describeViolation(N, Path));
      Record["messages"].push_back(
          "note: not compiled: the source breaks a rule whatever the compiled "
          "code holds, so the rules over the compiled code (SASS, host "
          "object) did not run");
      return C;
    }
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
  for (bool HostPass : {false, true})
    if (!Pre[HostPass].Ok) {
      reject(Record, Status::CompileError, "",
             std::string("nvcc -E (the ") + (HostPass ? "host" : "device") +
                 " pass, for the static rules) failed:\n" +
                 tail(Pre[HostPass].Log, 2000));
      return C;
    }
  // What the host code calls, from the compiled library's imports and
  // instructions; the source's mentions of those names are second opinions.
  ObjectInspection Object =
      inspectHostObject(C.LibraryByArch.at(Archs.front()), Compile.Objdump, P);
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

} // namespace detail

Status recordStatus(const json &Record) {
  return parseStatus(Record.value("status", "runtime-error"))
      .value_or(Status::RuntimeError);
}

EvaluationOutcome evaluateCandidates(const spec::Problem &P,
                                     const EvaluatorOptions &Options) {
  return detail::Evaluator(P, Options).run();
}

} // namespace kopt::eval
