//===- Refusal.h - Why a rewrite is not made --------------------*- C++ -*-===//

#ifndef KOPT_ANALYSIS_REFUSAL_H
#define KOPT_ANALYSIS_REFUSAL_H

#include "kopt/Analysis/CudaAST.h"

#include <string>
#include <variant>

namespace kopt {

/// Why a rewrite is not made, and where: the analysis's legality answers
/// carry one, and a pass turns it into a missed remark.
struct Refusal {
  std::string Message;
  LineCol Loc;
};

/// A legality decision: the plan of a rewrite, or why there is none.
template <typename PlanT> using Decision = std::variant<PlanT, Refusal>;

} // namespace kopt

#endif // KOPT_ANALYSIS_REFUSAL_H
