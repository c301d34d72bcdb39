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

/// The violation identifier Tokens[I] commits, if any.
std::optional<RuleViolation>
checkHostApiToken(const std::vector<spec::Token> &Tokens, std::size_t I);

} // namespace kopt::eval

#endif // KOPT_LIB_EVAL_HOSTAPIRULES_H
