//===- TimingRun.cpp - Interleaved A/B timing on the benchmark shape ------===//
//
// Baseline (the reference) and candidate alternate ABBA... in one process on
// one stream, each run bracketed by its own pair of events. Before every run,
// outside the events and in this order: the inputs are rewritten (the pair's
// own inputs: one of a few input sets generated up front, each buffer rotated
// by a random number of elements, so no two pairs see the same inputs and a
// cache keyed by input content cannot serve a timed run), the outputs are
// poisoned as in the checked runs, and the L2 is flushed last (a memset of
// max(2 x L2, 64 MiB)), so nothing the preparation touched is warm. Pairs
// share drift (clocks, temperature), which the paired bootstrap then cancels.
//
// Timed runs are checked too: after the Stop event of the candidate's run in
// a random subset of pairs (drawn after the candidate's call returned, at
// least three pairs and always the last one) its outputs are copied aside,
// outside the events; after each batch the reference is run (untimed) on the
// same pair's inputs and the copies must match it with the problem's
// tolerance and be fully written. So a candidate that behaves only when it
// is checked, or whose captured graph does nothing, is wrong-result. The
// input sets are generated on the GPU and the checks compare there.
//
// Pairs run in batches; after a batch, once the 95% interval of the speedup
// lies within the job's target (1% by default) of the estimate, timing
// stops: a steady pair needs few runs, a noisy one runs up to the budget
// (--repeat-ms of measured time per kernel, at most --max-runs pairs).
// NVML's clocks, temperature and throttling are read after every batch.
//
//===----------------------------------------------------------------------===//
#include "ClockMonitor.h"
#include "DeviceData.h"
#include "ReferenceStore.h"

#include "kopt/Eval/HostData.h"
#include "kopt/Eval/Statistics.h"

#include <algorithm>
#include <chrono>
#include <random>
#include <sstream>

namespace kopt::eval::device {

namespace {

/// Events created on demand and destroyed on every path.
class EventPool {
public:
  EventPool() = default;
  EventPool(const EventPool &) = delete;
  EventPool &operator=(const EventPool &) = delete;
  ~EventPool() {
    for (cudaEvent_t E : Events)
      cudaEventDestroy(E);
  }
  cudaEvent_t operator[](std::size_t I) {
    while (Events.size() <= I) {
      cudaEvent_t E = nullptr;
      KOPT_CUDA(cudaEventCreate(&E));
      Events.push_back(E);
    }
    return Events[I];
  }

private:
  std::vector<cudaEvent_t> Events;
};

/// Which inputs one pair runs on: per input argument, an input set and a
/// rotation in elements.
struct PairInputs {
  std::vector<std::size_t> Set;
  std::vector<std::int64_t> Offset;
};

/// The candidate's outputs of one checked pair, kept on the device until
/// the batch ends.
struct CheckSlot {
  bool Used = false;
  std::size_t Pair = 0;
  PairInputs Inputs;
  std::vector<DeviceMemory> Outputs; // indexed like Timer::OutputArgs
};

/// Input sets generated up front; a pair picks one per buffer.
constexpr std::size_t InputSets = 2;
/// Most checked pairs kept at once (device memory: one output set each).
constexpr std::size_t MaxSlots = 6;
/// The first batch's last pairs are checked, so at least this many are.
constexpr int MinCheckedPairs = 3;
/// Each other pair is checked with this probability (and the last pair of
/// every batch always, so the final pair is checked wherever timing stops).
constexpr double CheckChance = 1.0 / 16;
/// Pairs in flight before their events are read.
constexpr int Batch = 32;

class Timer {
public:
  Timer(const spec::Problem &P, const WorkerJob &Job, cudaStream_t Stream,
        ProblemArguments &Args)
      : P(P), Job(Job), Stream(P.hasStreamArg() ? Stream : nullptr), Args(Args),
        InputRandom(Job.SeedBase ^ 0x7A11BEEFCAFEull),
        CheckRandom(std::random_device{}()) {
    FlushBytes = std::max<std::size_t>(2 * Job.L2Bytes, 64ull << 20);
    Flush = DeviceMemory(FlushBytes);
    for (std::size_t I = 0; I < P.Args.size(); ++I) {
      if (P.Args[I].isInput())
        InputArgs.push_back(I);
      if (P.Args[I].isOutput())
        OutputArgs.push_back(I);
    }
    for (std::size_t Set = 0; Set < InputSets; ++Set) {
      // Seeds the correctness check never uses (it takes +0..+99 and
      // +500..+599 of each shape's thousand).
      Sets.push_back(std::make_unique<InputSet>(Args));
      Sets.back()->generate(Job.SeedBase + 999 - Set, this->Stream);
    }
    Expected = allocateOutputs(Args);
  }
  ~Timer() {
    for (cudaGraphExec_t G : Graphs)
      if (G)
        cudaGraphExecDestroy(G);
  }

