//===- Signatures.h - The entry points a rewrite must keep ------*- C++ -*-===//
//
// A candidate must stay a drop-in replacement: the same kernels and host
// launchers with the same parameter types. Adding `const` to a pointee or
// `__restrict__` to a kernel pointer keeps the ABI and is allowed, and so
// is a new kernel (every existing entry point stays as it was).
//
//===----------------------------------------------------------------------===//

#ifndef KOPT_REWRITE_SIGNATURES_H
#define KOPT_REWRITE_SIGNATURES_H

#include "kopt/Analysis/KernelInfo.h"

#include <map>
#include <string>

namespace kopt {

/// "kernel NAME" / "launcher NAME" -> canonical parameter list.
using SignatureMap = std::map<std::string, std::string>;

SignatureMap entrySignatures(const ProgramInfo &Info);

/// A description of the first difference, or empty if none.
std::string describeSignatureChange(const SignatureMap &Before,
                                    const SignatureMap &After);

} // namespace kopt

#endif // KOPT_REWRITE_SIGNATURES_H
