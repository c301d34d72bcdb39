//===- TimingRun.cpp - Interleaved A/B timing on the benchmark shape ------===//
//
// Baseline (the reference) and candidate alternate ABBA... in one process on
// one stream, each run bracketed by its own pair of events, with the L2
// flushed (a memset of twice the L2 size) before every run. Pairs share
// drift (clocks, temperature), which the paired bootstrap then cancels.
//
//===----------------------------------------------------------------------===//
#include "Evaluation.h"

#include "kopt/Eval/HostData.h"
#include "kopt/Eval/Statistics.h"

#include <chrono>

namespace kopt::eval::device {

namespace {

class Timer {
public:
  Timer(const spec::Problem &P, const WorkerJob &Job, cudaStream_t Stream,
        ProblemArguments &Args,
        const std::vector<std::vector<unsigned char>> &Inputs)
      : P(P), Job(Job), Stream(P.hasStreamArg() ? Stream : nullptr),
        Args(Args) {
    FlushBytes = std::max<std::size_t>(2 * Job.L2Bytes, 64ull << 20);
    KOPT_CUDA(cudaMalloc(&Flush, FlushBytes));
    // In-place problems start every run from the same state: keep a device
    // copy of the initial values and restore it (outside the timed span).
    for (std::size_t I = 0; I < P.Args.size(); ++I)
      if (P.Args[I].BufferIntent == spec::Intent::InOut &&
          P.Args[I].isBuffer()) {
        void *Copy = nullptr;
        KOPT_CUDA(cudaMalloc(&Copy, Args.bytes(I)));
        KOPT_CUDA(cudaMemcpy(Copy, Inputs[I].data(), Args.bytes(I),
                             cudaMemcpyHostToDevice));
        Pristine.emplace_back(I, Copy);
      }
  }
  ~Timer() {
    cudaFree(Flush);
    for (auto &[Index, Copy] : Pristine)
      cudaFree(Copy);
    for (cudaGraphExec_t G : Graphs)
      if (G)
        cudaGraphExecDestroy(G);
  }

  /// Captures each library's call into a graph; false if capture fails.
  bool captureGraphs(const EntryLibrary &A, const EntryLibrary &B,
                     std::string &Why);

  /// Enqueues one timed run of library \p Which between \p Start, \p Stop.
  void enqueue(int Which, const EntryLibrary &Lib, cudaEvent_t Start,
               cudaEvent_t Stop) {
    KOPT_CUDA(cudaMemsetAsync(Flush, ++FlushValue & 0xFF, FlushBytes, Stream));
    for (auto &[Index, Copy] : Pristine)
      KOPT_CUDA(cudaMemcpyAsync(Args.buffer(Index).data(), Copy,
                                Args.bytes(Index), cudaMemcpyDeviceToDevice,
                                Stream));
    KOPT_CUDA(cudaEventRecord(Start, Stream));
    if (!Graphs.empty())
      KOPT_CUDA(cudaGraphLaunch(Graphs[Which], Stream));
    else
      Lib.call(Args.argv(), Stream);
    KOPT_CUDA(cudaEventRecord(Stop, Stream));
  }

