//===- Matching.cpp - Run AST matchers over a whole translation unit ------===//

#include "kopt/Analysis/Matching.h"
#include "kopt/Frontend/CudaFrontend.h"


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

/// Restricts Ctx's traversal to the main file's top-level declarations
/// when it is not already (the frontend's ASTs are; clang-tidy's are not),
/// and restores it when done. Changing the scope drops the parent map, so
/// an AST already scoped is left alone.
class MainFileScope {
public:
  explicit MainFileScope(ASTContext &Ctx) : Ctx(Ctx) {
    std::vector<Decl *> Scope = mainFileDecls(Ctx);
    if (llvm::ArrayRef<Decl *>(Scope) == Ctx.getTraversalScope())
      return;
    Saved = Ctx.getTraversalScope();
    Changed = true;
    Ctx.setTraversalScope(Scope);
  }
  ~MainFileScope() {
    if (Changed)
      Ctx.setTraversalScope(Saved);
  }

private:
  ASTContext &Ctx;
  std::vector<Decl *> Saved;
  bool Changed = false;
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
