//===- DeviceData.h - Inputs, comparisons and checks on the GPU -*- C++ -*-===//
//
// Internal to the worker. The evaluation's data never crosses to the host:
// inputs are generated on the GPU with the host's generator (ElementCodec.h),
// outputs are compared on the GPU with the host's rule, and only a summary
// (counts, the first mismatch) is copied back. Every function works on the
// stream it is given and returns after that stream has finished its work,
// so it never waits on the legacy default stream.
//
//===----------------------------------------------------------------------===//
#ifndef KOPT_LIB_EVAL_DEVICE_DEVICEDATA_H
#define KOPT_LIB_EVAL_DEVICE_DEVICEDATA_H

#include "kopt/Eval/ElementCodec.h"
#include "kopt/Eval/HostData.h"

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace kopt::eval::device {

/// Allocates the few bytes the functions below report through. Called once
/// when the worker starts, so no later call allocates (cudaMalloc may wait
/// for the device, and so for a held default stream).
void initDeviceData();

/// Fills \p Count elements of dtype \p T at \p Dst with the values the host
/// generator draws for \p Key (codec::bufferKey) from \p D.
void generateOnDevice(void *Dst, spec::DType T, const codec::Distribution &D,
                      std::uint64_t Key, std::int64_t Count,
                      cudaStream_t Stream);

/// compareOutputs (HostData.h) on device buffers.
ComparisonResult compareOnDevice(spec::DType T, const void *Got,
                                 const void *Expected, std::int64_t Count,
                                 spec::Tolerance Tol, bool IntegerTolerance,
                                 unsigned char PoisonByte, cudaStream_t Stream);

/// The index of the first byte where \p A and \p B differ; -1 if none.
std::int64_t firstDifferenceOnDevice(const void *A, const void *B,
                                     std::size_t Bytes, cudaStream_t Stream);

/// Elements of \p ElementBytes bytes that hold \p PoisonA in every byte of
/// \p A and \p PoisonB in every byte of \p B (written by neither run).
struct KeptPoison {
  std::int64_t Count = 0;
  std::int64_t First = -1;
};
KeptPoison keptPoisonOnDevice(const void *A, const void *B, std::int64_t Count,
                              int ElementBytes, unsigned char PoisonA,
                              unsigned char PoisonB, cudaStream_t Stream);

/// A 64-bit checksum of \p Bytes bytes at \p Data (each 8-byte word mixed
/// with its position): detects damaged cache entries.
std::uint64_t checksumOnDevice(const void *Data, std::size_t Bytes,
                               cudaStream_t Stream);

} // namespace kopt::eval::device

#endif // KOPT_LIB_EVAL_DEVICE_DEVICEDATA_H
