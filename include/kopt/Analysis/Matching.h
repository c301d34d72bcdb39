//===- Matching.h - Run AST matchers over the main file ---------*- C++ -*-===//
//
// `match(findAll(M), *TU, Ctx)` does not descend into function bodies of an
// ASTUnit parsed with a preamble; MatchFinder::matchAST (what clang-tidy
// runs) does. These helpers run it over the main file's declarations and
// collect the bound nodes.
//
//===----------------------------------------------------------------------===//

#ifndef KOPT_ANALYSIS_MATCHING_H
#define KOPT_ANALYSIS_MATCHING_H

#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/ASTMatchers/ASTMatchers.h"

#include <vector>

namespace kopt {

/// Every match of M in the top-level declarations written in the main file
/// (headers are not searched), in traversal (source) order.
std::vector<clang::ast_matchers::BoundNodes>
matchEverywhere(const clang::ast_matchers::internal::Matcher<clang::Stmt> &M,
                clang::ASTContext &Ctx);
std::vector<clang::ast_matchers::BoundNodes>
matchEverywhere(const clang::ast_matchers::internal::Matcher<clang::Decl> &M,
                clang::ASTContext &Ctx);

/// The nodes of type NodeT bound to ID in every match of M.
template <typename NodeT, typename MatcherT>
std::vector<const NodeT *>
nodesEverywhere(const MatcherT &M, llvm::StringRef ID, clang::ASTContext &Ctx) {
  std::vector<const NodeT *> Nodes;
  for (const clang::ast_matchers::BoundNodes &N : matchEverywhere(M, Ctx))
    if (const auto *X = N.getNodeAs<NodeT>(ID))
      Nodes.push_back(X);
  return Nodes;
}

} // namespace kopt

#endif // KOPT_ANALYSIS_MATCHING_H
