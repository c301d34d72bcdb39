//===- Sha256.h - SHA-256 of candidate sources ------------------*- C++ -*-===//
//
// Records name each candidate by the hash of its source, so results can be
// cached and compared across runs. Self-contained to keep the evaluator's
// dependencies to the CUDA toolkit and nlohmann/json.
//
//===----------------------------------------------------------------------===//
#ifndef KOPT_EVAL_SHA256_H
#define KOPT_EVAL_SHA256_H

#include <string>

namespace kopt::eval {

/// Lower-case hex SHA-256 of \p Data.
std::string sha256Hex(const std::string &Data);

} // namespace kopt::eval

#endif // KOPT_EVAL_SHA256_H
