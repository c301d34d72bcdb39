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
//===----------------------------------------------------------------------===//
#include "Evaluation.h"

#include "kopt/Eval/HostData.h"

#include <cstring>
#include <sstream>

namespace kopt::eval::device {

using spec::Arg;

namespace {

using HostOutputs = std::vector<std::vector<unsigned char>>;

/// Pinned staging, so reading outputs while the default stream is held
/// never waits on it.
class PinnedBuffer {
public:
  explicit PinnedBuffer(std::size_t Bytes) {
    KOPT_CUDA(cudaMallocHost(&Data, Bytes ? Bytes : 1));
  }
  ~PinnedBuffer() { cudaFreeHost(Data); }
  unsigned char *data() const { return static_cast<unsigned char *>(Data); }

private:
  void *Data = nullptr;
};

HostOutputs readOutputs(ProblemArguments &Args, PinnedBuffer &Staging,
                        cudaStream_t Stream) {
  const spec::Problem &P = Args.problem();
  HostOutputs Out(P.Args.size());
  for (std::size_t I = 0; I < P.Args.size(); ++I) {
    if (!P.Args[I].isOutput())
      continue;
    KOPT_CUDA(cudaMemcpyAsync(Staging.data(), Args.buffer(I).data(),
                              Args.bytes(I), cudaMemcpyDeviceToHost, Stream));
    KOPT_CUDA(cudaStreamSynchronize(Stream));
    Out[I].assign(Staging.data(), Staging.data() + Args.bytes(I));
  }
  return Out;
}

std::string formatValue(double V) {
  std::ostringstream S;
  S.precision(9);
  S << V;
  return S.str();
}

class Checker {
public:
  Checker(const spec::Problem &P, const WorkerJob &Job, cudaStream_t Stream)
      : P(P), Job(Job), Stream(Stream) {}

  void checkShape(std::size_t ShapeIndex, const EntryLibrary &Reference,
                  const EntryLibrary &Candidate, nlohmann::json &Report);

private:
  const spec::Problem &P;
  const WorkerJob &Job;
  cudaStream_t Stream;
  LegacyStreamGate Gate;

