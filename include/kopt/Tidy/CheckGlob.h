//===- CheckGlob.h - clang-tidy's check globs -------------------*- C++ -*-===//
//
// A comma-separated list of globs over check names, as clang-tidy's
// `--checks=`: `*` matches any run of characters, a leading `-` excludes,
// and the last glob that matches a name decides. Used for --checks,
// --warnings-as-errors and NOLINT(...) lists.
//
//===----------------------------------------------------------------------===//

#ifndef KOPT_TIDY_CHECKGLOB_H
#define KOPT_TIDY_CHECKGLOB_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Regex.h"

#include <string>
#include <vector>

namespace kopt {

class CheckGlob {
public:
  CheckGlob() = default;
  explicit CheckGlob(llvm::StringRef Text);

  /// True when the last glob matching Name is not negated.
  bool contains(llvm::StringRef Name) const;
  bool empty() const { return Items.empty(); }

private:
  struct Item {
    bool Negative;
    std::string Pattern; ///< anchored regex
  };
  std::vector<Item> Items;
};

} // namespace kopt

#endif // KOPT_TIDY_CHECKGLOB_H
