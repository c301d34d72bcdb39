//===- CorrectnessCheck.cpp - Candidate vs reference over shapes x seeds --===//
//
// For every shape and seed: fresh inputs; candidate run 1 (outputs poisoned
// with 0xFF), the reference on the same inputs; then a second set of fresh
// inputs (another seed), the reference on them and candidate run 2 (outputs
// poisoned with 0x5A). Both candidate runs must match the reference of their
// own inputs, leave inputs and guard zones untouched, and do all their work
// on the stream they were given. Since no checked call ever sees inputs it
// has seen before, a cache keyed by input content never serves a checked
// call. For the first seed of each shape the reference also runs under the
// second poison: an output element it leaves unwritten is a problem error.
//
// Everything stays on the GPU (DeviceData.h): inputs are generated there
// and kept as the pristine copy the argument buffers are filled from and
// compared with; outputs are copied aside and compared there; only counts
// and the first mismatch come back. Reference outputs the reference child
// kept (ReferenceStore.h) are read instead of recomputed; then that child
// has already checked that the reference writes every output.
//
//===----------------------------------------------------------------------===//
#include "DeviceData.h"
#include "ReferenceRuns.h"

#include <sstream>

namespace kopt::eval::device {

using spec::Arg;

namespace {

std::string formatValue(double V) {
  std::ostringstream S;
  S.precision(9);
  S << V;
  return S.str();
}

/// One shape's device memory: the arguments, the inputs of run 1 and run 2,
/// and the outputs of both candidate runs and both references.
struct ShapeBuffers {
  std::unique_ptr<ProblemArguments> Args;
  InputSet First, Second;
  DeviceOutputs Got[2], Expected[2];
  explicit ShapeBuffers(std::unique_ptr<ProblemArguments> A)
      : Args(std::move(A)), First(*Args),
        Second(*Args), Got{allocateOutputs(*Args), allocateOutputs(*Args)},
        Expected{allocateOutputs(*Args), allocateOutputs(*Args)} {}
};

class Checker {
public:
  Checker(const spec::Problem &P, const WorkerJob &Job,
          const ReferenceStore &Store, cudaStream_t Stream)
      : P(P), Job(Job), Store(Store), Stream(Stream) {}

  void checkShape(std::size_t ShapeIndex, const Entry &Reference,
                  const Entry &Candidate, nlohmann::json &Report);

private:
  const spec::Problem &P;
  const WorkerJob &Job;
  const ReferenceStore &Store;
  cudaStream_t Stream;
  LegacyStreamGate Gate;

