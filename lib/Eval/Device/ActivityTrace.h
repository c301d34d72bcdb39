//===- ActivityTrace.h - Kernels that ran in this process -------*- C++ -*-===//
//
// Internal to the capture child (CaptureWorker.cpp). Under capture no work
// of the entry runs, so every kernel that does run in that process, from a
// constructor, a private stream, a thread or after the entry returned, is
// work the judge was not given. CUPTI's activity records name each one.
// Built only where CUPTI was found (KOPT_EVAL_HAS_CUPTI).
//
//===----------------------------------------------------------------------===//
#ifndef KOPT_LIB_EVAL_DEVICE_ACTIVITYTRACE_H
#define KOPT_LIB_EVAL_DEVICE_ACTIVITYTRACE_H

#include <string>
#include <vector>

namespace kopt::eval::device {

/// Starts recording kernel executions; false if CUPTI refuses.
bool startKernelTrace();

/// Flushes CUPTI's buffers and returns one line per kernel that ran since
/// startKernelTrace ("kernel 'spin' on stream 13, 2.000 ms"), at most
/// \p Max lines.
std::vector<std::string> kernelsThatRan(std::size_t Max);

} // namespace kopt::eval::device

#endif // KOPT_LIB_EVAL_DEVICE_ACTIVITYTRACE_H