  /// Captures each library's call into a graph; false if capture fails.
  bool captureGraphs(const Entry &A, const Entry &B, std::string &Why);

  /// The inputs of the next pair, drawn from the evaluation's seed.
  PairInputs drawInputs() {
    PairInputs In;
    for (std::size_t I : InputArgs) {
      In.Set.push_back(std::uniform_int_distribution<std::size_t>(
          0, InputSets - 1)(InputRandom));
      In.Offset.push_back(std::uniform_int_distribution<std::int64_t>(
          0, Args.count(I) - 1)(InputRandom));
    }
    return In;
  }

  /// Everything that precedes a run, outside its events: the pair's
  /// inputs, poisoned outputs, then the L2 flush last.
  void prepareRun(const PairInputs &In) {
    writeInputs(In);
    poisonOutputs();
    KOPT_CUDA(
        cudaMemsetAsync(Flush.data(), ++FlushValue & 0xFF, FlushBytes, Stream));
    // KernelBench-style entries synchronize the device themselves; waiting
    // here too keeps work on a private stream from overlapping the flush.
    if (!P.hasStreamArg())
      KOPT_CUDA(cudaDeviceSynchronize());
  }

  /// Enqueues one timed run of library \p Which between \p Start, \p Stop.
  void enqueue(int Which, const Entry &Lib, cudaEvent_t Start,
               cudaEvent_t Stop) {
    KOPT_CUDA(cudaEventRecord(Start, Stream));
    if (!Graphs.empty())
      KOPT_CUDA(cudaGraphLaunch(Graphs[Which], Stream));
    else
      Lib.call(Args.argv(), Stream);
    KOPT_CUDA(cudaEventRecord(Stop, Stream));
  }

  /// Called right after the candidate's run of pair \p Pair was enqueued
  /// (its call has returned, so nothing it saw depended on this choice):
  /// decides whether the pair is checked and, if so, copies its outputs
  /// aside, outside the events. A \p Forced pair is always checked.
  void maybeKeep(std::size_t Pair, const PairInputs &In, bool Forced) {
    bool Random =
        std::uniform_real_distribution<double>(0, 1)(CheckRandom) < CheckChance;
    if (!Forced && !Random)
      return;
    CheckSlot *Slot = nullptr;
    for (CheckSlot &S : Slots)
      if (!S.Used) {
        Slot = &S;
        break;
      }
    if (!Slot) {
      // A random check waits for a free slot; a forced one grows the pool.
      if (!Forced && Slots.size() >= MaxSlots)
        return;
      Slots.emplace_back();
      Slot = &Slots.back();
      for (std::size_t I : OutputArgs)
        Slot->Outputs.emplace_back(Args.bytes(I));
    }
    Slot->Used = true;
    Slot->Pair = Pair;
    Slot->Inputs = In;
    for (std::size_t K = 0; K < OutputArgs.size(); ++K)
      KOPT_CUDA(cudaMemcpyAsync(
          Slot->Outputs[K].data(), Args.buffer(OutputArgs[K]).data(),
          Args.bytes(OutputArgs[K]), cudaMemcpyDeviceToDevice, Stream));
    ++Checked;
  }

  /// After a batch has finished: runs the reference on each kept pair's
  /// inputs and compares; throws Verdict on a mismatch.
  void verifyKept(const Entry &Reference, int PairsSoFar, bool GraphReplays,
                  nlohmann::json &Report);

  std::size_t flushBytes() const { return FlushBytes; }
  int checkedPairs() const { return Checked; }
  const std::vector<std::size_t> &checkedPairList() const { return Verified; }