  void runCandidate(const Entry &Candidate, ProblemArguments &Args,
                    const InputSet &In, unsigned char Poison,
                    DeviceOutputs &Into, const std::string &Where);
  void expectedOutputs(const Entry &Reference, std::size_t ShapeIndex,
                       ProblemArguments &Args, const InputSet &In,
                       DeviceOutputs &Into, nlohmann::json &Report);
  void checkInputsAndGuards(ProblemArguments &Args, const InputSet &In,
                            const std::string &Where);
  void compare(ProblemArguments &Args, const DeviceOutputs &Got,
               const DeviceOutputs &Want, int Run, std::size_t ShapeIndex,
               std::uint64_t Seed, const std::string &Where, double &MaxAbs,
               double &MaxRel, nlohmann::json &Report);
};

void Checker::runCandidate(const Entry &Candidate, ProblemArguments &Args,
                           const InputSet &In, unsigned char Poison,
                           DeviceOutputs &Into, const std::string &Where) {
  prepareArguments(Args, In, Poison, Stream);
  if (!P.hasStreamArg()) {
    // KernelBench-style launchers: no stream, they synchronize themselves.
    {
      StageTimer Timer("candidate");
      Candidate.call(Args.argv(), nullptr);
      KOPT_CUDA(cudaGetLastError());
      KOPT_CUDA(cudaDeviceSynchronize());
    }
    copyOutputs(Args, Into, Stream);
    checkInputsAndGuards(Args, In, Where);
    return;
  }

  StageTimer Timer("candidate");
  // Whatever happens below, the default stream must not stay held: a
  // blocked host function would keep the process from ending.
  struct OpenOnExit {
    LegacyStreamGate &Gate;
    ~OpenOnExit() { Gate.open(); }
  } Reopen{Gate};
  bool Returned = Gate.whileClosed([&] { Candidate.call(Args.argv(), Stream); },
                                   Job.GateSeconds);
  cudaError_t Launch = cudaGetLastError();
  if (!Returned) {
    Gate.open();
    KOPT_CUDA(cudaDeviceSynchronize());
    throw Verdict(Status::Rejected,
                  Where + ": the entry did not return while the legacy "
                          "default stream was held: it waits for the device "
                          "or for default-stream work (cudaDeviceSynchronize, "
                          "cudaMemcpy, cudaFree, stream 0) instead of only "
                          "launching on the stream it was given",
                  "default-stream");
  }
  if (!waitForStream(Stream, Job.GateSeconds)) {
    Gate.open();
    KOPT_CUDA(cudaStreamSynchronize(Stream));
    throw Verdict(Status::Rejected,
                  Where + ": work on the evaluation stream waited for the "
                          "legacy default stream",
                  "default-stream");
  }
  check(Launch, "the entry's launches");
  // The outputs as the stream left them, copied aside on the (non-blocking)
  // evaluation stream while the default stream is still held; after the
  // release they must not change.
  copyOutputs(Args, Into, Stream);
  Gate.open();
  KOPT_CUDA(cudaDeviceSynchronize());
  StageTimer Checks("compare");
  for (std::size_t I = 0; I < P.Args.size(); ++I)
    if (P.Args[I].isOutput() &&
        firstDifferenceOnDevice(Into[I].data(), Args.buffer(I).data(),
                                Args.bytes(I), Stream) >= 0)
      throw Verdict(Status::Rejected,
                    Where + ": output '" + P.Args[I].Name +
                        "' changed after the legacy default stream was "
                        "released: the candidate launched work on the "
                        "default stream, not on the stream it was given",
                    "default-stream");
  checkInputsAndGuards(Args, In, Where);
}

void Checker::expectedOutputs(const Entry &Reference, std::size_t ShapeIndex,
                              ProblemArguments &Args, const InputSet &In,
                              DeviceOutputs &Into, nlohmann::json &Report) {
  if (Store.has(ShapeIndex, In.seed())) {
    StageTimer Timer("reference");
    std::string Why;
    if (Store.load(ShapeIndex, In.seed(), Args, Into, Stream, Why))
      return;
    Report["reference_cache_notes"].push_back(
        "the kept reference outputs of shape #" + std::to_string(ShapeIndex) +
        ", seed " + std::to_string(In.seed()) + " were not used (" + Why +
        "): recomputed");
  }
  runReference(Reference, Args, In, FirstPoisonByte, Into, Stream);
}

void Checker::checkInputsAndGuards(ProblemArguments &Args, const InputSet &In,
                                   const std::string &Where) {
  StageTimer Timer("compare");
  for (std::size_t I = 0; I < P.Args.size(); ++I) {
    const Arg &A = P.Args[I];
    if (!A.isBuffer())
      continue;
    std::string Guard = Args.buffer(I).checkGuards(Stream);
    if (!Guard.empty()) {
      Args.buffer(I).resetGuards(Stream);
      throw Verdict(Status::RuntimeError,
                    Where + ": out-of-bounds write: the guard zone of '" +
                        A.Name + "' changed at " + Guard);
    }
    if (A.BufferIntent != spec::Intent::In)
      continue;
    std::int64_t Byte = firstDifferenceOnDevice(
        Args.buffer(I).data(), In.data(I), Args.bytes(I), Stream);
    if (Byte >= 0)
      throw Verdict(Status::WrongResult,
                    Where + ": input '" + A.Name +
                        "' (intent in) was modified, first at element " +
                        std::to_string(Byte / codec::elementSize(A.Type)));
  }
}

void Checker::compare(ProblemArguments &Args, const DeviceOutputs &Got,
                      const DeviceOutputs &Want, int Run,
                      std::size_t ShapeIndex, std::uint64_t Seed,
                      const std::string &Where, double &MaxAbs, double &MaxRel,
                      nlohmann::json &Report) {
  StageTimer Timer("compare");
  unsigned char Poison = Run == 0 ? FirstPoisonByte : SecondPoisonByte;
  for (std::size_t I = 0; I < P.Args.size(); ++I) {
    const Arg &A = P.Args[I];
    if (!A.isOutput())
      continue;
    spec::Tolerance Tol = A.OwnTolerance.value_or(P.DefaultTolerance);
    ComparisonResult R = compareOnDevice(
        A.Type, Got[I].data(), Want[I].data(), Args.count(I), Tol,
        A.OwnTolerance.has_value(),
        A.BufferIntent == spec::Intent::Out ? Poison : 0x00, Stream);
    MaxAbs = std::max(MaxAbs, R.MaxAbsError);
    MaxRel = std::max(MaxRel, R.MaxRelError);
    if (R.Ok)
      continue;
    std::ostringstream M;
    M << Where << ", candidate run " << (Run + 1)
      << (Run == 0 ? " (before" : " (after") << " the reference): output '"
      << A.Name << "': " << R.Mismatches << " of " << Args.count(I)
      << " elements differ";
    if (R.Unwritten)
      M << " (" << R.Unwritten << " never written)";
    M << "; first at index " << R.FirstMismatch << ": got "
      << (R.FirstUnwritten ? "the poison (never written)"
                           : formatValue(R.FirstGot))
      << ", expected " << formatValue(R.FirstExpected) << "; max abs error "
      << formatValue(R.MaxAbsError) << ", max rel error "
      << formatValue(R.MaxRelError) << " (atol " << Tol.Atol << ", rtol "
      << Tol.Rtol << ")";
    Report["first_mismatch"] = {
        {"shape", ShapeIndex},      {"seed", Seed},
        {"run", Run + 1},           {"output", A.Name},
        {"index", R.FirstMismatch}, {"mismatches", R.Mismatches},
        {"unwritten", R.Unwritten}};
    throw Verdict(Status::WrongResult, M.str());
  }
}

void Checker::checkShape(std::size_t ShapeIndex, const Entry &Reference,
                         const Entry &Candidate, nlohmann::json &Report) {
  const spec::Shape &S = P.Shapes[ShapeIndex];
  std::string ShapeText =
      "shape #" + std::to_string(ShapeIndex) + " {" + S.describe() + "}";
  setStage("allocating " + ShapeText);
  ShapeBuffers B(allocateArguments(P, S, ShapeText));
  ProblemArguments &Args = *B.Args;

  nlohmann::json ShapeReport = {
      {"shape", ShapeIndex},
      {"sizes", S.describe()},
      {"seeds", nlohmann::json::array()},
      {"seeds_after_reference", nlohmann::json::array()}};
  double MaxAbs = 0, MaxRel = 0;
  for (int SeedIndex = 0; SeedIndex < P.Seeds; ++SeedIndex) {
    std::uint64_t Seed = firstRunSeed(Job, ShapeIndex, SeedIndex);
    std::string Where = ShapeText + " seed " + std::to_string(SeedIndex + 1) +
                        " of " + std::to_string(P.Seeds) + " (" +
                        std::to_string(Seed) + ")";
    setStage("generating inputs for " + Where);
    B.First.generate(Seed, Stream);

    if (SeedIndex == 0) {
      // One unchecked call first: the first launch of a kernel may load its
      // module or grow local memory, which waits for the whole device and
      // so for the held default stream. Later calls must not wait.
      setStage(Where + ": warm-up call of the candidate (not checked)");
      prepareArguments(Args, B.First, FirstPoisonByte, Stream);
      StageTimer Timer("candidate");
      Candidate.call(Args.argv(), P.hasStreamArg() ? Stream : nullptr);
      KOPT_CUDA(cudaGetLastError());
      KOPT_CUDA(cudaDeviceSynchronize());
    }
    setStage(Where + ": candidate run 1 (before the reference)");
    runCandidate(Candidate, Args, B.First, FirstPoisonByte, B.Got[0],
                 Where + ", candidate run 1 (before the reference)");
    setStage(Where + ": reference run");
    expectedOutputs(Reference, ShapeIndex, Args, B.First, B.Expected[0],
                    Report);
    if (SeedIndex == 0 && !Store.writesAllChecked(ShapeIndex)) {
      setStage(Where + ": reference run under the second poison");
      // Expected[1] is free until run 2's reference.
      checkReferenceWritesAll(Reference, Args, B.First, B.Expected[0],
                              B.Expected[1], Where, Stream);
    }
    // Run 2 gets inputs of its own: a cache keyed by input content misses.
    std::uint64_t SecondSeed = secondRunSeed(Job, ShapeIndex, SeedIndex);
    setStage("generating inputs for " + Where + " (run 2, seed " +
             std::to_string(SecondSeed) + ")");
    B.Second.generate(SecondSeed, Stream);
    setStage(Where + ": reference run on the inputs of run 2");
    expectedOutputs(Reference, ShapeIndex, Args, B.Second, B.Expected[1],
                    Report);
    setStage(Where + ": candidate run 2 (after the reference)");
    runCandidate(Candidate, Args, B.Second, SecondPoisonByte, B.Got[1],
                 Where +
                     ", candidate run 2 (after the reference, inputs of "
                     "seed " +
                     std::to_string(SecondSeed) + ")");

    setStage(Where + ": comparing");
    compare(Args, B.Got[0], B.Expected[0], 0, ShapeIndex, Seed, Where, MaxAbs,
            MaxRel, Report);
    compare(Args, B.Got[1], B.Expected[1], 1, ShapeIndex, SecondSeed, Where,
            MaxAbs, MaxRel, Report);
    ShapeReport["seeds"].push_back(Seed);
    ShapeReport["seeds_after_reference"].push_back(SecondSeed);
  }
  ShapeReport["max_abs_error"] = MaxAbs;
  ShapeReport["max_rel_error"] = MaxRel;
  Report["shapes"].push_back(ShapeReport);
}

} // namespace

void checkCorrectness(const spec::Problem &P, const WorkerJob &Job,
                      const Entry &Reference, const Entry &Candidate,
                      const ReferenceStore &Store, cudaStream_t Stream,
                      nlohmann::json &Report) {
  Report["shapes"] = nlohmann::json::array();
  Checker C(P, Job, Store, Stream);
  try {
    for (std::size_t I = 0; I < P.Shapes.size(); ++I)
      C.checkShape(I, Reference, Candidate, Report);
  } catch (...) {
    Report["reference_outputs_read"] = Store.Loaded;
    throw;
  }
  Report["reference_outputs_read"] = Store.Loaded;
}

} // namespace kopt::eval::device
