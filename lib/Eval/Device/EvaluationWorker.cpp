//===- EvaluationWorker.cpp - The child process of one evaluation ---------===//
//
// Loads the reference and the candidate, checks correctness, times both,
// and writes the verdict as JSON. It ends with _exit: after a sticky CUDA
// error the runtime's own teardown may hang, and the parent must get the
// verdict, not a timeout.
//
//===----------------------------------------------------------------------===//
#include "DeviceData.h"
#include "ReferenceRuns.h"
#include "ReplayedEntry.h"

#include "kopt/Eval/DeviceProbe.h"
#include "kopt/Eval/WorkerJob.h"
#include "kopt/Spec/ProblemParser.h"

#include <cuda_profiler_api.h>

#include <cstdio>
#include <fstream>
#include <unistd.h>

namespace kopt::eval {

using namespace device;

namespace {
[[noreturn]] void finish(const std::string &ResultPath, nlohmann::json Out,
                         int Code) {
  Out["stage"] = currentStage();
  Out["stage_seconds"] = stageSeconds();
  {
    std::ofstream Result(ResultPath);
    Result << Out.dump(2) << "\n";
  }
  std::fflush(stdout);
  std::fflush(stderr);
  _exit(Code);
}
/// The candidate's entry on the benchmark shape: a warm-up call (module
/// loading, first touches), then the one ncu profiles.
void profileEntry(const spec::Problem &P, const WorkerJob &Job,
                  const Entry &Candidate, cudaStream_t Stream) {
  setStage("profiling the candidate on the benchmark shape");
  const spec::Shape &S = P.Shapes.at(P.BenchmarkShape);
  auto Args = allocateArguments(P, S, "the benchmark shape");
  InputSet Inputs(*Args);
  Inputs.generate(Job.SeedBase, Stream);
  prepareArguments(*Args, Inputs, 0, Stream);
  Candidate.call(Args->argv(), Stream);
  KOPT_CUDA(cudaStreamSynchronize(Stream));
  KOPT_CUDA(cudaProfilerStart());
  Candidate.call(Args->argv(), Stream);
  KOPT_CUDA(cudaStreamSynchronize(Stream));
  KOPT_CUDA(cudaProfilerStop());
  setStage("done");
}

} // namespace

int runEvaluationWorker(const std::string &JobPath) {
  std::optional<WorkerJob> Read = readWorkerJob(JobPath, "worker");
  if (!Read)
    return 2;
  const WorkerJob &Job = *Read;
  // The parent trusts only a result that echoes its job's nonce.
  nlohmann::json Out = {{"status", "ok"},
                        {"nonce", Job.Nonce},
                        {"messages", nlohmann::json::array()},
                        {"reference_failed", false}};
  try {
    if (Job.Contained) {
      // A candidate's host code ran (in the capture child) since the
      // parent hashed these: each must be as it was.
      readUnchanged(Job.ProblemPath, Job.ProblemSha256, "the problem");
      readUnchanged(Job.ReferenceLibrary, Job.ReferenceSha256,
                    "the reference's library");
    }
    auto Loaded = spec::loadProblemFile(Job.ProblemPath);
    if (!Loaded.ok())
      throw std::runtime_error("cannot load the problem: " +
                               Loaded.Errors.front());
    const spec::Problem &P = *Loaded.Value;

    setStage("creating the CUDA context");
    cudaStream_t Stream = nullptr;
    std::unique_ptr<Entry> Reference, Candidate;
    {
      StageTimer Timer("setup");
      KOPT_CUDA(cudaSetDevice(0));
      KOPT_CUDA(cudaFree(nullptr));
      // Non-blocking: it does not wait for the legacy default stream, which
      // the correctness check holds to catch default-stream launches.
      KOPT_CUDA(cudaStreamCreateWithFlags(&Stream, cudaStreamNonBlocking));
      initDeviceData();
      setStage("loading the compiled libraries");
      Reference = std::make_unique<EntryLibrary>(Job.ReferenceLibrary);
      // Launched like the replayed candidate: one graph per call.
      if (Job.Contained)
        Reference = std::make_unique<GraphedEntry>(P, std::move(Reference));
      if (Job.Contained)
        Candidate = loadReplayedCandidate(P, Job);
      else if (!Job.ReferenceOnly)
        Candidate = std::make_unique<EntryLibrary>(Job.CandidateLibrary);
    }
    std::string StoreNote;
    ReferenceStore Store =
        Job.ReferenceManifest.empty() || Job.ReferenceOnly
            ? ReferenceStore()
            : ReferenceStore(Job.ReferenceManifest, StoreNote);
    if (!StoreNote.empty())
      Out["messages"].push_back("note: " + StoreNote);
    if (Job.ReferenceOnly) {
      // A fresh manifest: whatever was there is replaced.
      ReferenceStore Fresh = ReferenceStore::create(Job.ReferenceManifest);
      nlohmann::json Report = nlohmann::json::object();
      recordReferences(P, Job, *Reference, Fresh, Stream, Report);
      Out["reference_cache"] = Report;
      finish(Job.ResultPath, Out, 0);
    }
    if (Job.ProfileOnly) {
      profileEntry(P, Job, *Candidate, Stream);
      finish(Job.ResultPath, Out, 0);
    }

    nlohmann::json Correctness = nlohmann::json::object();
    try {
      checkCorrectness(P, Job, *Reference, *Candidate, Store, Stream,
                       Correctness);
    } catch (...) {
      Out["correctness"] = Correctness;
      throw;
    }
    Out["correctness"] = Correctness;

    if (!Job.Timing.Skip) {
      nlohmann::json Timing = nlohmann::json::object();
      try {
        StageTimer Timer("timing");
        timeAgainstBaseline(P, Job, *Reference, *Candidate, Stream, Timing);
      } catch (...) {
        // What the failed timing found (first_mismatch), not a timing.
        Out["timing_check"] = Timing;
        throw;
      }
      // Clocks that moved or throttling: said in the messages and flags.
      for (const auto &W : Timing["clock_warnings"])
        Out["messages"].push_back(W);
      Out["flags"] = Timing["clock_flags"];
      Timing.erase("clock_warnings");
      Timing.erase("clock_flags");
      Out["timing"] = Timing;
      char Bus[64] = {0};
      if (cudaDeviceGetPCIBusId(Bus, sizeof(Bus), 0) == cudaSuccess)
        Out["clocks_after_timing"] = readClocks(Bus);
    }
    if (auto *G = dynamic_cast<const GraphedEntry *>(Reference.get());
        G && !G->graphFallback().empty())
      Out["messages"].push_back("note: " + G->graphFallback());
    setStage("done");
    finish(Job.ResultPath, Out, 0);
  } catch (const Verdict &V) {
    Out["status"] = std::string(statusName(V.VerdictStatus));
    if (!V.Rule.empty())
      Out["rule"] = V.Rule;
    Out["messages"].push_back(V.what());
  } catch (const ReferenceFailure &E) {
    Out["status"] = "runtime-error";
    Out["reference_failed"] = true;
    Out["messages"].push_back(E.what());
  } catch (const std::exception &E) {
    Out["status"] = "runtime-error";
    Out["messages"].push_back(E.what());
  }
  finish(Job.ResultPath, Out, 0);
}

} // namespace kopt::eval
