//===- ReferenceRuns.cpp - Running the reference and keeping its outputs --===//
//
// The reference's runs of the correctness check, shared by the candidate's
// child (which computes what the store does not hold) and the reference
// child (which computes every (shape, seed) once, checks that the reference
// writes all of its outputs, and keeps the entries worth keeping).
//
//===----------------------------------------------------------------------===//
#include "ReferenceRuns.h"
#include "DeviceData.h"

#include <chrono>

namespace kopt::eval::device {

double runReference(const Entry &Reference, ProblemArguments &Args,
                    const InputSet &In, unsigned char Poison,
                    DeviceOutputs &Into, cudaStream_t Stream) {
  const spec::Problem &P = Args.problem();
  StageTimer Timer("reference");
  try {
    prepareArguments(Args, In, Poison, Stream);
    auto Start = std::chrono::steady_clock::now();
    Reference.call(Args.argv(), P.hasStreamArg() ? Stream : nullptr);
    KOPT_CUDA(cudaGetLastError());
    KOPT_CUDA(cudaDeviceSynchronize());
    double Ms = std::chrono::duration<double, std::milli>(
                    std::chrono::steady_clock::now() - Start)
                    .count();
    copyOutputs(Args, Into, Stream);
    return Ms;
  } catch (const CudaFailure &E) {
    throw ReferenceFailure(std::string("the reference failed: ") + E.what());
  }
}

void checkReferenceWritesAll(const Entry &Reference, ProblemArguments &Args,
                             const InputSet &In,
                             const DeviceOutputs &UnderFirstPoison,
                             DeviceOutputs &Scratch, const std::string &Where,
                             cudaStream_t Stream) {
  const spec::Problem &P = Args.problem();
  runReference(Reference, Args, In, SecondPoisonByte, Scratch, Stream);
  StageTimer Timer("compare");
  for (std::size_t I = 0; I < P.Args.size(); ++I) {
    const spec::Arg &A = P.Args[I];
    if (!A.isOutput() || A.BufferIntent != spec::Intent::Out)
      continue;
    KeptPoison K = keptPoisonOnDevice(
        UnderFirstPoison[I].data(), Scratch[I].data(), Args.count(I),
        codec::elementSize(A.Type), FirstPoisonByte, SecondPoisonByte, Stream);
    if (K.Count)
      throw ReferenceFailure(
          Where + ": the reference leaves " + std::to_string(K.Count) + " of " +
          std::to_string(Args.count(I)) + " elements of output '" + A.Name +
          "' unwritten (first at index " + std::to_string(K.First) +
          "; they keep whatever the buffer held): fix the reference, or the "
          "shape or intent of '" +
          A.Name + "' in problem.json");
  }
}

void recordReferences(const spec::Problem &P, const WorkerJob &Job,
                      const Entry &Reference, ReferenceStore &Store,
                      cudaStream_t Stream, nlohmann::json &Report) {
  int Kept = 0, Recomputed = 0;
  for (std::size_t Shape = 0; Shape < P.Shapes.size(); ++Shape) {
    const spec::Shape &S = P.Shapes[Shape];
    std::string ShapeText =
        "shape #" + std::to_string(Shape) + " {" + S.describe() + "}";
    setStage("reference outputs of " + ShapeText);
    std::unique_ptr<ProblemArguments> Args = allocateArguments(P, S, ShapeText);
    InputSet In(*Args);
    DeviceOutputs Outputs = allocateOutputs(*Args);
    DeviceOutputs Scratch = allocateOutputs(*Args);
    std::size_t Bytes = 0;
    for (std::size_t I = 0; I < P.Args.size(); ++I)
      if (P.Args[I].isOutput())
        Bytes += Args->bytes(I);
    // One untimed call first: a first launch may load modules or grow
    // local memory, which would count against keeping the entries.
    In.generate(firstRunSeed(Job, Shape, 0), Stream);
    runReference(Reference, *Args, In, FirstPoisonByte, Outputs, Stream);
    for (int K = 0; K < P.Seeds; ++K) {
      for (std::uint64_t Seed :
           {firstRunSeed(Job, Shape, K), secondRunSeed(Job, Shape, K)}) {
        In.generate(Seed, Stream);
        double Ms = runReference(Reference, *Args, In, FirstPoisonByte, Outputs,
                                 Stream);
        if (K == 0 && Seed == firstRunSeed(Job, Shape, K)) {
          checkReferenceWritesAll(Reference, *Args, In, Outputs, Scratch,
                                  ShapeText, Stream);
          Store.markWritesAllChecked(Shape);
        }
        bool Keep = worthKeeping(Job.ReferenceCachePolicy, Ms, Bytes);
        Store.add(Shape, Seed, *Args, Outputs, Ms, Keep, Stream);
        (Keep ? Kept : Recomputed)++;
      }
    }
  }
  Store.save();
  Report["entries_kept"] = Kept;
  Report["entries_not_kept"] = Recomputed;
}

} // namespace kopt::eval::device
