//===- EvaluatorImpl.h - The evaluator's parent side (private) -*- C++ -*-===//
//
// The Evaluator of Evaluator.h's evaluateCandidates, shared by the files
// that define its steps: Evaluator.cpp (work directory, devices, compiles,
// static rules, the run) and EvaluatorDevice.cpp (the worker processes on
// the devices, the reference cache, profiles, derived timing).
//
//===----------------------------------------------------------------------===//
#ifndef KOPT_EVAL_EVALUATORIMPL_H
#define KOPT_EVAL_EVALUATORIMPL_H

#include "kopt/Eval/CompileCache.h"
#include "kopt/Eval/Compiler.h"
#include "kopt/Eval/DeviceProbe.h"
#include "kopt/Eval/Evaluator.h"
#include "kopt/Eval/Process.h"
#include "kopt/Eval/StaticChecks.h"
#include "kopt/Eval/Status.h"
#include "kopt/Eval/WorkerJob.h"
#include "kopt/Spec/EntrySignature.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kopt::eval::detail {

namespace fs = std::filesystem;
using nlohmann::json;

/// The last \p Max characters of \p Text, "..." before them if cut.
std::string tail(const std::string &Text, std::size_t Max);
/// CUDA_VISIBLE_DEVICES for the child that should see the user's device
/// \p Index, honouring a selection the parent itself runs under.
std::string visibleDeviceFor(int Index);
/// Marks \p Record with status \p S and \p Rule (the first failure wins)
/// and adds \p Message.
void reject(json &Record, Status S, const std::string &Rule,
            const std::string &Message);

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
  /// The rules read off a candidate before it is compiled: the entry's
  /// signature, the source text, and \p Pre's texts (device and host
  /// passes, both preprocessed).
  std::vector<RuleViolation> sourceViolations(const std::string &Source,
                                              const PreprocessResult (&Pre)[2],
                                              const std::string &Path) const;
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

} // namespace kopt::eval::detail

#endif // KOPT_EVAL_EVALUATORIMPL_H
