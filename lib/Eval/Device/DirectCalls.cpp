//===- DirectCalls.cpp - The candidate's own launcher, checked ------------===//
#include "DirectCalls.h"

#include "DeviceData.h"
#include "ReferenceRuns.h"

#ifdef KOPT_EVAL_HAS_CUPTI
#include "ActivityTrace.h"
#endif

#include <chrono>
#include <sstream>

namespace kopt::eval::device {

namespace {
std::uint64_t now() {
#ifdef KOPT_EVAL_HAS_CUPTI
  return traceTimestamp();
#else
  return 0;
#endif
}
} // namespace

DirectCalls::DirectCalls(const spec::Problem &P, const WorkerJob &Job,
                         std::size_t ShapeIndex, const Entry &Reference,
                         const Entry &Candidate, ProblemArguments &X,
                         ProblemArguments &Y, cudaStream_t Stream)
    : P(P), Job(Job), ShapeIndex(ShapeIndex), Candidate(Candidate), X(X), Y(Y),
      Stream(Stream), A(X), B(X), ExpectedA(allocateOutputs(X)),
      ExpectedB(allocateOutputs(X)) {
  std::uint64_t Seed = Job.SeedBase + ShapeIndex * 1000;
  A.generate(Seed, Stream);
  B.generate(Seed + 1, Stream);
  runReference(Reference, X, A, FirstPoisonByte, ExpectedA, Stream);
  runReference(Reference, X, B, FirstPoisonByte, ExpectedB, Stream);
}

std::string DirectCalls::run(int Count, int AtLeast, double Seconds) {
  auto Start = std::chrono::steady_clock::now();
  for (int I = 0; I < Count; ++I) {
    double Spent =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
            .count();
    if (I >= AtLeast && Spent > Seconds)
      break;
    std::string Wrong = check(Calls++);
    if (!Wrong.empty())
      return Wrong;
  }
  return "";
}

std::string DirectCalls::check(int Call) {
  // Outputs that stay and outputs that move, inputs that change and
  // inputs that repeat, and a new poison every call: a skipped call leaves
  // the poison.
  ProblemArguments &Args = (Call / 2) % 2 ? Y : X;
  bool Second = Call % 3 == 1;
  const InputSet &In = Second ? B : A;
  const DeviceOutputs &Want = Second ? ExpectedB : ExpectedA;
  unsigned char Poison = Call % 2 ? SecondPoisonByte : FirstPoisonByte;
  prepareArguments(Args, In, Poison, Stream);
  std::uint64_t Begin = now();
  Candidate.call(Args.argv(), Stream);
  cudaError_t Launch = cudaGetLastError();
  KOPT_CUDA(cudaStreamSynchronize(Stream));
  Windows.emplace_back(Begin, now());
  device::check(Launch, "the entry's launches (called directly)");
  std::string Where = "shape #" + std::to_string(ShapeIndex) +
                      ", direct call " + std::to_string(Call + 1) +
                      " of the candidate's own launcher (not captured; " +
                      (&Args == &X ? "first" : "second") +
                      " buffers, inputs of seed " + std::to_string(In.seed()) +
                      ")";
  for (std::size_t I = 0; I < P.Args.size(); ++I) {
    const spec::Arg &Out = P.Args[I];
    if (!Out.isOutput())
      continue;
    spec::Tolerance Tol = Out.OwnTolerance.value_or(P.DefaultTolerance);
    ComparisonResult R = compareOnDevice(
        Out.Type, Args.buffer(I).data(), Want[I].data(), Args.count(I), Tol,
        Out.OwnTolerance.has_value(),
        Out.BufferIntent == spec::Intent::Out ? Poison : 0x00, Stream);
    if (R.Ok)
      continue;
    std::ostringstream M;
    M.precision(9);
    M << Where << ": output '" << Out.Name << "': " << R.Mismatches << " of "
      << Args.count(I) << " elements differ";
    if (R.Unwritten)
      M << " (" << R.Unwritten << " never written)";
    M << "; first at index " << R.FirstMismatch << ": got ";
    if (R.FirstUnwritten)
      M << "the poison (never written)";
    else
      M << R.FirstGot;
    M << ", expected " << R.FirstExpected
      << ". The replayed graph may be right, but the launcher a user runs "
         "is not";
    return M.str();
  }
  return "";
}

} // namespace kopt::eval::device
