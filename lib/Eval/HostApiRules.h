//===- HostApiRules.h - Host calls that reach past the candidate -*- C++
//-*-===//
//
// Static rules over a candidate's tokens for host APIs with which its code
// could act outside its own work (docs/evaluator.md, "containment"):
//
//   baseline-interference  L2 persistence and access-policy windows, device
//                          limits, cache and shared-memory configuration,
//                          device flags, reset and selection, memory-pool
//                          settings, private driver contexts, NVML (clocks,
//                          power)
//   process-control        processes, threads, signals, tracing, page
//                          protection (GOT patching), library constructors
//   vendor-library         code loaded or compiled at run time through the
//                          CUDA APIs (module and library loading, driver
//                          entry points, NVRTC, nvJitLink)
//
//===----------------------------------------------------------------------===//
#ifndef KOPT_LIB_EVAL_HOSTAPIRULES_H
#define KOPT_LIB_EVAL_HOSTAPIRULES_H

#include "kopt/Eval/StaticChecks.h"
#include "kopt/Spec/SourceTokenizer.h"

#include <optional>
#include <vector>

namespace kopt::eval {

/// The rule a call of the host function \p Name (or its address taken)
/// breaks, if any: processes and threads, baseline interference, code loaded
/// at run time, host clocks. The compiled object's imports are checked
/// against it (ObjectRules.h); the source scan uses the same lists as a
/// second opinion. Driver entry-point lookups are not in it: whether one
/// is allowed depends on the name looked up.
std::optional<RuleViolation> hostCallViolation(const std::string &Name);

/// The vendor library (cublas, cudnn, ...) a host symbol belongs to, or
/// empty.
std::string libraryOfSymbol(const std::string &Name);

/// A driver entry-point lookup (cudaGetDriverEntryPoint*, cuGetProcAddress*):
/// allowed or not by the name it looks up.
bool isDriverLookup(const std::string &Name);

/// A driver query that only reads what the driver knows of a pointer, which
/// a driver entry-point lookup may name (restrict-const's run-time check
/// looks up cuMemGetAddressRange).
bool isPointerQuery(const std::string &Name);

/// The violation identifier Tokens[I] commits, if any.
std::optional<RuleViolation>
checkHostApiToken(const std::vector<spec::Token> &Tokens, std::size_t I);

} // namespace kopt::eval

#endif // KOPT_LIB_EVAL_HOSTAPIRULES_H