  std::size_t flushBytes() const { return FlushBytes; }

private:
  const spec::Problem &P;
  const WorkerJob &Job;
  cudaStream_t Stream;
  ProblemArguments &Args;
  void *Flush = nullptr;
  std::size_t FlushBytes = 0;
  int FlushValue = 0;
  std::vector<std::pair<std::size_t, void *>> Pristine;
  std::vector<cudaGraphExec_t> Graphs;
};

bool Timer::captureGraphs(const EntryLibrary &A, const EntryLibrary &B,
                          std::string &Why) {
  if (!P.hasStreamArg()) {
    Why = "the entry takes no stream, so it cannot be captured";
    return false;
  }
  std::vector<cudaGraphExec_t> Made;
  for (const EntryLibrary *Lib : {&A, &B}) {
    cudaGraph_t Graph = nullptr;
    KOPT_CUDA(cudaStreamBeginCapture(Stream, cudaStreamCaptureModeGlobal));
    Lib->call(Args.argv(), Stream);
    cudaError_t End = cudaStreamEndCapture(Stream, &Graph);
    cudaGetLastError(); // a failed capture leaves an error behind
    cudaGraphExec_t Exec = nullptr;
    if (End != cudaSuccess ||
        cudaGraphInstantiate(&Exec, Graph, 0) != cudaSuccess) {
      Why = std::string("capture failed: ") + cudaGetErrorString(End);
      if (Graph)
        cudaGraphDestroy(Graph);
      for (cudaGraphExec_t G : Made)
        cudaGraphExecDestroy(G);
      cudaGetLastError();
      return false;
    }
    cudaGraphDestroy(Graph);
    Made.push_back(Exec);
  }
  Graphs = Made;
  return true;
}

double elapsedMs(cudaEvent_t Start, cudaEvent_t Stop) {
  float Ms = 0;
  KOPT_CUDA(cudaEventElapsedTime(&Ms, Start, Stop));
  return Ms;
}

nlohmann::json summaryJson(const SampleSummary &S) {
  return {{"runs", S.Count},  {"median_ms", S.Median}, {"p20_ms", S.P20},
          {"p80_ms", S.P80},  {"min_ms", S.Min},       {"max_ms", S.Max},
          {"mean_ms", S.Mean}};
}

} // namespace

void timeAgainstBaseline(const spec::Problem &P, const WorkerJob &Job,
                         const EntryLibrary &Reference,
                         const EntryLibrary &Candidate, cudaStream_t Stream,
                         nlohmann::json &Report) {
  const spec::Shape &S = P.Shapes[P.BenchmarkShape];
  setStage("timing: preparing shape #" + std::to_string(P.BenchmarkShape) +
           " {" + S.describe() + "}");
  ProblemArguments Args(P, S);
  auto Inputs = generateInputs(P, S, Job.SeedBase + 999);
  prepareArguments(Args, Inputs, FirstPoisonByte, Stream);
  Timer T(P, Job, Stream, Args, Inputs);
  const EntryLibrary *Libs[2] = {&Reference, &Candidate};

  bool Graph = false;
  if (Job.Timing.Graph) {
    std::string Why;
    Graph = T.captureGraphs(Reference, Candidate, Why);
    if (!Graph)
      Report["graph_fallback"] = Why;
  }

  cudaStream_t Sync = P.hasStreamArg() ? Stream : nullptr;
  std::vector<cudaEvent_t> Events;
  auto event = [&](std::size_t I) {
    while (Events.size() <= I) {
      cudaEvent_t E;
      KOPT_CUDA(cudaEventCreate(&E));
      Events.push_back(E);
    }
    return Events[I];
  };

  // Warm-up: module load, first-touch, clocks ramping; also estimates how
  // long one run takes.
  setStage("timing: warm-up");
  auto WarmStart = std::chrono::steady_clock::now();
  std::vector<double> WarmTimes;
  for (int Round = 0;; ++Round) {
    for (int Which = 0; Which < 2; ++Which)
      T.enqueue(Which, *Libs[Which], event(2 * Which), event(2 * Which + 1));
    KOPT_CUDA(cudaStreamSynchronize(Sync));
    WarmTimes.push_back(
        std::max(elapsedMs(event(0), event(1)), elapsedMs(event(2), event(3))));
    double Spent = std::chrono::duration<double, std::milli>(
                       std::chrono::steady_clock::now() - WarmStart)
                       .count();
    if (Round >= 2 && Spent >= Job.Timing.WarmupMs)
      break;
  }
  double PerRun = std::max(median(WarmTimes), 1e-4);
  int Runs = static_cast<int>(Job.Timing.RepeatMs / PerRun);
  Runs = std::max(Job.Timing.MinRuns, std::min(Job.Timing.MaxRuns, Runs));

  setStage("timing: " + std::to_string(Runs) + " interleaved runs each");
  std::vector<double> Times[2];
  const int Batch = 64; // pairs in flight before reading their events
  for (int Done = 0; Done < Runs;) {
    int Now = std::min(Batch, Runs - Done);
    for (int I = 0; I < Now; ++I) {
      // ABBA order: neither kernel always runs first after a flush.
      int First = (Done + I) % 2;
      for (int K = 0; K < 2; ++K) {
        int Which = K == 0 ? First : 1 - First;
        std::size_t Slot = 4 * I + 2 * Which;
        T.enqueue(Which, *Libs[Which], event(Slot), event(Slot + 1));
      }
    }
    KOPT_CUDA(cudaStreamSynchronize(Sync));
    for (int I = 0; I < Now; ++I)
      for (int Which = 0; Which < 2; ++Which)
        Times[Which].push_back(
            elapsedMs(event(4 * I + 2 * Which), event(4 * I + 2 * Which + 1)));
    Done += Now;
  }
  for (cudaEvent_t E : Events)
    cudaEventDestroy(E);

  SpeedupEstimate Speedup = estimateSpeedup(Times[0], Times[1]);
  Report["shape"] = P.BenchmarkShape;
  Report["sizes"] = S.describe();
  Report["graph"] = Graph;
  Report["flush_bytes"] = T.flushBytes();
  Report["baseline"] = summaryJson(summarize(Times[0]));
  Report["candidate"] = summaryJson(summarize(Times[1]));
  Report["speedup"] = Speedup.Speedup;
  Report["speedup_ci95"] = {Speedup.Low, Speedup.High};
  Report["baseline_samples_ms"] = Times[0];
  Report["candidate_samples_ms"] = Times[1];
}

} // namespace kopt::eval::device