  /// Out-of-bounds writes during timing: the guards must be intact.
  void checkGuards() {
    for (std::size_t I = 0; I < P.Args.size(); ++I) {
      if (!P.Args[I].isBuffer())
        continue;
      std::string Where = Args.buffer(I).checkGuards(Stream);
      if (!Where.empty())
        throw Verdict(Status::RuntimeError,
                      "during timing: out-of-bounds write: the guard zone of "
                      "'" +
                          P.Args[I].Name + "' changed at " + Where);
    }
  }

private:
  const spec::Problem &P;
  const WorkerJob &Job;
  cudaStream_t Stream;
  ProblemArguments &Args;
  DeviceMemory Flush;
  std::size_t FlushBytes = 0;
  int FlushValue = 0;
  std::vector<std::size_t> InputArgs, OutputArgs;
  std::vector<std::unique_ptr<InputSet>> Sets;
  DeviceOutputs Expected; // the reference's outputs of a checked pair
  std::vector<cudaGraphExec_t> Graphs;
  std::mt19937_64 InputRandom;
  std::mt19937_64 CheckRandom;
  std::vector<CheckSlot> Slots;
  int Checked = 0;
  std::vector<std::size_t> Verified;

  /// Rotates each input set into its argument buffer by the pair's offset.
  void writeInputs(const PairInputs &In) {
    for (std::size_t K = 0; K < InputArgs.size(); ++K) {
      std::size_t I = InputArgs[K];
      std::size_t Bytes = Args.bytes(I);
      std::size_t Shift = static_cast<std::size_t>(In.Offset[K]) *
                          spec::dtypeSize(P.Args[I].Type);
      const unsigned char *Src = Sets[In.Set[K]]->data(I);
      auto *Dst = static_cast<unsigned char *>(Args.buffer(I).data());
      KOPT_CUDA(cudaMemcpyAsync(Dst, Src + Shift, Bytes - Shift,
                                cudaMemcpyDeviceToDevice, Stream));
      if (Shift)
        KOPT_CUDA(cudaMemcpyAsync(Dst + (Bytes - Shift), Src, Shift,
                                  cudaMemcpyDeviceToDevice, Stream));
    }
  }

  void poisonOutputs() {
    for (std::size_t I : OutputArgs)
      if (P.Args[I].BufferIntent == spec::Intent::Out)
        KOPT_CUDA(cudaMemsetAsync(Args.buffer(I).data(), FirstPoisonByte,
                                  Args.bytes(I), Stream));
  }

