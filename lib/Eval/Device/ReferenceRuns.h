//===- ReferenceRuns.h - Running the reference, keeping its outputs -*- C++
//-*-//
//
// Internal to the worker: the reference's runs of the correctness check,
// shared by the candidate's child and the reference child.
//
//===----------------------------------------------------------------------===//
#ifndef KOPT_LIB_EVAL_DEVICE_REFERENCERUNS_H
#define KOPT_LIB_EVAL_DEVICE_REFERENCERUNS_H

#include "ReferenceStore.h"

namespace kopt::eval::device {

/// Runs the reference on \p In with its outputs poisoned with \p Poison and
/// copies them into \p Into; returns the call's wall milliseconds. A CUDA
/// failure is a ReferenceFailure.
double runReference(const Entry &Reference, ProblemArguments &Args,
                    const InputSet &In, unsigned char Poison,
                    DeviceOutputs &Into, cudaStream_t Stream);

/// Runs the reference again under the second poison (into \p Scratch): an
/// `out` element that kept both poisons is never written, a problem error
/// (ReferenceFailure) naming the output.
void checkReferenceWritesAll(const Entry &Reference, ProblemArguments &Args,
                             const InputSet &In,
                             const DeviceOutputs &UnderFirstPoison,
                             DeviceOutputs &Scratch, const std::string &Where,
                             cudaStream_t Stream);

/// The reference child: the reference's outputs for every shape and seed of
/// the correctness check, kept in \p Store as its policy says, and the
/// manifest saved. Fills \p Report with what was kept.
void recordReferences(const spec::Problem &P, const WorkerJob &Job,
                      const Entry &Reference, ReferenceStore &Store,
                      cudaStream_t Stream, nlohmann::json &Report);

} // namespace kopt::eval::device

#endif // KOPT_LIB_EVAL_DEVICE_REFERENCERUNS_H
