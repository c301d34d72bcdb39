//===- UnifiedDiff.h - Line diffs in the unified format ---------*- C++ -*-===//

#ifndef KOPT_REWRITE_UNIFIEDDIFF_H
#define KOPT_REWRITE_UNIFIEDDIFF_H

#include "llvm/ADT/StringRef.h"

#include <string>

namespace kopt {

/// The unified diff (as `diff -u` prints it, Context lines around each
/// change) turning Old into New; empty if they are equal.
std::string unifiedDiff(llvm::StringRef Old, llvm::StringRef New,
                        llvm::StringRef OldName, llvm::StringRef NewName,
                        unsigned Context = 3);

} // namespace kopt

#endif // KOPT_REWRITE_UNIFIEDDIFF_H
