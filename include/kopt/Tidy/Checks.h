//===- Checks.h - kopt's passes as lint checks ------------------*- C++ -*-===//
//
// Every pass of a registry is a check named `kopt-<pass>`. A check's options
// are its pass's typed parameters with CamelCase names (the parameter
// `min-blocks` of launch-bounds is `kopt-launch-bounds.MinBlocks`); values
// are written as in a pipeline and checked the same way.
//
//===----------------------------------------------------------------------===//

#ifndef KOPT_TIDY_CHECKS_H
#define KOPT_TIDY_CHECKS_H

#include "kopt/Pass/PassOptions.h"
#include "kopt/Pass/PassRegistry.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <functional>
#include <map>
#include <optional>
#include <string>

namespace kopt {

inline constexpr llvm::StringLiteral CheckPrefix = "kopt-";

/// `kopt-<pass>`.
std::string checkName(const PassSpec &Spec);

/// The pass a check name stands for, or null.
const PassSpec *passForCheck(const PassRegistry &Registry,
                             llvm::StringRef Check);

/// A parameter key as a check option name: `min-blocks` -> `MinBlocks`.
std::string optionName(llvm::StringRef ParamKey);

/// A check option's default: its pass parameter's, except where a lint
/// should propose less than -O rewrites (restrict-const's Version is false).
llvm::StringRef checkDefault(const PassSpec &Spec, const ParamSpec &P);

/// Looks a check's option up by its local name; nullopt: not set.
using OptionLookup =
    std::function<std::optional<std::string>(llvm::StringRef LocalName)>;

/// The pass instance a check runs: its parameters from Lookup, defaults for
/// the rest. Fails on a value its parameter's type does not accept.
llvm::Expected<PassInstance> checkInstance(const PassSpec &Spec,
                                           const OptionLookup &Lookup);

/// Checks that every key of a CheckOptions table names a kopt check and
/// one of its options (keys of other tools' checks, without the kopt-
/// prefix, are left alone).
llvm::Error
validateCheckOptions(const PassRegistry &Registry,
                     const std::map<std::string, std::string> &Options);

} // namespace kopt

#endif // KOPT_TIDY_CHECKS_H