  void synchronize() {
    if (P.hasStreamArg())
      KOPT_CUDA(cudaStreamSynchronize(Stream));
    else
      KOPT_CUDA(cudaDeviceSynchronize());
  }
};

bool Timer::captureGraphs(const Entry &A, const Entry &B, std::string &Why) {
  if (!P.hasStreamArg()) {
    Why = "the entry takes no stream, so it cannot be captured";
    return false;
  }
  std::vector<cudaGraphExec_t> Made;
  for (const Entry *Lib : {&A, &B}) {
    cudaGraph_t Graph = nullptr;
    KOPT_CUDA(cudaStreamBeginCapture(Stream, cudaStreamCaptureModeGlobal));
    Lib->call(Args.argv(), Stream);
    cudaError_t End = cudaStreamEndCapture(Stream, &Graph);
    cudaGetLastError(); // a failed capture leaves an error behind
    cudaGraphExec_t Exec = nullptr;
    cudaError_t Instantiated = cudaErrorUnknown;
    if (End == cudaSuccess)
      Instantiated = cudaGraphInstantiate(&Exec, Graph, 0);
    if (End != cudaSuccess || Instantiated != cudaSuccess) {
      Why = std::string("capture failed: ") +
            cudaGetErrorString(End != cudaSuccess ? End : Instantiated);
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

std::string formatValue(double V) {
  std::ostringstream S;
  S.precision(9);
  S << V;
  return S.str();
}

void Timer::verifyKept(const Entry &Reference, int PairsSoFar,
                       bool GraphReplays, nlohmann::json &Report) {
  for (CheckSlot &Slot : Slots) {
    if (!Slot.Used)
      continue;
    setStage("timing: checking the candidate's outputs of pair " +
             std::to_string(Slot.Pair + 1));
    // The reference on the same inputs, untimed.
    try {
      writeInputs(Slot.Inputs);
      poisonOutputs();
      KOPT_CUDA(cudaStreamSynchronize(Stream));
      Reference.call(Args.argv(), Stream);
      KOPT_CUDA(cudaGetLastError());
      synchronize();
      copyOutputs(Args, Expected, Stream);
    } catch (const CudaFailure &E) {
      throw ReferenceFailure(
          std::string("the reference failed while checking timed runs: ") +
          E.what());
    }
    for (std::size_t K = 0; K < OutputArgs.size(); ++K) {
      const spec::Arg &A = P.Args[OutputArgs[K]];
      std::int64_t Count = Args.count(OutputArgs[K]);
      spec::Tolerance Tol = A.OwnTolerance.value_or(P.DefaultTolerance);
      ComparisonResult R = compareOnDevice(
          A.Type, Slot.Outputs[K].data(), Expected[OutputArgs[K]].data(), Count,
          Tol, A.OwnTolerance.has_value(),
          A.BufferIntent == spec::Intent::Out ? FirstPoisonByte : 0x00, Stream);
      if (R.Ok)
        continue;
      std::ostringstream M;
      M << "during timing: pair " << (Slot.Pair + 1) << " of the first "
        << PairsSoFar << (GraphReplays ? " (CUDA-graph replay)" : "")
        << ": the candidate's timed run gave a wrong result: output '" << A.Name
        << "': " << R.Mismatches << " of " << Count << " elements differ";
      if (R.Unwritten)
        M << " (" << R.Unwritten << " never written)";
      M << "; first at index " << R.FirstMismatch << ": got "
        << (R.FirstUnwritten ? "the poison (never written)"
                             : formatValue(R.FirstGot))
        << ", expected " << formatValue(R.FirstExpected)
        << " (the same inputs through the reference; atol " << Tol.Atol
        << ", rtol " << Tol.Rtol << ")";
      Report["first_mismatch"] = {{"pair", Slot.Pair + 1},
                                  {"output", A.Name},
                                  {"index", R.FirstMismatch},
                                  {"mismatches", R.Mismatches},
                                  {"unwritten", R.Unwritten}};
      throw Verdict(Status::WrongResult, M.str());
    }
    Verified.push_back(Slot.Pair + 1);
    Slot.Used = false;
  }
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
                         const Entry &Reference, const Entry &Candidate,
                         cudaStream_t Stream, nlohmann::json &Report) {
  const spec::Shape &S = P.Shapes[P.BenchmarkShape];
  setStage("timing: preparing shape #" + std::to_string(P.BenchmarkShape) +
           " {" + S.describe() + "}");
  std::unique_ptr<ProblemArguments> Owned = allocateArguments(
      P, S, "the benchmark shape #" + std::to_string(P.BenchmarkShape));
  ProblemArguments &Args = *Owned;
  Timer T(P, Job, Stream, Args);
  const Entry *Libs[2] = {&Reference, &Candidate};
  cudaStream_t Sync = P.hasStreamArg() ? Stream : nullptr;
  auto synchronize = [&] {
    if (P.hasStreamArg())
      KOPT_CUDA(cudaStreamSynchronize(Sync));
    else
      KOPT_CUDA(cudaDeviceSynchronize());
  };

  bool Graph = false;
  if (Job.Timing.Graph) {
    std::string Why;
    // Capture on prepared arguments: the graphs keep the buffer pointers,
    // and every replay reads what prepareRun wrote into those buffers.
    T.prepareRun(T.drawInputs());
    synchronize();
    Graph = T.captureGraphs(Reference, Candidate, Why);
    if (!Graph)
      Report["graph_fallback"] = Why;
  }

  EventPool Events;

  // Warm-up: module load, first-touch, clocks ramping; also estimates how
  // long one run takes.
  setStage("timing: warm-up");
  auto WarmStart = std::chrono::steady_clock::now();
  std::vector<double> WarmTimes;
  for (int Round = 0;; ++Round) {
    PairInputs In = T.drawInputs();
    for (int Which = 0; Which < 2; ++Which) {
      T.prepareRun(In);
      T.enqueue(Which, *Libs[Which], Events[2 * Which], Events[2 * Which + 1]);
    }
    synchronize();
    WarmTimes.push_back(std::max(elapsedMs(Events[0], Events[1]),
                                 elapsedMs(Events[2], Events[3])));
    double Spent = std::chrono::duration<double, std::milli>(
                       std::chrono::steady_clock::now() - WarmStart)
                       .count();
    if (Round >= 2 && Spent >= Job.Timing.WarmupMs)
      break;
  }
  double PerRun = std::max(median(WarmTimes), 1e-4);
  // The budget: RepeatMs of measured time per kernel, within the run
  // bounds; the interval usually settles well before it.
  int Runs = static_cast<int>(Job.Timing.RepeatMs / PerRun);
  Runs = std::max(Job.Timing.MinRuns, std::min(Job.Timing.MaxRuns, Runs));

  char Bus[64] = {0};
  cudaDeviceGetPCIBusId(Bus, sizeof(Bus), 0);
  ClockMonitor Clocks(Bus);
  Clocks.sample();

  setStage("timing: up to " + std::to_string(Runs) + " interleaved runs each");
  std::vector<double> Times[2];
  std::string Stopped = "budget";
  int NextSettleCheck = std::max(Job.Timing.MinRuns, 8);
  int Done = 0;
  while (Done < Runs) {
    int Now = std::min(Batch, Runs - Done);
    // The first batch's last MinCheckedPairs pairs, and every batch's last.
    int Forced = Done == 0 ? MinCheckedPairs : 1;
    for (int I = 0; I < Now; ++I) {
      int Pair = Done + I;
      PairInputs In = T.drawInputs();
      // ABBA order: neither kernel always runs first after a flush.
      int First = Pair % 2;
      for (int K = 0; K < 2; ++K) {
        int Which = K == 0 ? First : 1 - First;
        std::size_t Slot = 4 * I + 2 * Which;
        T.prepareRun(In);
        T.enqueue(Which, *Libs[Which], Events[Slot], Events[Slot + 1]);
        if (Which == 1)
          T.maybeKeep(Pair, In, I >= Now - Forced);
      }
    }
    synchronize();
    Clocks.sample();
    for (int I = 0; I < Now; ++I)
      for (int Which = 0; Which < 2; ++Which)
        Times[Which].push_back(elapsedMs(Events[4 * I + 2 * Which],
                                         Events[4 * I + 2 * Which + 1]));
    Done += Now;
    T.verifyKept(Reference, Done, Graph, Report);
    // The interval is re-estimated on a geometric schedule: its bootstrap
    // costs more than a batch of small kernels.
    if (Done < Runs && Done >= NextSettleCheck) {
      if (speedupSettled(Times[0], Times[1], Job.Timing.TargetCi)) {
        Stopped = "settled";
        break;
      }
      NextSettleCheck = std::max(Done + Batch, Done * 5 / 4);
    }
  }
  if (Stopped != "settled" && Done >= Job.Timing.MaxRuns)
    Stopped = "max-runs";
  T.checkGuards();

  SpeedupEstimate Speedup = estimateSpeedup(Times[0], Times[1]);
  Report["shape"] = P.BenchmarkShape;
  Report["sizes"] = S.describe();
  Report["graph"] = Graph;
  Report["flush_bytes"] = T.flushBytes();
  Report["input_sets"] = InputSets;
  Report["checked_pairs"] = T.checkedPairList();
  Report["baseline"] = summaryJson(summarize(Times[0]));
  Report["candidate"] = summaryJson(summarize(Times[1]));
  Report["speedup"] = Speedup.Speedup;
  Report["speedup_ci95"] = {Speedup.Low, Speedup.High};
  Report["stopped"] = Stopped;
  Report["ci_target"] = Job.Timing.TargetCi;
  Report["runs_budget"] = Runs;
  Report["clocks"] = Clocks.report();
  Report["clock_warnings"] = Clocks.warnings();
  Report["clock_flags"] = Clocks.flags();
  Report["baseline_samples_ms"] = Times[0];
  Report["candidate_samples_ms"] = Times[1];
}

} // namespace kopt::eval::device
