//===- DirectCalls.h - The candidate's own launcher, checked ----*- C++ -*-===//
//
// Internal to the capture child (CaptureWorker.cpp). Under containment the
// evaluation times and checks a replay of the captured graph; what the user
// will run is the candidate's launcher itself. So the capture child also
// calls the entry directly, not captured, on two sets of buffers (outputs
// that stay and outputs that move) and two sets of inputs, poisoned anew
// before every call, and checks every call's outputs against the
// reference's on the GPU by the problem's tolerances. A launcher that works
// only while captured, only on the first call for a buffer, only for
// pointers it has not seen, or skips calls after a count gives a wrong
// result here. Its inputs come from a seed of the capture job's own, so
// nothing learned here is an input of the evaluation that follows.
//
//===----------------------------------------------------------------------===//
#ifndef KOPT_LIB_EVAL_DEVICE_DIRECTCALLS_H
#define KOPT_LIB_EVAL_DEVICE_DIRECTCALLS_H

#include "Evaluation.h"
#include "ReferenceStore.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace kopt::eval::device {

class DirectCalls {
public:
  /// Draws the inputs and runs the reference on them (on \p X).
  DirectCalls(const spec::Problem &P, const WorkerJob &Job,
              std::size_t ShapeIndex, const Entry &Reference,
              const Entry &Candidate, ProblemArguments &X, ProblemArguments &Y,
              cudaStream_t Stream);

  /// Makes \p Count more checked calls, for at most \p Seconds once at
  /// least \p AtLeast were made; empty, or what the first wrong call gave.
  std::string run(int Count, int AtLeast, double Seconds);

  int calls() const { return Calls; }
  /// Each candidate call's [call, its stream drained] in CUPTI's clock
  /// (empty without CUPTI).
  const std::vector<std::pair<std::uint64_t, std::uint64_t>> &windows() const {
    return Windows;
  }

private:
  const spec::Problem &P;
  const WorkerJob &Job;
  std::size_t ShapeIndex;
  const Entry &Candidate;
  ProblemArguments &X, &Y;
  cudaStream_t Stream;
  InputSet A, B;
  DeviceOutputs ExpectedA, ExpectedB;
  int Calls = 0;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> Windows;

  std::string check(int Call);
};

} // namespace kopt::eval::device

#endif // KOPT_LIB_EVAL_DEVICE_DIRECTCALLS_H
