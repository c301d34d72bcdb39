//===- SizeExpression.h - Arithmetic over shape sizes -----------*- C++ -*-===//
//
// problem.json states bytes and flops as expressions over the shape's sizes
// ("12 * n", "2*m*n*k"): numbers, size names, + - * / and parentheses.
//
//===----------------------------------------------------------------------===//
#ifndef KOPT_SPEC_SIZEEXPRESSION_H
#define KOPT_SPEC_SIZEEXPRESSION_H

#include "kopt/Spec/Problem.h"

#include <string>
#include <vector>

namespace kopt::spec {

struct SizeExpressionResult {
  double Value = 0.0;
  std::string Error; // empty on success
};

/// Evaluates \p Text with the sizes of \p S.
SizeExpressionResult evaluateSizeExpression(const std::string &Text,
                                            const Shape &S);

} // namespace kopt::spec

#endif // KOPT_SPEC_SIZEEXPRESSION_H
