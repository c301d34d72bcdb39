//===- Status.h - The verdicts of an evaluation -----------------*- C++ -*-===//
#ifndef KOPT_EVAL_STATUS_H
#define KOPT_EVAL_STATUS_H

#include <optional>
#include <string_view>

namespace kopt::eval {

/// One verdict per candidate, in the order an evaluation can reach them.
enum class Status {
  Ok,
  CompileError,
  Rejected,     // a static or launch rule; the record names the rule
  WrongResult,  // outputs differ, an input changed, or an output was unwritten
  RuntimeError, // a CUDA error, a fault, a crash, or an out-of-bounds write
  Timeout,      // the child process ran past its wall-clock limit
};

std::string_view statusName(Status S);
std::optional<Status> parseStatus(std::string_view Name);

} // namespace kopt::eval

#endif // KOPT_EVAL_STATUS_H
