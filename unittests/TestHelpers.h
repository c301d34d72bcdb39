//===- TestHelpers.h - Small helpers for kopt's unit tests ------*- C++ -*-===//
//
// Debian ships LLVM's testing headers without libLLVMTestingSupport, so the
// few Error/Expected helpers the tests need live here.
//
//===----------------------------------------------------------------------===//

#ifndef KOPT_UNITTESTS_TESTHELPERS_H
#define KOPT_UNITTESTS_TESTHELPERS_H

#include "llvm/Support/Error.h"
#include "gtest/gtest.h"

#include <string>

namespace kopt {

/// The message of E, or "" for success.
inline std::string messageOf(llvm::Error E) {
  return E ? llvm::toString(std::move(E)) : std::string();
}

} // namespace kopt

#define KOPT_ASSERT_OK(E) ASSERT_EQ(::kopt::messageOf(E), "")

/// Asserts that an Expected holds a value, printing the error otherwise.
#define KOPT_ASSERT_VALUE(X)                                                   \
  ASSERT_TRUE(static_cast<bool>(X)) << ::kopt::messageOf((X).takeError())

#endif // KOPT_UNITTESTS_TESTHELPERS_H
