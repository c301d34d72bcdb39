//===- Remark.h - What a pass did, and what it did not and why -*- C++ -*-===//

#ifndef KOPT_PASS_REMARK_H
#define KOPT_PASS_REMARK_H

#include "llvm/Support/JSON.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>
#include <vector>

namespace kopt {

struct Remark {
  enum Kind { Applied, Missed };
  Kind K = Applied;
  std::string Pass;
  std::string Function;
  std::string File;
  unsigned Line = 0, Col = 0;
  std::string Message;
  /// The pipeline step (0-based) that made it: a pipeline may run a pass
  /// twice, and kopt-opt --probe runs several instances side by side.
  unsigned Step = 0;
};

llvm::json::Value toJSON(const Remark &R);

/// Prints remarks the way clang prints -Rpass diagnostics:
///   file:line:col: remark: message [-Rpass=pass]
void printRemark(llvm::raw_ostream &OS, const Remark &R);

/// Which remarks go to stderr: -Rpass=REGEX and -Rpass-missed=REGEX match
/// pass names, as in clang.
struct RemarkFilter {
  std::optional<llvm::Regex> Applied;
  std::optional<llvm::Regex> Missed;
  bool matches(const Remark &R) const;
};

} // namespace kopt

#endif // KOPT_PASS_REMARK_H
