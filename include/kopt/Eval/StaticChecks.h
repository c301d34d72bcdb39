//===- StaticChecks.h - Rules a candidate must pass before it runs -*- C++
//-*-=//
//
// Each rule has a kebab-case name that a rejection reports:
//   vendor-library   cuBLAS, cuDNN, cuFFT, cuSPARSE, cuSOLVER, cuRAND host
//                    API, CUTLASS/CuTe, thrust, CUB device-wide algorithms,
//                    PyTorch, or dlopen (unless problem.json allows them)
//   timer-read       clock(), clock64(), %clock/%globaltimer in inline PTX,
//                    or SR_CLOCK*/SR_GLOBALTIMER* read in the SASS
//   device-printf    printf in __global__/__device__ code, or vprintf in SASS
//   entry-signature  the entry is missing or its parameters changed
// Source rules run on tokens (comments and strings cannot hide or fake a
// call); SASS rules catch what macros or headers hid from the source scan.
//
//===----------------------------------------------------------------------===//
#ifndef KOPT_EVAL_STATICCHECKS_H
#define KOPT_EVAL_STATICCHECKS_H

#include "kopt/Spec/EntrySignature.h"
#include "kopt/Spec/Problem.h"

#include <string>
#include <vector>

namespace kopt::eval {

struct RuleViolation {
  std::string Rule;
  std::string Message;
  int Line = 0; // 0 when it comes from the SASS
};

/// Rules read off the candidate's source text.
std::vector<RuleViolation> checkSourceRules(const std::string &Source,
                                            const spec::Problem &P);

/// Rules read off the compiled code's SASS.
std::vector<RuleViolation> checkSassRules(const std::string &Sass,
                                          const spec::Problem &P);

/// The candidate's entry must exist and have the reference's parameters.
std::vector<RuleViolation>
checkEntrySignatureRule(const std::string &CandidateSource,
                        const spec::EntrySignature &Reference,
                        const spec::Problem &P);

/// "file:line: [rule] message".
std::string describeViolation(const RuleViolation &V, const std::string &File);

} // namespace kopt::eval

#endif // KOPT_EVAL_STATICCHECKS_H
