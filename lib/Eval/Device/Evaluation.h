//===- Evaluation.h - Correctness and timing inside the child ---*- C++ -*-===//
//
// Internal to the worker. ProblemArguments owns one shape's device buffers
// and the argument array the shim reads; CorrectnessCheck and TimingRun use
// it; a Verdict ends the evaluation early with a status.
//
//===----------------------------------------------------------------------===//
#ifndef KOPT_LIB_EVAL_DEVICE_EVALUATION_H
#define KOPT_LIB_EVAL_DEVICE_EVALUATION_H

#include "DeviceSupport.h"

#include "kopt/Eval/Status.h"
#include "kopt/Eval/WorkerJob.h"
#include "kopt/Spec/Problem.h"

#include <nlohmann/json.hpp>

#include <memory>
#include <stdexcept>
#include <vector>

namespace kopt::eval::device {

/// Ends an evaluation with a status other than ok.
struct Verdict : std::runtime_error {
  Status VerdictStatus;
  std::string Rule;
  Verdict(Status S, std::string Message, std::string Rule = "")
      : std::runtime_error(std::move(Message)), VerdictStatus(S),
        Rule(std::move(Rule)) {}
};

/// A failure of the reference: a problem error, not the candidate's fault.
struct ReferenceFailure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Allocates one shape's buffers; running out of device memory there is the
/// problem's fault (its shapes are too large for this device), not the
/// candidate's: it becomes a ReferenceFailure.
class ProblemArguments;
std::unique_ptr<ProblemArguments> allocateArguments(const spec::Problem &P,
                                                    const spec::Shape &S,
                                                    const std::string &Where);

/// One shape's device buffers and the argument array for the shim.
class ProblemArguments {
public:
  ProblemArguments(const spec::Problem &P, const spec::Shape &S);

  const spec::Problem &problem() const { return P; }
  void *const *argv() const { return ArgPointers.data(); }
  GuardedBuffer &buffer(std::size_t Arg) { return Buffers[Arg]; }
  std::int64_t count(std::size_t Arg) const { return Counts[Arg]; }
  std::size_t bytes(std::size_t Arg) const;

private:
  const spec::Problem &P;
  std::vector<GuardedBuffer> Buffers; // indexed like P.Args
  std::vector<std::int64_t> Counts;
  std::vector<void *> DevicePointers; // buffer args
  std::vector<std::uint64_t> Scalars; // scalar args, 8 bytes each
  std::vector<void *> ArgPointers;
};

/// The seed of run 1 (and of its reference) for seed index \p K of shape
/// \p Shape in the correctness check, and the seed of run 2, whose inputs
/// no earlier call has seen. Timing uses seeds outside both ranges.
inline std::uint64_t firstRunSeed(const WorkerJob &Job, std::size_t Shape,
                                  int K) {
  return Job.SeedBase + Shape * 1000 + static_cast<std::uint64_t>(K);
}
inline std::uint64_t secondRunSeed(const WorkerJob &Job, std::size_t Shape,
                                   int K) {
  return Job.SeedBase + Shape * 1000 + 500 + static_cast<std::uint64_t>(K);
}

/// Runs the candidate before and after the reference over every shape and
/// seed; throws Verdict on the first failure. Fills \p Report.
/// Reference outputs the store (ReferenceStore.h) holds are read, not
/// recomputed.
class ReferenceStore;
void checkCorrectness(const spec::Problem &P, const WorkerJob &Job,
                      const Entry &Reference, const Entry &Candidate,
                      const ReferenceStore &Store, cudaStream_t Stream,
                      nlohmann::json &Report);

/// Interleaved A/B timing on the benchmark shape; fills \p Report.
void timeAgainstBaseline(const spec::Problem &P, const WorkerJob &Job,
                         const Entry &Reference, const Entry &Candidate,
                         cudaStream_t Stream, nlohmann::json &Report);

/// One seed's inputs, generated on the GPU (DeviceData.h) and kept there:
/// every run's argument buffers are filled from it, and after a run the
/// argument buffers of `in` inputs must still equal it.
class InputSet {
public:
  /// Allocates a buffer for each input of \p Args' shape.
  explicit InputSet(const ProblemArguments &Args);
  /// Draws the inputs of \p Seed (the host generator's bytes).
  void generate(std::uint64_t Seed, cudaStream_t Stream);
  const unsigned char *data(std::size_t Arg) const {
    return Buffers[Arg].data();
  }
  std::uint64_t seed() const { return Seed; }

private:
  const ProblemArguments &Args;
  std::vector<DeviceMemory> Buffers; // indexed like P.Args
  std::uint64_t Seed = 0;
};

/// Copies the inputs (and inout initial values) into the argument buffers
/// and poisons the outputs, on \p Stream; returns when it is done.
void prepareArguments(ProblemArguments &Args, const InputSet &Inputs,
                      unsigned char Poison, cudaStream_t Stream);

} // namespace kopt::eval::device

#endif // KOPT_LIB_EVAL_DEVICE_EVALUATION_H
