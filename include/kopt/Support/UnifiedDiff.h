//===- UnifiedDiff.h - Line diffs in the unified format ---------*- C++ -*-===//
//
// Support: what every layer may use, built without LLVM (kopt-opt's --diff,
// kopt-search's report of the best candidate).
//
//===----------------------------------------------------------------------===//

#ifndef KOPT_SUPPORT_UNIFIEDDIFF_H
#define KOPT_SUPPORT_UNIFIEDDIFF_H

#include <string>
#include <string_view>

namespace kopt {

/// The unified diff (as `diff -u` prints it, Context lines around each
/// change) turning Old into New; empty if they are equal.
std::string unifiedDiff(std::string_view Old, std::string_view New,
                        std::string_view OldName, std::string_view NewName,
                        unsigned Context = 3);

} // namespace kopt

#endif // KOPT_SUPPORT_UNIFIEDDIFF_H
