//===- ProblemArguments.cpp - One shape's buffers and argument array ------===//
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

std::vector<std::vector<unsigned char>> generateInputs(const spec::Problem &P,
                                                       const spec::Shape &S,
                                                       std::uint64_t Seed) {
  std::vector<std::vector<unsigned char>> Inputs(P.Args.size());
  for (std::size_t I = 0; I < P.Args.size(); ++I) {
    const Arg &A = P.Args[I];
    if (A.isInput())
      Inputs[I] = generateBuffer(A, spec::elementCount(A, S), Seed, I);
  }
  return Inputs;
}

void prepareArguments(ProblemArguments &Args,
                      const std::vector<std::vector<unsigned char>> &Inputs,
                      unsigned char Poison, cudaStream_t Stream) {
  const spec::Problem &P = Args.problem();
  for (std::size_t I = 0; I < P.Args.size(); ++I) {
    const Arg &A = P.Args[I];
    if (!A.isBuffer())
      continue;
    if (A.isInput())
      KOPT_CUDA(cudaMemcpyAsync(Args.buffer(I).data(), Inputs[I].data(),
                                Args.bytes(I), cudaMemcpyHostToDevice, Stream));
    else
      KOPT_CUDA(cudaMemsetAsync(Args.buffer(I).data(), Poison, Args.bytes(I),
                                Stream));
  }
  KOPT_CUDA(cudaStreamSynchronize(Stream));
}

} // namespace kopt::eval::device
