//===- BodyHazards.h - What ties a loop body to its thread ------*- C++ -*-===//
//
// Rewrites that change which thread runs which iteration, or how many
// iterations a thread runs, must not see a body that leaves its loop early,
// waits for the block, talks to its warp or reads its own thread index.
// This finds the first such construct, in source order, for the kinds a
// pass cares about; the pass words the remark.
//
//===----------------------------------------------------------------------===//

#ifndef KOPT_ANALYSIS_BODYHAZARDS_H
#define KOPT_ANALYSIS_BODYHAZARDS_H

#include "kopt/Analysis/CudaAST.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "clang/AST/Stmt.h"
#include "llvm/ADT/ArrayRef.h"

#include <optional>
#include <string>

namespace kopt {

struct BodyHazard {
  enum Kind {
    Return,
    Goto,
    Label,
    Break,          ///< a break that leaves the body's own loop
    Continue,       ///< a continue of the body's own loop
    Barrier,        ///< __syncthreads and its variants
    WarpCollective, ///< __shfl*, __syncwarp, __ballot*, vote and match
    ThreadIndex,    ///< threadIdx, blockIdx, blockDim or gridDim
    ReservedName    ///< a name starting with the reserved prefix
  };
  Kind K;
  const clang::Stmt *At = nullptr;
  std::string Name; ///< the collective, builtin or reserved name
};

/// The first construct of one of Kinds in Body, a loop's body (or a region
/// run once per element); std::nullopt when there is none. The built-ins
/// in Harmless (the same for every thread that may run the code) are no
/// ThreadIndex hazard.
std::optional<BodyHazard> firstHazard(const clang::Stmt *Body,
                                      clang::ASTContext &Ctx,
                                      llvm::ArrayRef<BodyHazard::Kind> Kinds,
                                      llvm::StringRef ReservedPrefix = "",
                                      llvm::ArrayRef<BuiltinVar> Harmless = {});

/// What a call may do beyond computing its value from its operands.
struct CallHazard {
  enum Kind {
    Launch,     ///< a kernel launch
    Unanalyzed, ///< a function outside CUDA's and the C library's headers
                ///< that is not a proven-pure helper of values
    Effects     ///< memory or ordering effects: a pointer argument (other
                ///< than a read-only load's), a pointer result, atomics,
                ///< clock, printf, trap, malloc, free, nanosleep
  };
  Kind K;
  std::string Name; ///< the callee as written
};

/// CUDA's loads that take a pointer and only read through it (__ldg,
/// __ldca, __ldcg, __ldcs, __ldlu, __ldcv).
bool isReadOnlyLoad(llvm::StringRef Name);

/// Why C is not a pure function of its operands as far as kopt can tell;
/// std::nullopt when it is.
std::optional<CallHazard> callHazard(const clang::CallExpr *C,
                                     clang::ASTContext &Ctx);

} // namespace kopt

#endif // KOPT_ANALYSIS_BODYHAZARDS_H
