//===- ProblemParser.h - Reads problem.json into a Problem ------*- C++ -*-===//
//
// Parsing checks the schema: required fields, types, known dtypes and
// distributions, size names that every shape defines. Each error names the
// field it is about ("args[2].buffer: unknown dtype 'f33' ..."). Checks that
// need the kernel source live in ProblemValidator.
//
//===----------------------------------------------------------------------===//
#ifndef KOPT_SPEC_PROBLEMPARSER_H
#define KOPT_SPEC_PROBLEMPARSER_H

#include "kopt/Spec/Problem.h"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace kopt::spec {

struct ProblemLoadResult {
  std::optional<Problem> Value; // set when Errors is empty
  std::vector<std::string> Errors;
  bool ok() const { return Errors.empty() && Value.has_value(); }
};

/// Parses problem.json text; \p SpecPath fixes the problem's directory.
ProblemLoadResult parseProblemJson(const std::string &Text,
                                   const std::filesystem::path &SpecPath);

/// Reads \p PathOrDir: a problem.json, or a directory holding one.
ProblemLoadResult loadProblemFile(const std::filesystem::path &PathOrDir);

} // namespace kopt::spec

#endif // KOPT_SPEC_PROBLEMPARSER_H
