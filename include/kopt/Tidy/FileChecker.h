//===- FileChecker.h - One file's findings and fix-its ----------*- C++ -*-===//
//
// Runs passes as checks over one parsed file. Each pass runs on the file as
// written (not on another pass's output, as in a pipeline). Its applied
// remarks become warnings and its missed remarks notes; its edits become the
// fix-its of its warnings, each edit owned by the warning of the kernel it
// lies in or launches (other edits by the pass's first warning). Diagnostics a
// NOLINT comment suppresses are dropped with their edits, and a fix-it is
// offered only if the file with all of the pass's remaining edits still parses
// and keeps its kernels' and launchers' signatures.
//
//===----------------------------------------------------------------------===//

#ifndef KOPT_TIDY_FILECHECKER_H
#define KOPT_TIDY_FILECHECKER_H

#include "kopt/Analysis/KernelInfo.h"
#include "kopt/Frontend/CudaFrontend.h"
#include "kopt/Pass/PassOptions.h"
#include "kopt/Pass/ResourceEstimator.h"
#include "kopt/Rewrite/Signatures.h"
#include "kopt/Tidy/Nolint.h"

#include "clang/Tooling/Core/Replacement.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace kopt {

struct Finding {
  enum Level { Warning, Note };
  std::string Check;
  Level Severity = Warning;
  /// A note of a missed remark (printed only when asked for), not one
  /// about a warning (a fix-it left out).
  bool Missed = false;
  std::string File;
  unsigned Offset = 0; ///< into the file's text
  unsigned Line = 1, Col = 1;
  std::string Message;
  /// The verified edits this warning carries; empty when it has none.
  clang::tooling::Replacements Fix;
};

struct CheckRequest {
  std::string Check; ///< kopt-<pass>
  PassInstance Pass;
};

/// What fix() wrote, and the checks whose fix-its it had to leave out.
struct FixResult {
  std::string Code;
  unsigned Applied = 0;             ///< edits applied
  std::vector<std::string> Refused; ///< "kopt-x: why", one per check
  std::vector<std::string> Kept;    ///< the checks whose edits were applied
};

class FileChecker {
public:
  /// Parses Code (the text of Path). Fails with the parse's ParseError.
  static llvm::Expected<std::unique_ptr<FileChecker>>
  parse(const CudaFrontend &Frontend, llvm::StringRef Path,
        llvm::StringRef Code);

  /// Runs each request's pass and returns the findings in file order.
  /// Call once: verification re-parses the file's ASTs in place.
  std::vector<Finding> run(llvm::ArrayRef<CheckRequest> Requests,
                           ResourceEstimator *Estimator = nullptr);

  /// Applies Findings' fix-its to the file, one check at a time, keeping a
  /// check's edits only when they merge with those already kept and the
  /// text with them still parses and keeps its signatures. After run().
  FixResult fix(llvm::ArrayRef<Finding> Findings);

  const NolintMap &nolint() const { return Nolint; }
  const std::string &path() const { return Source.Path; }
  const std::string &code() const { return Original; }

private:
  FileChecker(const CudaFrontend &Frontend, ParsedSource Source);

  /// The findings of one pass, NOLINT applied, with unverified fix-its.
  std::vector<Finding> runPass(const CheckRequest &R,
                               ResourceEstimator *Estimator);
  /// Why Code is refused; "" when it parses and keeps the signatures.
  /// Remembers each text's answer.
  std::string verify(llvm::StringRef Code);
  /// verify() of the original text with Edits applied.
  std::string verifyEdits(const clang::tooling::Replacements &Edits);

  const CudaFrontend &Frontend;
  ParsedSource Source;
  std::string Original;
  ProgramInfo Info;
  SignatureMap Signatures;
  NolintMap Nolint;
  std::map<std::string, std::string> Verified;
};

} // namespace kopt

#endif // KOPT_TIDY_FILECHECKER_H
