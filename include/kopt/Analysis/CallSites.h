//===- CallSites.h - Who calls and refers to which function -----*- C++ -*-===//
//
// Call edges come from Clang's CallGraph; other references to a function
// (taking its address, passing it on) are found with a matcher, because a
// function whose address escapes may be called from anywhere.
//
//===----------------------------------------------------------------------===//

#ifndef KOPT_ANALYSIS_CALLSITES_H
#define KOPT_ANALYSIS_CALLSITES_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"

#include <map>
#include <vector>

namespace kopt {

/// One reference to a function in the main file's code.
struct FunctionUse {
  const clang::FunctionDecl *Caller = nullptr; ///< the function it is in
  const clang::DeclRefExpr *Ref = nullptr;
  const clang::CallExpr *Call = nullptr; ///< when Ref is a direct callee
};

struct FunctionUses {
  /// Function definitions of the main file (templates as written, not
  /// their instantiations), in source order.
  std::vector<const clang::FunctionDecl *> Definitions;
  /// Every reference to each function (by canonical declaration), in
  /// source order.
  std::map<const clang::FunctionDecl *, std::vector<FunctionUse>> Uses;
};

FunctionUses findFunctionUses(clang::ASTContext &Ctx);

} // namespace kopt

#endif // KOPT_ANALYSIS_CALLSITES_H
