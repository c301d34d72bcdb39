//===- CoalescedKernelText.h - The text coalesce writes --------*- C++ -*-===//
//
// coalesce's analysis (Coalesce.cpp) decides that a kernel's strided store
// may be staged through shared memory; these functions write the code: the
// kernel's new body when one block does the work of one block, and for
// rows-per-thread / cols-per-thread above 1 the copy `<kernel>_kopt_coalesced`
// (declaration, body) and the launches that run it. The file comment of
// Coalesce.cpp says what the code does and why it is safe.
//
//===----------------------------------------------------------------------===//

#ifndef KOPT_PASSES_COALESCEDKERNELTEXT_H
#define KOPT_PASSES_COALESCEDKERNELTEXT_H

#include "kopt/Analysis/KernelInfo.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "clang/AST/Stmt.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>

namespace kopt {

/// Shared-memory tile elements of a copy that is not written for one block
/// (at least; it holds R blocks of every launch whose block it knows too):
/// blockDim.y * (blockDim.x + pad) is at most 1024 + 1024 for any block of
/// at most 1024 threads.
constexpr unsigned TileCapacity = 2048;

/// The body's parts, once its shape is recognized.
struct Shape {
  const clang::BinaryOperator *Store = nullptr;
  const clang::ArraySubscriptExpr *Target = nullptr;
  const clang::ArraySubscriptExpr *Load = nullptr;
};

/// The block every launch of a kernel runs, when they all run one constant
/// block one deep.
struct FixedBlock {
  uint64_t X = 0, Y = 0;
};

/// How many of the original blocks a block of the copy covers: Rows along
/// y (rows-per-thread), Cols along x (cols-per-thread).
struct Fold {
  unsigned Rows = 1, Cols = 1;
  std::string str() const {
    return "rows-per-thread=" + std::to_string(Rows) +
           (Cols > 1 ? ", cols-per-thread=" + std::to_string(Cols) : "");
  }
};

/// Rows of a tile holding R blocks of Y rows, and their pitch for blocks
/// X wide: padded so that a column's elements fall in distinct banks.
uint64_t tileRows(uint64_t R, uint64_t Y);
uint64_t tilePitch(uint64_t R, uint64_t X, uint64_t Y);

/// The kernel's new body, staged through a tile of TileCapacity elements
/// (the original body runs for blocks it does not hold), or none when part
/// of it is written in a macro.
std::optional<std::string> stagedBody(const clang::FunctionDecl *Kernel,
                                      const clang::CompoundStmt *Body,
                                      const Shape &Sh, clang::QualType Elem,
                                      clang::ASTContext &Ctx,
                                      llvm::StringRef Code);

/// The kernel's declaration up to its body, renamed, with the original
/// grid's y extent (and x extent before it, with \p GridX) as new last
/// parameters.
std::optional<std::string> coarsenedDecl(const clang::FunctionDecl *Kernel,
                                         bool GridX, clang::ASTContext &Ctx,
                                         llvm::StringRef Code);

/// The copy's body. With \p Fixed, written for the one block every launch
/// runs: constant extents, a tile of the size it needs, and only the
/// phase-2 path that block takes; otherwise a tile of \p Capacity elements,
/// and the original body for blocks it does not hold.
std::optional<std::string>
coarsenedBody(const clang::FunctionDecl *Kernel,
              const clang::CompoundStmt *Body, const Shape &Sh,
              clang::QualType Elem, Fold F, std::optional<FixedBlock> Fixed,
              uint64_t Capacity, clang::ASTContext &Ctx, llvm::StringRef Code);

/// A launch of the kernel, made a launch of its coarsened copy.
std::optional<std::string> coarsenedLaunch(const LaunchSite &L, Fold F,
                                           clang::ASTContext &HC);

} // namespace kopt

#endif // KOPT_PASSES_COALESCEDKERNELTEXT_H
