//===- KernelPlanner.h - What the legality planners share -------*- C++ -*-===//
//
// Private to the analysis library: the kernel and AST a legality planner
// (GridSplit.cpp, RowThreads.cpp) works on, and the two helpers every one of
// its refusals uses.
//
//===----------------------------------------------------------------------===//

#ifndef KOPT_LIB_ANALYSIS_KERNELPLANNER_H
#define KOPT_LIB_ANALYSIS_KERNELPLANNER_H

#include "kopt/Analysis/CudaAST.h"
#include "kopt/Analysis/KernelInfo.h"
#include "kopt/Analysis/Refusal.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Stmt.h"
#include "llvm/ADT/Twine.h"

#include <string>

namespace kopt {

class KernelPlanner {
protected:
  KernelPlanner(const KernelInfo &K, clang::ASTContext &Ctx) : K(K), Ctx(Ctx) {}

  /// A refusal at At, or at the kernel when At is null.
  Refusal refuse(const clang::Stmt *At, const llvm::Twine &Message) const {
    return {Message.str(), At ? lineCol(At->getBeginLoc(), Ctx) : K.Loc};
  }
  /// S's source on one line, for a remark; written in a macro (no source
  /// text of its own), S printed from the AST.
  std::string text(const clang::Stmt *S) const {
    return oneLine(sourceOrPrinted(S, Ctx));
  }

  const KernelInfo &K;
  clang::ASTContext &Ctx;
};

} // namespace kopt

#endif // KOPT_LIB_ANALYSIS_KERNELPLANNER_H
