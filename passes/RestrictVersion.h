//===- RestrictVersion.h - restrict-const's run-time version -*- C++ -*-===//
//
// Where no launch proves a kernel's buffers distinct, restrict-const adds a
// copy of the kernel with every pointer __restrict__ and makes each launch
// choose between the copy and the original at run time:
//
//   if (kopt_distinct_allocations("rrw", (a), (b), (c)))
//     k_kopt_restrict<<<grid, block, shmem, s>>>(a, b, c, n);
//   else
//     k<<<grid, block, shmem, s>>>(a, b, c, n);   // as written
//
// kopt_distinct_allocations asks the driver (cuMemGetAddressRange) for the
// allocation each non-null pointer lies in and is true only when no pointer
// the kernel writes through ('w') lies in the same one as another pointer:
// distinct allocations never overlap, so nothing the copy writes through
// one pointer is reached through another, which is all `__restrict__`
// promises (pointers only read, 'r', may reach the same memory: PyTorch's
// caching allocator puts small tensors in one allocation). It is false when
// the driver cannot say (a host pointer, no context, a driver without the
// entry point): the original runs.
//
//===----------------------------------------------------------------------===//

#ifndef KOPT_PASSES_RESTRICTVERSION_H
#define KOPT_PASSES_RESTRICTVERSION_H

#include "kopt/Analysis/KernelInfo.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace kopt {

extern const char *const DistinctAllocationsHelperName;
/// Suffix of the __restrict__ copy's name.
extern const char *const RestrictCopySuffix;

/// The run-time check, as file-scope text (with the include it needs).
std::string distinctAllocationsHelper();

/// Kernel's definition (from `template <...>` on for a template's
/// instantiation) renamed with RestrictCopySuffix, with `__restrict__`
/// before each parameter of Restrict and `const` before the pointee of each
/// of Const; none when part of it is written in a macro.
std::optional<std::string>
restrictCopy(const clang::FunctionDecl *Kernel,
             llvm::ArrayRef<const clang::ParmVarDecl *> Restrict,
             llvm::ArrayRef<const clang::ParmVarDecl *> Const,
             clang::ASTContext &Ctx, llvm::StringRef Code);

/// A pointer argument the run-time check looks at: its index in the
/// launch's arguments (side-effect free) and whether the kernel may write
/// through it.
struct CheckedPointer {
  unsigned Arg;
  bool Written;
};

/// The statement replacing launch Call: the copy when no written argument
/// of Checked shares an allocation with another of them, the original
/// launch otherwise (in braces unless the launch is a statement of a
/// compound statement); the copy alone when fewer than two are checked.
/// The copy's launch keeps explicit template arguments after its name
/// (`k_kopt_restrict<float><<<...>>>`). None when the launch is written in
/// a macro.
std::optional<std::string>
versionedLaunch(const clang::CUDAKernelCallExpr *Call,
                llvm::ArrayRef<CheckedPointer> Checked, clang::ASTContext &HC);

/// Why launch L cannot be replaced by a statement that chooses between two
/// launches (host code, a statement of its own): "is not a <<<...>>> call
/// kopt can read", "is in device code" or "is part of a larger
/// expression"; empty when it can be.
std::string whyNotReplaceableLaunch(const LaunchSite &L, clang::ASTContext &HC);

} // namespace kopt

#endif // KOPT_PASSES_RESTRICTVERSION_H
