//===- CachedPointers.h - Pointers whose elements may be kept ---*- C++ -*-===//
//
// Whether the elements a kernel reads through a pointer hold one value for
// the whole kernel, so that a later loop may use what an earlier one read
// (register-cache, shared-cache, one-pass-variance; ReReadLoops.h): the
// pointer is a `__restrict__` parameter the kernel only reads, through
// `p[...]` or CUDA's load intrinsics (`__ldg(&p[i])`, `__ldcs(p + i)`), or
// a row pointer fixed to one (`const float *row = p + off;`,
// LocalPointers.h) when every use of the parameter and of its rows is such
// a read or a row's declaration. The restrict promise then says no object
// read through it is written during the kernel, by any pointer of any
// thread.
//
//===----------------------------------------------------------------------===//

#ifndef KOPT_ANALYSIS_CACHEDPOINTERS_H
#define KOPT_ANALYSIS_CACHEDPOINTERS_H

#include "kopt/Analysis/KernelInfo.h"

#include <string>

namespace kopt {

/// Why the kernel's reads through Base (the parameter P, or a row pointer
/// fixed to it) cannot be kept between loops, or "".
std::string whyNotCacheable(const clang::VarDecl *Base,
                            const clang::ParmVarDecl *P, const KernelInfo &K,
                            clang::ASTContext &AC);

} // namespace kopt

#endif // KOPT_ANALYSIS_CACHEDPOINTERS_H
