//===- Nolint.h - NOLINT comments, as clang-tidy reads them -----*- C++ -*-===//
//
//   code;  // NOLINT                      every check, this line
//   code;  // NOLINT(kopt-unroll, kopt-vectorize-*)
//   // NOLINTNEXTLINE(kopt-launch-bounds) the line below
//   // NOLINTBEGIN(kopt-*) ... // NOLINTEND(kopt-*)   the lines between
//
// A bare NOLINT matches every check; a list matches by CheckGlob.
//
//===----------------------------------------------------------------------===//

#ifndef KOPT_TIDY_NOLINT_H
#define KOPT_TIDY_NOLINT_H

#include "kopt/Tidy/CheckGlob.h"

#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace kopt {

class NolintMap {
public:
  /// Reads the NOLINT comments of a source text.
  explicit NolintMap(llvm::StringRef Code);

  /// True when a comment suppresses Check's diagnostics on Line (1-based).
  bool suppresses(unsigned Line, llvm::StringRef Check) const;

  struct Problem {
    unsigned Line;
    std::string Message;
  };
  /// Each NOLINTBEGIN without its NOLINTEND, and the reverse.
  const std::vector<Problem> &problems() const { return Problems; }

private:
  struct Range {
    unsigned First, Last; ///< lines, inclusive
    CheckGlob Checks;
  };
  std::vector<Range> Ranges;
  std::vector<Problem> Problems;
};

} // namespace kopt

#endif // KOPT_TIDY_NOLINT_H
