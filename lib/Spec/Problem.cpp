//===- Problem.cpp - Derived quantities of a problem ----------------------===//
#include "kopt/Spec/Problem.h"
#include "kopt/Spec/SizeExpression.h"

namespace kopt::spec {

std::optional<std::int64_t> Shape::size(const std::string &Name) const {
  for (const auto &[Key, Value] : Sizes)
    if (Key == Name)
      return Value;
  return std::nullopt;
}

std::string Shape::describe() const {
  std::string Text;
  for (const auto &[Key, Value] : Sizes) {
    if (!Text.empty())
      Text += ", ";
    Text += Key + "=" + std::to_string(Value);
  }
  return Text;
}

bool Problem::hasStreamArg() const {
  for (const Arg &A : Args)
    if (A.isStream())
      return true;
  return false;
}

std::int64_t elementCount(const Arg &A, const Shape &S) {
  std::int64_t Count = 1;
  for (const Dim &D : A.Shape) {
    if (D.SizeName.empty()) {
      Count *= D.Literal;
      continue;
    }
    auto V = S.size(D.SizeName);
    if (!V)
      return 0;
    Count *= *V;
  }
  return Count;
}

std::optional<std::int64_t> checkedBufferBytes(const Arg &A, const Shape &S) {
  std::int64_t Count = 1;
  for (const Dim &D : A.Shape) {
    std::int64_t Extent = D.Literal;
    if (!D.SizeName.empty()) {
      auto V = S.size(D.SizeName);
      if (!V)
        return std::nullopt;
      Extent = *V;
    }
    if (Extent <= 0 || __builtin_mul_overflow(Count, Extent, &Count))
      return std::nullopt;
  }
  std::int64_t Bytes = 0;
  if (__builtin_mul_overflow(
          Count, static_cast<std::int64_t>(dtypeSize(A.Type)), &Bytes))
    return std::nullopt;
  return Bytes;
}

double scalarValue(const Arg &A, const Shape &S) {
  if (A.ValueSizeName.empty())
    return A.Value;
  auto V = S.size(A.ValueSizeName);
  return V ? static_cast<double>(*V) : 0.0;
}

double bytesMoved(const Problem &P, const Shape &S) {
  if (!P.BytesExpression.empty())
    return evaluateSizeExpression(P.BytesExpression, S).Value;
  double Bytes = 0.0;
  for (const Arg &A : P.Args) {
    if (!A.isBuffer())
      continue;
    double One = static_cast<double>(elementCount(A, S)) * dtypeSize(A.Type);
    Bytes += A.BufferIntent == Intent::InOut ? 2 * One : One;
  }
  return Bytes;
}

std::optional<double> flopCount(const Problem &P, const Shape &S) {
  if (P.FlopsExpression.empty())
    return std::nullopt;
  return evaluateSizeExpression(P.FlopsExpression, S).Value;
}

} // namespace kopt::spec
