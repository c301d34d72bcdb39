//===- BlockGuard.h - A kernel's guard on its block's extents ---*- C++ -*-===//
//
// specialize-block reads blockDim as the constants every launch uses and
// makes the kernel trap when a launch ever runs another block:
//
//   if (blockDim.x != 256u || blockDim.y != 1u || blockDim.z != 1u)
//     __trap();
//
// as the first statement of its body. Passes that change a kernel's block
// (block-size, thread-utilization's fix) must not run on such a kernel: its
// code no longer reads blockDim. This recognizes the guard.
//
//===----------------------------------------------------------------------===//

#ifndef KOPT_ANALYSIS_BLOCKGUARD_H
#define KOPT_ANALYSIS_BLOCKGUARD_H

#include "kopt/Analysis/KernelInfo.h"

#include "clang/AST/Decl.h"

#include <optional>

namespace kopt {

/// The block Kernel's leading guard checks (all three extents must be
/// checked and the guard must only trap); none if its body does not start
/// with one.
std::optional<BlockExtents> findBlockGuard(const clang::FunctionDecl *Kernel);

} // namespace kopt

#endif // KOPT_ANALYSIS_BLOCKGUARD_H
