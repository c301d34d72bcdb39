//===- FileCheckRule.h - A problem's FileCheck patterns over compiler output //
//
// problem.json's "filecheck" entries hold FileCheck patterns that a
// candidate's ptxas output or SASS must match (e.g. `CHECK-NOT: spill`). The
// patterns are matched by LLVM's FileCheck, run as a child process:
// kopt-filecheck (LLVM's FileCheck library, carried to GPU hosts) or LLVM's
// own FileCheck.
//
//===----------------------------------------------------------------------===//
#ifndef KOPT_EVAL_FILECHECKRULE_H
#define KOPT_EVAL_FILECHECKRULE_H

#include "kopt/Spec/Problem.h"

#include <filesystem>
#include <optional>
#include <string>

namespace kopt::eval {

/// $KOPT_FILECHECK; else kopt-filecheck beside this executable or on PATH;
/// else FileCheck or FileCheck-22 on PATH, or /usr/lib/llvm-22/bin/FileCheck.
/// Empty when there is none.
std::string findFileCheck();

/// "ptxas" or "sass".
const char *fileCheckInputName(spec::FileCheckSpec::Input Input);

/// Matches \p Text (written to \p InputFile) against the check file of
/// \p Check with \p Tool. Returns nothing when it matches, else why not
/// (FileCheck's diagnostics, or the reason it could not run).
std::optional<std::string> runFileCheck(const std::string &Tool,
                                        const spec::Problem &P,
                                        const spec::FileCheckSpec &Check,
                                        const std::string &Text,
                                        const std::filesystem::path &InputFile);

} // namespace kopt::eval

#endif // KOPT_EVAL_FILECHECKRULE_H
