//===- Report.h - Findings as diagnostics and as exported fixes -*- C++ -*-===//

#ifndef KOPT_TIDY_REPORT_H
#define KOPT_TIDY_REPORT_H

#include "kopt/Tidy/CheckGlob.h"
#include "kopt/Tidy/FileChecker.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace kopt {

/// Prints F as a compiler does, with the source line and a caret:
///   file:line:col: warning: message [kopt-check]
/// AsError prints a warning as an error (--warnings-as-errors).
void printFinding(llvm::raw_ostream &OS, const Finding &F, llvm::StringRef Code,
                  bool AsError);

/// Findings as clang-tidy's --export-fixes YAML (what
/// clang-apply-replacements reads): warnings with their fix-its, notes as
/// remarks; warnings for which AsError says so are errors.
std::string exportFixesYaml(llvm::ArrayRef<Finding> Findings,
                            llvm::StringRef MainSourceFile,
                            llvm::StringRef BuildDirectory,
                            llvm::function_ref<bool(const Finding &)> AsError);

} // namespace kopt

#endif // KOPT_TIDY_REPORT_H
