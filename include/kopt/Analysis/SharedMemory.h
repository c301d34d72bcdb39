//===- SharedMemory.h - The static shared memory of a kernel ----*- C++ -*-===//
//
// Passes that add __shared__ buffers (shared-cache, staged-loads, coalesce,
// tile-matmul) must keep a block within the static shared memory it may use
// without opting in to more.
//
//===----------------------------------------------------------------------===//

#ifndef KOPT_ANALYSIS_SHAREDMEMORY_H
#define KOPT_ANALYSIS_SHAREDMEMORY_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"

#include <cstdint>
#include <string>
#include <variant>

namespace kopt {

/// Static shared memory a block may use without opting in (48 KiB).
constexpr uint64_t StaticSharedLimit = 48 * 1024;

/// The bytes of the `__shared__` variables F and the functions it calls
/// declare, or why they cannot be counted (an extern or unsized array).
std::variant<uint64_t, std::string>
staticSharedBytes(const clang::FunctionDecl *F, clang::ASTContext &AC);

} // namespace kopt

#endif // KOPT_ANALYSIS_SHAREDMEMORY_H
