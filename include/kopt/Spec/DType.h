//===- DType.h - Element types of problem buffers and scalars ---*- C++ -*-===//
//
// The element types a problem.json may name. The evaluator moves data as raw
// bytes; a DType says how many bytes an element has and how to read it as a
// number when outputs are compared.
//
//===----------------------------------------------------------------------===//
#ifndef KOPT_SPEC_DTYPE_H
#define KOPT_SPEC_DTYPE_H

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace kopt::spec {

enum class DType {
  F64,
  F32,
  F16,
  BF16,
  FP8E4M3,
  FP8E5M2,
  I8,
  U8,
  I16,
  I32,
  I64,
  U32,
  U64,
};

/// Parses a dtype name as written in problem.json ("f32", "bf16", ...).
std::optional<DType> parseDType(std::string_view Name);

/// The name problem.json uses for \p T.
std::string_view dtypeName(DType T);

/// Every dtype name, comma separated, for error messages.
std::string knownDTypeNames();

/// Bytes per element. constexpr, so the evaluator's kernels use it too
/// (nvcc --expt-relaxed-constexpr).
constexpr std::size_t dtypeSize(DType T) {
  switch (T) {
  case DType::F64:
  case DType::I64:
  case DType::U64:
    return 8;
  case DType::F32:
  case DType::I32:
  case DType::U32:
    return 4;
  case DType::F16:
  case DType::BF16:
  case DType::I16:
    return 2;
  case DType::FP8E4M3:
  case DType::FP8E5M2:
  case DType::I8:
  case DType::U8:
    return 1;
  }
  return 1;
}

/// True for the floating-point types (they can hold NaN).
bool isFloating(DType T);

/// True for the signed integer types.
bool isSignedInteger(DType T);

} // namespace kopt::spec

#endif // KOPT_SPEC_DTYPE_H
