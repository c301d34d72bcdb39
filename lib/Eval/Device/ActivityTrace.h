//===- ActivityTrace.h - Kernels that ran in this process -------*- C++ -*-===//
//
// Internal to the capture child (CaptureWorker.cpp). The candidate's
// kernels may run there only inside one of its direct calls (from the call
// until the stream it was given has drained) and kopt's own on that stream
// (inputs, poison, comparisons, the reference); under capture nothing runs.
// Every other kernel, from a constructor, a private stream or thread left
// running, or during a capture, is work the judge was not given. CUPTI's
// activity records name each one. Built only where CUPTI was found
// (KOPT_EVAL_HAS_CUPTI).
//
//===----------------------------------------------------------------------===//
#ifndef KOPT_LIB_EVAL_DEVICE_ACTIVITYTRACE_H
#define KOPT_LIB_EVAL_DEVICE_ACTIVITYTRACE_H

#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace kopt::eval::device {

/// Starts recording kernel executions; false if CUPTI refuses.
bool startKernelTrace();

/// CUPTI's clock, which its records use.
std::uint64_t traceTimestamp();

/// [begin, end] in traceTimestamp's clock.
using TraceWindow = std::pair<std::uint64_t, std::uint64_t>;

/// Flushes CUPTI's buffers and returns one line per kernel that ran since
/// startKernelTrace neither on \p Own nor wholly inside one of \p Allowed
/// ("kernel 'spin' on stream 13, 2.000 ms"), at most \p Max lines.
std::vector<std::string> kernelsOutside(const std::vector<TraceWindow> &Allowed,
                                        cudaStream_t Own, std::size_t Max);

} // namespace kopt::eval::device

#endif // KOPT_LIB_EVAL_DEVICE_ACTIVITYTRACE_H
