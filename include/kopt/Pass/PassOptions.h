//===- PassOptions.h - Typed, self-describing pass parameters ---*- C++ -*-===//
//
// A pass declares its parameters in passes/Passes.def: key, type, default,
// whether the value can change floating-point rounding, and the values a
// search tries. From that one table come the pipeline parser, the help text,
// kopt-search's parameter space and each pass's typed options struct.
//
//===----------------------------------------------------------------------===//

#ifndef KOPT_PASS_PASSOPTIONS_H
#define KOPT_PASS_PASSOPTIONS_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kopt {

enum class ParamType { Bool, UInt, AutoUInt, String };

llvm::StringRef paramTypeName(ParamType T);

/// What a parameter's value can change besides speed.
enum class ParamEffect {
  Exact,    ///< every value computes bit-identical results
  Rounding, ///< some values reorder floating-point operations
  Precision ///< some values compute with fewer bits (tf32 operands)
};

/// The C++ type a parameter of type T has in a pass's options struct.
template <ParamType T> struct ParamCType;
template <> struct ParamCType<ParamType::Bool> {
  using type = bool;
};
template <> struct ParamCType<ParamType::UInt> {
  using type = uint64_t;
};
/// std::nullopt means "auto".
template <> struct ParamCType<ParamType::AutoUInt> {
  using type = std::optional<uint64_t>;
};
template <> struct ParamCType<ParamType::String> {
  using type = std::string;
};

struct ParamSpec {
  llvm::StringRef Key;
  ParamType Type;
  llvm::StringRef Default;
  ParamEffect Effect = ParamEffect::Exact;
  /// Comma-separated values a search tries; empty keeps the default.
  llvm::StringRef Search;
  llvm::StringRef Help;

  llvm::SmallVector<llvm::StringRef, 8> searchValues() const;
};

/// A parameter's value, of its spec's type.
struct ParamValue {
  bool Bool = false;
  uint64_t UInt = 0;
  bool IsAuto = false; ///< for AutoUInt
  std::string String;

  /// The value as the user writes it.
  std::string str(ParamType T) const;
};

/// Parses Text as a value of type T; returns an error message on failure.
llvm::Expected<ParamValue> parseParamValue(ParamType T, llvm::StringRef Text);

struct PassSpec;

/// One pass of a pipeline with all its parameters set.
class PassInstance {
public:
  PassInstance(const PassSpec &Spec, std::vector<ParamValue> Values)
      : Spec(&Spec), Values(std::move(Values)) {}

  const PassSpec &spec() const { return *Spec; }
  llvm::StringRef name() const;

  /// The value of Key as its C++ type (the generated options structs read
  /// their fields through this).
  template <ParamType T>
  typename ParamCType<T>::type get(llvm::StringRef Key) const;

  /// `name{key=value,...}` with every parameter.
  std::string str() const;

private:
  const ParamValue &value(llvm::StringRef Key) const;

  const PassSpec *Spec;
  std::vector<ParamValue> Values; ///< in the order of Spec->Params
};

template <>
inline bool PassInstance::get<ParamType::Bool>(llvm::StringRef Key) const {
  return value(Key).Bool;
}
template <>
inline uint64_t PassInstance::get<ParamType::UInt>(llvm::StringRef Key) const {
  return value(Key).UInt;
}
template <>
inline std::optional<uint64_t>
PassInstance::get<ParamType::AutoUInt>(llvm::StringRef Key) const {
  const ParamValue &V = value(Key);
  return V.IsAuto ? std::nullopt : std::optional<uint64_t>(V.UInt);
}
template <>
inline std::string
PassInstance::get<ParamType::String>(llvm::StringRef Key) const {
  return value(Key).String;
}

} // namespace kopt

#endif // KOPT_PASS_PASSOPTIONS_H
