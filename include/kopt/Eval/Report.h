//===- Report.h - JSON records and the human table --------------*- C++ -*-===//
#ifndef KOPT_EVAL_REPORT_H
#define KOPT_EVAL_REPORT_H

#include "kopt/Eval/Evaluator.h"

#include <nlohmann/json.hpp>

#include <ostream>

namespace kopt::eval {

/// The document `--json OUT` writes: tool, problem, devices, records.
nlohmann::json reportDocument(const spec::Problem &P,
                              const EvaluationOutcome &Outcome,
                              const std::string &Command);

/// One line per candidate: status, times, speedup with its interval,
/// bandwidth, registers; then each record's messages.
void printTable(const EvaluationOutcome &Outcome, std::ostream &OS);

} // namespace kopt::eval

#endif // KOPT_EVAL_REPORT_H
