//===- WorkerResult.h - Whether a child's verdict can be trusted -*- C++
//-*-===//
//
// The parent reads an evaluation child's result file only after checking
// that the child ended cleanly (exit code 0), that the file echoes this
// evaluation's nonce (a file left by an earlier run in a reused work
// directory, or one written by someone else, carries another or none), that
// its status is a known one, and that an ok verdict carries what ok needs
// (correctness, and timing with samples unless timing was skipped).
//
//===----------------------------------------------------------------------===//
#ifndef KOPT_EVAL_WORKERRESULT_H
#define KOPT_EVAL_WORKERRESULT_H

#include "kopt/Eval/Process.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace kopt::eval {

struct WorkerResultCheck {
  bool Trusted = false;
  nlohmann::json Result; // the parsed result when trusted
  std::string Problem;   // why not, for a runtime-error message
};

/// Which child wrote the result: an evaluation (an ok one carries its
/// correctness report, and its timing unless timing was skipped) or the
/// reference cache's child (an ok one carries what it kept).
enum class WorkerKind { Evaluation, ReferenceCache };

/// \p ResultText is the result file's content (nullopt: no file).
WorkerResultCheck
checkWorkerResult(const std::optional<std::string> &ResultText,
                  const std::string &Nonce, const ProcessResult &End,
                  bool TimingExpected,
                  WorkerKind Kind = WorkerKind::Evaluation);

/// A fresh random nonce (32 hex digits).
std::string makeNonce();

/// The last \p MaxBytes of a file (all of it when shorter); empty if it
/// cannot be read. The worker log can be huge: only its tail is read.
std::string readFileTail(const std::string &Path, std::size_t MaxBytes);

} // namespace kopt::eval

#endif // KOPT_EVAL_WORKERRESULT_H
