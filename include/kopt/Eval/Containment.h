//===- Containment.h - The parent's side of `run --contain` -----*- C++ -*-===//
//
// Before the evaluation child of a contained candidate starts, the parent
// (Capture.h):
// 1. hashes every file that child will read (problem, reference library,
//    candidate library), while no candidate code has run yet;
// 2. runs the capture child (`__capture`), the only process that loads the
//    candidate's host code, with its own directory as the one place it may
//    write (Confinement.h);
// 3. once it has ended, kills and reports every process it left behind
//    (this process is their subreaper: Process.h);
// 4. reads its report as untrusted input, and writes the checked capture
//    to a file of its own for the evaluation child.
//
//===----------------------------------------------------------------------===//
#ifndef KOPT_EVAL_CONTAINMENT_H
#define KOPT_EVAL_CONTAINMENT_H

#include "kopt/Eval/Process.h"
#include "kopt/Eval/Status.h"
#include "kopt/Eval/WorkerJob.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace kopt::eval {

struct CaptureVerdict {
  bool Ok = false;
  Status VerdictStatus = Status::RuntimeError; // when not ok
  std::string Rule;
  std::vector<std::string> Messages;
  /// For the record: the capture child's end, the confinement it had, the
  /// shapes and nodes it captured, and any processes it left behind.
  nlohmann::json Report = nlohmann::json::object();
};

/// Steps 1-4 for \p Job (ProblemPath, ReferenceLibrary and CandidateLibrary
/// set); \p Dir is a fresh directory for this candidate. On success
/// \p Job is ready for a contained evaluation child (Contained, CapturePath
/// and the hashes set).
CaptureVerdict captureCandidate(const std::string &WorkerExecutable,
                                WorkerJob &Job, const std::string &Dir,
                                ProcessOptions Run);

} // namespace kopt::eval

#endif // KOPT_EVAL_CONTAINMENT_H
