//===- ProblemArguments.cpp - One shape's buffers and argument array ------===//
#include "DeviceData.h"
#include "Evaluation.h"

#include "kopt/Eval/HostData.h"
#include "kopt/Eval/Shim.h"

#include <cstring>

namespace kopt::eval::device {

using spec::Arg;
using spec::DType;

namespace {
/// Stores scalar \p V the way the shim reads it (shimScalarHostType).
std::uint64_t encodeScalar(DType T, double V) {
  std::uint64_t Slot = 0;
  switch (T) {
  case DType::F64:
    std::memcpy(&Slot, &V, 8);
    break;
  case DType::F32:
  case DType::F16:
  case DType::BF16:
  case DType::FP8E4M3:
  case DType::FP8E5M2: {
    float F = static_cast<float>(V);
    std::memcpy(&Slot, &F, 4);
    break;
  }
  default:
    // The integer types: the same bytes as the fixed-width host value.
    encodeElement(T, V, reinterpret_cast<unsigned char *>(&Slot));
    break;
  }
  return Slot;
}
} // namespace

ProblemArguments::ProblemArguments(const spec::Problem &P, const spec::Shape &S)
    : P(P) {
  std::size_t N = P.Args.size();
  Buffers.resize(N);
  Counts.assign(N, 0);
  DevicePointers.assign(N, nullptr);
  Scalars.assign(N, 0);
  ArgPointers.assign(N, nullptr);
  for (std::size_t I = 0; I < N; ++I) {
    const Arg &A = P.Args[I];
    if (A.isBuffer()) {
      Counts[I] = spec::elementCount(A, S);
      Buffers[I] = GuardedBuffer(Counts[I] * spec::dtypeSize(A.Type));
      DevicePointers[I] = Buffers[I].data();
      ArgPointers[I] = &DevicePointers[I];
    } else if (A.isScalar()) {
      Scalars[I] = encodeScalar(A.Type, spec::scalarValue(A, S));
      ArgPointers[I] = &Scalars[I];
    }
  }
}

std::unique_ptr<ProblemArguments> allocateArguments(const spec::Problem &P,
                                                    const spec::Shape &S,
                                                    const std::string &Where) {
  try {
    return std::make_unique<ProblemArguments>(P, S);
  } catch (const CudaFailure &E) {
    if (std::string(E.what()).rfind("cudaErrorMemoryAllocation", 0) == 0)
      throw ReferenceFailure("cannot allocate the buffers of " + Where +
                             " on this device: " + E.what());
    throw;
  }
}

std::size_t ProblemArguments::bytes(std::size_t Arg) const {
  return static_cast<std::size_t>(Counts[Arg]) *
         spec::dtypeSize(P.Args[Arg].Type);
}

InputSet::InputSet(const ProblemArguments &Args) : Args(Args) {
  const spec::Problem &P = Args.problem();
  Buffers.resize(P.Args.size());
  for (std::size_t I = 0; I < P.Args.size(); ++I)
    if (P.Args[I].isInput())
      Buffers[I] = DeviceMemory(Args.bytes(I));
}

void InputSet::generate(std::uint64_t NewSeed, cudaStream_t Stream) {
  StageTimer Timer("inputs");
  const spec::Problem &P = Args.problem();
  Seed = NewSeed;
  for (std::size_t I = 0; I < P.Args.size(); ++I) {
    const Arg &A = P.Args[I];
    if (A.isInput())
      generateOnDevice(Buffers[I].data(), A.Type, distributionOf(A.Initializer),
                       codec::bufferKey(Seed, I), Args.count(I), Stream);
  }
}

void prepareArguments(ProblemArguments &Args, const InputSet &Inputs,
                      unsigned char Poison, cudaStream_t Stream) {
  const spec::Problem &P = Args.problem();
  for (std::size_t I = 0; I < P.Args.size(); ++I) {
    const Arg &A = P.Args[I];
    if (!A.isBuffer())
      continue;
    if (A.isInput())
      KOPT_CUDA(cudaMemcpyAsync(Args.buffer(I).data(), Inputs.data(I),
                                Args.bytes(I), cudaMemcpyDeviceToDevice,
                                Stream));
    else
      KOPT_CUDA(cudaMemsetAsync(Args.buffer(I).data(), Poison, Args.bytes(I),
                                Stream));
  }
  KOPT_CUDA(cudaStreamSynchronize(Stream));
}

} // namespace kopt::eval::device
