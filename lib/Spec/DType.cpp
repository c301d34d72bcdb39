//===- DType.cpp - Element types of problem buffers and scalars -----------===//
#include "kopt/Spec/DType.h"

#include <array>
#include <utility>

namespace kopt::spec {

namespace {
constexpr std::array<std::pair<std::string_view, DType>, 13> DTypeNames = {{
    {"f64", DType::F64},
    {"f32", DType::F32},
    {"f16", DType::F16},
    {"bf16", DType::BF16},
    {"fp8e4m3", DType::FP8E4M3},
    {"fp8e5m2", DType::FP8E5M2},
    {"i8", DType::I8},
    {"u8", DType::U8},
    {"i16", DType::I16},
    {"i32", DType::I32},
    {"i64", DType::I64},
    {"u32", DType::U32},
    {"u64", DType::U64},
}};
} // namespace

std::optional<DType> parseDType(std::string_view Name) {
  for (const auto &[Text, T] : DTypeNames)
    if (Text == Name)
      return T;
  return std::nullopt;
}

std::string_view dtypeName(DType T) {
  for (const auto &[Text, Known] : DTypeNames)
    if (Known == T)
      return Text;
  return "?";
}

std::string knownDTypeNames() {
  std::string Names;
  for (const auto &[Text, T] : DTypeNames) {
    if (!Names.empty())
      Names += ", ";
    Names += Text;
  }
  return Names;
}

bool isFloating(DType T) {
  switch (T) {
  case DType::F64:
  case DType::F32:
  case DType::F16:
  case DType::BF16:
  case DType::FP8E4M3:
  case DType::FP8E5M2:
    return true;
  default:
    return false;
  }
}

bool isSignedInteger(DType T) {
  return T == DType::I8 || T == DType::I16 || T == DType::I32 ||
         T == DType::I64;
}

} // namespace kopt::spec
