//===- Status.cpp - The verdicts of an evaluation -------------------------===//
#include "kopt/Eval/Status.h"

namespace kopt::eval {

std::string_view statusName(Status S) {
  switch (S) {
  case Status::Ok:
    return "ok";
  case Status::CompileError:
    return "compile-error";
  case Status::Rejected:
    return "rejected";
  case Status::WrongResult:
    return "wrong-result";
  case Status::RuntimeError:
    return "runtime-error";
  case Status::Timeout:
    return "timeout";
  }
  return "runtime-error";
}

std::optional<Status> parseStatus(std::string_view Name) {
  for (Status S : {Status::Ok, Status::CompileError, Status::Rejected,
                   Status::WrongResult, Status::RuntimeError, Status::Timeout})
    if (statusName(S) == Name)
      return S;
  return std::nullopt;
}

} // namespace kopt::eval
