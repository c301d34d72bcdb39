//===- Names.h - Names a rewrite may not reuse ------------------*- C++ -*-===//

#ifndef KOPT_ANALYSIS_NAMES_H
#define KOPT_ANALYSIS_NAMES_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"

#include <set>
#include <string>

namespace kopt {

/// Every name F's parameters and body declare or refer to.
std::set<std::string> namesUsedIn(const clang::FunctionDecl *F,
                                  clang::ASTContext &Ctx);

/// Want, or Want_2, Want_3, ... : the first not in Used, which it joins.
std::string freshName(std::set<std::string> &Used, const std::string &Want);

} // namespace kopt

#endif // KOPT_ANALYSIS_NAMES_H
