//===- CallSites.cpp - Who calls and refers to which function -------------===//

#include "kopt/Analysis/CallSites.h"
#include "kopt/Analysis/Matching.h"

#include "clang/Analysis/CallGraph.h"
#include "clang/Basic/SourceManager.h"

using namespace clang;
using namespace clang::ast_matchers;

namespace kopt {

FunctionUses findFunctionUses(ASTContext &Ctx) {
  FunctionUses Out;
  const SourceManager &SM = Ctx.getSourceManager();
  for (const FunctionDecl *FD : nodesEverywhere<FunctionDecl>(
           functionDecl(isDefinition(), unless(isTemplateInstantiation()))
               .bind("f"),
           "f", Ctx))
    if (FD->doesThisDeclarationHaveABody() &&
        SM.isInMainFile(SM.getExpansionLoc(FD->getLocation())))
      Out.Definitions.push_back(FD);

  // The call edges: which references are direct callees.
  CallGraph Graph;
  Graph.addToCallGraph(Ctx.getTranslationUnitDecl());
  std::map<const DeclRefExpr *, const CallExpr *> Calls;
  for (const auto &[Decl, Node] : Graph)
    for (const CallGraphNode::CallRecord &Edge : *Node)
      if (const auto *C = dyn_cast_or_null<CallExpr>(Edge.CallExpr))
        if (const auto *Ref =
                dyn_cast<DeclRefExpr>(C->getCallee()->IgnoreParenImpCasts()))
          Calls[Ref] = C;

  for (const BoundNodes &N : matchEverywhere(
           declRefExpr(to(functionDecl().bind("fd")),
                       unless(isInTemplateInstantiation()),
                       optionally(hasAncestor(functionDecl().bind("caller"))))
               .bind("ref"),
           Ctx)) {
    FunctionUse U;
    U.Ref = N.getNodeAs<DeclRefExpr>("ref");
    U.Caller = N.getNodeAs<FunctionDecl>("caller");
    auto It = Calls.find(U.Ref);
    U.Call = It == Calls.end() ? nullptr : It->second;
    Out.Uses[N.getNodeAs<FunctionDecl>("fd")->getCanonicalDecl()].push_back(U);
  }
  return Out;
}

} // namespace kopt