  HostOutputs runCandidate(const EntryLibrary &Candidate,
                           ProblemArguments &Args, PinnedBuffer &Staging,
                           const std::vector<std::vector<unsigned char>> &In,
                           unsigned char Poison, const std::string &Where);
  HostOutputs runReference(const EntryLibrary &Reference,
                           ProblemArguments &Args, PinnedBuffer &Staging,
                           const std::vector<std::vector<unsigned char>> &In,
                           unsigned char Poison);
  void checkReferenceWritesAll(
      const EntryLibrary &Reference, ProblemArguments &Args,
      PinnedBuffer &Staging, const std::vector<std::vector<unsigned char>> &In,
      const HostOutputs &UnderFirstPoison, const std::string &Where);
  void checkInputsAndGuards(ProblemArguments &Args,
                            const std::vector<std::vector<unsigned char>> &In,
                            const std::string &Where);
};

HostOutputs
Checker::runCandidate(const EntryLibrary &Candidate, ProblemArguments &Args,
                      PinnedBuffer &Staging,
                      const std::vector<std::vector<unsigned char>> &In,
                      unsigned char Poison, const std::string &Where) {
  prepareArguments(Args, In, Poison, Stream);
  if (!P.hasStreamArg()) {
    // KernelBench-style launchers: no stream, they synchronize themselves.
    Candidate.call(Args.argv(), nullptr);
    KOPT_CUDA(cudaGetLastError());
    KOPT_CUDA(cudaDeviceSynchronize());
    HostOutputs Out = readOutputs(Args, Staging, Stream);
    checkInputsAndGuards(Args, In, Where);
    return Out;
  }

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
  HostOutputs Before = readOutputs(Args, Staging, Stream);
  Gate.open();
  KOPT_CUDA(cudaDeviceSynchronize());
  HostOutputs After = readOutputs(Args, Staging, Stream);
  for (std::size_t I = 0; I < P.Args.size(); ++I)
    if (Before[I] != After[I])
      throw Verdict(Status::Rejected,
                    Where + ": output '" + P.Args[I].Name +
                        "' changed after the legacy default stream was "
                        "released: the candidate launched work on the "
                        "default stream, not on the stream it was given",
                    "default-stream");
  checkInputsAndGuards(Args, In, Where);
  return After;
}

HostOutputs
Checker::runReference(const EntryLibrary &Reference, ProblemArguments &Args,
                      PinnedBuffer &Staging,
                      const std::vector<std::vector<unsigned char>> &In,
                      unsigned char Poison) {
  try {
    prepareArguments(Args, In, Poison, Stream);
    Reference.call(Args.argv(), P.hasStreamArg() ? Stream : nullptr);
    KOPT_CUDA(cudaGetLastError());
    KOPT_CUDA(cudaDeviceSynchronize());
    return readOutputs(Args, Staging, Stream);
  } catch (const CudaFailure &E) {
    throw ReferenceFailure(std::string("the reference failed: ") + E.what());
  }
}

void Checker::checkReferenceWritesAll(
    const EntryLibrary &Reference, ProblemArguments &Args,
    PinnedBuffer &Staging, const std::vector<std::vector<unsigned char>> &In,
    const HostOutputs &UnderFirstPoison, const std::string &Where) {
  HostOutputs UnderSecond =
      runReference(Reference, Args, Staging, In, SecondPoisonByte);
  for (std::size_t I = 0; I < P.Args.size(); ++I) {
    const Arg &A = P.Args[I];
    if (!A.isOutput() || A.BufferIntent != spec::Intent::Out)
      continue;
    std::size_t Size = spec::dtypeSize(A.Type);
    std::int64_t Count = Args.count(I), Unwritten = 0, First = -1;
    for (std::int64_t E = 0; E < Count; ++E) {
      const unsigned char *F = UnderFirstPoison[I].data() + E * Size;
      const unsigned char *S = UnderSecond[I].data() + E * Size;
      bool Kept = true;
      for (std::size_t B = 0; B < Size && Kept; ++B)
        Kept = F[B] == FirstPoisonByte && S[B] == SecondPoisonByte;
      if (Kept && Unwritten++ == 0)
        First = E;
    }
    if (Unwritten)
      throw ReferenceFailure(
          Where + ": the reference leaves " + std::to_string(Unwritten) +
          " of " + std::to_string(Count) + " elements of output '" + A.Name +
          "' unwritten (first at index " + std::to_string(First) +
          "; they keep whatever the buffer held): fix the reference, or the "
          "shape or intent of '" +
          A.Name + "' in problem.json");
  }
}

void Checker::checkInputsAndGuards(
    ProblemArguments &Args, const std::vector<std::vector<unsigned char>> &In,
    const std::string &Where) {
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
    std::vector<unsigned char> Now(Args.bytes(I));
    KOPT_CUDA(cudaMemcpyAsync(Now.data(), Args.buffer(I).data(), Now.size(),
                              cudaMemcpyDeviceToHost, Stream));
    KOPT_CUDA(cudaStreamSynchronize(Stream));
    if (Now != In[I]) {
      std::size_t Size = spec::dtypeSize(A.Type);
      std::size_t Byte = 0;
      while (Byte < Now.size() && Now[Byte] == In[I][Byte])
        ++Byte;
      throw Verdict(Status::WrongResult,
                    Where + ": input '" + A.Name +
                        "' (intent in) was modified, first at element " +
                        std::to_string(Byte / Size));
    }
  }
}

void Checker::checkShape(std::size_t ShapeIndex, const EntryLibrary &Reference,
                         const EntryLibrary &Candidate,
                         nlohmann::json &Report) {
  const spec::Shape &S = P.Shapes[ShapeIndex];
  std::string ShapeText =
      "shape #" + std::to_string(ShapeIndex) + " {" + S.describe() + "}";
  setStage("allocating " + ShapeText);
  std::unique_ptr<ProblemArguments> Owned = allocateArguments(P, S, ShapeText);
  ProblemArguments &Args = *Owned;
  std::size_t Largest = 0;
  for (std::size_t I = 0; I < P.Args.size(); ++I)
    if (P.Args[I].isBuffer())
      Largest = std::max(Largest, Args.bytes(I));
  PinnedBuffer Staging(Largest);

  nlohmann::json ShapeReport = {
      {"shape", ShapeIndex},
      {"sizes", S.describe()},
      {"seeds", nlohmann::json::array()},
      {"seeds_after_reference", nlohmann::json::array()}};
  double MaxAbs = 0, MaxRel = 0;
  for (int SeedIndex = 0; SeedIndex < P.Seeds; ++SeedIndex) {
    std::uint64_t Seed = Job.SeedBase + ShapeIndex * 1000 + SeedIndex;
    std::string Where = ShapeText + " seed " + std::to_string(SeedIndex + 1) +
                        " of " + std::to_string(P.Seeds) + " (" +
                        std::to_string(Seed) + ")";
    setStage("generating inputs for " + Where);
    auto Inputs = generateInputs(P, S, Seed);

    if (SeedIndex == 0) {
      // One unchecked call first: the first launch of a kernel may load its
      // module or grow local memory, which waits for the whole device and
      // so for the held default stream. Later calls must not wait.
      setStage(Where + ": warm-up call of the candidate (not checked)");
      prepareArguments(Args, Inputs, FirstPoisonByte, Stream);
      Candidate.call(Args.argv(), P.hasStreamArg() ? Stream : nullptr);
      KOPT_CUDA(cudaGetLastError());
      KOPT_CUDA(cudaDeviceSynchronize());
    }
    setStage(Where + ": candidate run 1 (before the reference)");
    HostOutputs First =
        runCandidate(Candidate, Args, Staging, Inputs, FirstPoisonByte,
                     Where + ", candidate run 1 (before the reference)");
    setStage(Where + ": reference run");
    HostOutputs Expected =
        runReference(Reference, Args, Staging, Inputs, FirstPoisonByte);
    if (SeedIndex == 0) {
      setStage(Where + ": reference run under the second poison");
      checkReferenceWritesAll(Reference, Args, Staging, Inputs, Expected,
                              Where);
    }
    // Run 2 gets inputs of its own: a cache keyed by input content misses.
    std::uint64_t SecondSeed = Job.SeedBase + ShapeIndex * 1000 + 500 +
                               static_cast<std::uint64_t>(SeedIndex);
    setStage("generating inputs for " + Where + " (run 2, seed " +
             std::to_string(SecondSeed) + ")");
    auto SecondInputs = generateInputs(P, S, SecondSeed);
    setStage(Where + ": reference run on the inputs of run 2");
    HostOutputs SecondExpected =
        runReference(Reference, Args, Staging, SecondInputs, FirstPoisonByte);
    setStage(Where + ": candidate run 2 (after the reference)");
    HostOutputs Second = runCandidate(
        Candidate, Args, Staging, SecondInputs, SecondPoisonByte,
        Where + ", candidate run 2 (after the reference, inputs of seed " +
            std::to_string(SecondSeed) + ")");

    for (int Run = 0; Run < 2; ++Run) {
      const HostOutputs &Got = Run == 0 ? First : Second;
      const HostOutputs &Want = Run == 0 ? Expected : SecondExpected;
      unsigned char Poison = Run == 0 ? FirstPoisonByte : SecondPoisonByte;
      for (std::size_t I = 0; I < P.Args.size(); ++I) {
        const Arg &A = P.Args[I];
        if (!A.isOutput())
          continue;
        spec::Tolerance Tol = A.OwnTolerance.value_or(P.DefaultTolerance);
        ComparisonResult R =
            compareOutputs(A.Type, Got[I].data(), Want[I].data(), Args.count(I),
                           Tol, A.OwnTolerance.has_value(),
                           A.BufferIntent == spec::Intent::Out ? Poison : 0x00);
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
            {"shape", ShapeIndex},      {"seed", Run == 0 ? Seed : SecondSeed},
            {"run", Run + 1},           {"output", A.Name},
            {"index", R.FirstMismatch}, {"mismatches", R.Mismatches},
            {"unwritten", R.Unwritten}};
        throw Verdict(Status::WrongResult, M.str());
      }
    }
    ShapeReport["seeds"].push_back(Seed);
    ShapeReport["seeds_after_reference"].push_back(SecondSeed);
  }
  ShapeReport["max_abs_error"] = MaxAbs;
  ShapeReport["max_rel_error"] = MaxRel;
  Report["shapes"].push_back(ShapeReport);
}

} // namespace

void checkCorrectness(const spec::Problem &P, const WorkerJob &Job,
                      const EntryLibrary &Reference,
                      const EntryLibrary &Candidate, cudaStream_t Stream,
                      nlohmann::json &Report) {
  Report["shapes"] = nlohmann::json::array();
  Checker C(P, Job, Stream);
  for (std::size_t I = 0; I < P.Shapes.size(); ++I)
    C.checkShape(I, Reference, Candidate, Report);
}

} // namespace kopt::eval::device
