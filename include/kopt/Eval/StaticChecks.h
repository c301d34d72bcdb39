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
//   baseline-interference, process-control, and run-time code loading as
//                    vendor-library: host APIs listed in
//                    lib/Eval/HostApiRules.h, decided by what the compiled
//                    library imports (ObjectRules.h); the source scan of
//                    their names is a second opinion (host-api-source)
// Source rules run on tokens (comments and strings cannot hide or fake a
// call), over the source as written and over its preprocessed form (nvcc -E,
// device and host passes), so macros, token pasting, line splices and
// local headers cannot hide a call; SASS rules catch the rest. When the
// SASS cannot be inspected (no cuobjdump) `run` rejects the candidate
// (rule sass-not-inspected) and `check` says so with a flag.
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
  int Line = 0;     // 0 when it comes from the SASS
  std::string File; // empty: the candidate itself
  /// A name in the source, not a call in the compiled code: a host API
  /// mentioned by name is decided by the compiled library's imports
  /// (ObjectRules.h); the source scan's finding is a note then (rule
  /// host-api-source), and rejects only where the library could not be
  /// inspected.
  bool SecondOpinion = false;
  /// Where a violation without a line was found ("SASS", "host object").
  std::string Origin;
};

/// Rules read off the candidate's source text.
std::vector<RuleViolation> checkSourceRules(const std::string &Source,
                                            const spec::Problem &P);

/// The source rules over preprocessed source (nvcc -E output), where macros,
/// token pasting, line splices, digraphs and the candidate's own headers are
/// resolved. Only lines of user files are scanned: files under
/// \p SystemDirs (the CUDA toolkit) or marked as system headers are not. A
/// vendor library header included directly from a user file is a
/// vendor-library violation. Violations carry their original file and line.
std::vector<RuleViolation>
checkPreprocessedRules(const std::string &Preprocessed, const spec::Problem &P,
                       const std::vector<std::string> &SystemDirs);

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
