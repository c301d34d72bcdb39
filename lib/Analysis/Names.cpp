//===- Names.cpp - Names a rewrite may not reuse --------------------------===//

#include "kopt/Analysis/Names.h"

#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/ASTMatchers/ASTMatchers.h"

using namespace clang;
using namespace clang::ast_matchers;

namespace kopt {

std::set<std::string> namesUsedIn(const FunctionDecl *F, ASTContext &Ctx) {
  std::set<std::string> Names;
  for (const ParmVarDecl *P : F->parameters())
    Names.insert(P->getNameAsString());
  if (!F->getBody())
    return Names;
  for (const BoundNodes &N :
       match(findAll(stmt(
                 anyOf(declRefExpr().bind("ref"), declStmt().bind("decl")))),
             *F->getBody(), Ctx)) {
    if (const auto *Ref = N.getNodeAs<DeclRefExpr>("ref"))
      Names.insert(Ref->getDecl()->getNameAsString());
    if (const auto *DS = N.getNodeAs<DeclStmt>("decl"))
      for (const Decl *D : DS->decls())
        if (const auto *ND = dyn_cast<NamedDecl>(D))
          Names.insert(ND->getNameAsString());
  }
  return Names;
}

std::string freshName(std::set<std::string> &Used, const std::string &Want) {
  std::string Name = Want;
  for (unsigned I = 2; Used.count(Name); ++I)
    Name = Want + "_" + std::to_string(I);
  Used.insert(Name);
  return Name;
}

} // namespace kopt
