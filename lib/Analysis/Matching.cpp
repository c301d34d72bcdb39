//===- Matching.cpp - Run AST matchers over a whole translation unit ------===//

#include "kopt/Analysis/Matching.h"

#include "clang/Basic/SourceManager.h"

using namespace clang;
using namespace clang::ast_matchers;

namespace kopt {

namespace {

class Collector : public MatchFinder::MatchCallback {
public:
  void run(const MatchFinder::MatchResult &R) override {
    Matches.push_back(R.Nodes);
  }
  std::vector<BoundNodes> Matches;
};

/// Restricts Ctx's traversal to the top-level declarations written in the
/// main file (the CUDA headers hold thousands of declarations that no
/// question of kopt's is about), and restores it when done.
class MainFileScope {
public:
  explicit MainFileScope(ASTContext &Ctx)
      : Ctx(Ctx), Saved(Ctx.getTraversalScope()) {
    const SourceManager &SM = Ctx.getSourceManager();
    std::vector<Decl *> Scope;
    for (Decl *D : Ctx.getTranslationUnitDecl()->decls())
      if (SM.isInMainFile(SM.getExpansionLoc(D->getBeginLoc())))
        Scope.push_back(D);
    Ctx.setTraversalScope(Scope);
  }
  ~MainFileScope() { Ctx.setTraversalScope(Saved); }

private:
  ASTContext &Ctx;
  std::vector<Decl *> Saved;
};

template <typename MatcherT>
std::vector<BoundNodes> matchAll(const MatcherT &M, ASTContext &Ctx) {
  Collector C;
  MatchFinder Finder;
  Finder.addMatcher(M, &C);
  MainFileScope Scope(Ctx);
  Finder.matchAST(Ctx);
  return std::move(C.Matches);
}

} // namespace

std::vector<BoundNodes> matchEverywhere(const internal::Matcher<Stmt> &M,
                                        ASTContext &Ctx) {
  return matchAll(M, Ctx);
}

std::vector<BoundNodes> matchEverywhere(const internal::Matcher<Decl> &M,
                                        ASTContext &Ctx) {
  return matchAll(M, Ctx);
}

} // namespace kopt
