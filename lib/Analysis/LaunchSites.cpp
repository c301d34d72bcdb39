//===- LaunchSites.cpp - Where the host launches kernels ------------------===//
//
// Launch sites are the call edges from host functions to kernels in Clang's
// CallGraph whose call is a `<<<...>>>` launch; their configuration is
// evaluated in the caller's body. Any other reference to a kernel (a
// function pointer, cudaLaunchKernel) leaves its launches unknown.
//
//===----------------------------------------------------------------------===//

#include "kopt/Analysis/KernelInfo.h"
#include "kopt/Analysis/Matching.h"

#include "clang/AST/Attr.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "clang/Analysis/CallGraph.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/raw_ostream.h"

#include <set>

using namespace clang;
using namespace clang::ast_matchers;
using namespace llvm;

namespace kopt {

namespace {

LaunchDim launchDim(const Expr *Arg, ASTContext &Ctx, const Stmt *Scope) {
  LaunchDim D;
  const Expr *User = userWrittenLaunchArg(Arg);
  if (!User)
    return D;
  D.Expr = User;
  D.Text = sourceText(User->getSourceRange(), Ctx);
  D.IsDim3 = isDim3(User->getType());
  if (Arg->getType()->isIntegerType() && !D.IsDim3) {
    D.Value.X = evaluateInt(User, Ctx, Scope);
  } else {
    D.Value = evaluateDim(User, Ctx, Scope);
  }
  if (!D.Value.total())
    D.WhyUnknown = whyNotConstant(User, Ctx, Scope);
  return D;
}

LaunchSite launchSite(const CUDAKernelCallExpr *Call,
                      const FunctionDecl *Caller, ASTContext &Ctx) {
  LaunchSite L;
  L.Kernel = Call->getDirectCallee()->getQualifiedNameAsString();
  L.TemplateArgs = templateArgumentsText(Call->getDirectCallee());
  L.Caller = Caller ? Caller->getQualifiedNameAsString() : "";
  L.CallerDecl = Caller;
  L.Loc = lineCol(Call->getBeginLoc(), Ctx);
  L.Call = Call;
  const CallExpr *Config = Call->getConfig();
  const Stmt *Scope = Caller ? Caller->getBody() : nullptr;
  if (Config && Config->getNumArgs() >= 2) {
    L.Grid = launchDim(Config->getArg(0), Ctx, Scope);
    L.Block = launchDim(Config->getArg(1), Ctx, Scope);
    if (Config->getNumArgs() > 2)
      L.SharedBytes = launchDim(Config->getArg(2), Ctx, Scope);
    if (Config->getNumArgs() > 3) {
      const Expr *S = userWrittenLaunchArg(Config->getArg(3));
      if (S) {
        L.Stream.Expr = S;
        L.Stream.Text = sourceText(S->getSourceRange(), Ctx);
      }
    }
  }
  return L;
}

} // namespace

void findLaunchSites(ASTContext &HostCtx, ProgramInfo &Info) {
  const SourceManager &SM = HostCtx.getSourceManager();
  // Launch sites are in the main file, and so are their callers' top-level
  // declarations: the CUDA and C++ headers' many bodies are not walked (nor
  // read back from a precompiled preamble).
  CallGraph Graph;
  for (Decl *D : mainFileDecls(HostCtx))
    Graph.addToCallGraph(D);
  for (const auto &[Decl, Node] : Graph) {
    const auto *Caller = dyn_cast_or_null<FunctionDecl>(Decl);
    if (!Caller)
      continue;
    for (const CallGraphNode::CallRecord &Edge : *Node) {
      const auto *Call = dyn_cast_or_null<CUDAKernelCallExpr>(Edge.CallExpr);
      if (!Call || !Call->getDirectCallee() ||
          !SM.isInMainFile(SM.getExpansionLoc(Call->getBeginLoc())))
        continue;
      Info.LaunchSites.push_back(launchSite(Call, Caller, HostCtx));
    }
  }
  // The graph is a map keyed by pointers: report launch sites in source
  // order, and the instantiations of one site (a launch in a template or a
  // generic lambda) by their callers' names with template arguments, so
  // that remarks and rewrites do not depend on where the heap put them.
  auto callerKey = [&](const LaunchSite &L) {
    std::string Key;
    llvm::raw_string_ostream OS(Key);
    if (L.CallerDecl)
      L.CallerDecl->getNameForDiagnostic(OS, HostCtx.getPrintingPolicy(),
                                         /*Qualified=*/true);
    return Key;
  };
  llvm::stable_sort(Info.LaunchSites,
                    [&](const LaunchSite &A, const LaunchSite &B) {
                      SourceLocation LA = A.Call->getBeginLoc(),
                                     LB = B.Call->getBeginLoc();
                      if (LA != LB)
                        return SM.isBeforeInTranslationUnit(LA, LB);
                      return callerKey(A) < callerKey(B);
                    });
  // References that are launches, in instantiations and in the templates
  // they come from alike.
  DenseSet<const Expr *> LaunchCallees;
  for (const Expr *Callee :
       nodesEverywhere<Expr>(cudaKernelCallExpr(callee(expr().bind("callee"))),
                             "callee", HostCtx))
    LaunchCallees.insert(Callee->IgnoreParenImpCasts());
  std::set<std::string> Other;
  for (const DeclRefExpr *Ref : nodesEverywhere<DeclRefExpr>(
           declRefExpr(to(functionDecl(hasAttr(attr::CUDAGlobal)))).bind("ref"),
           "ref", HostCtx)) {
    if (!LaunchCallees.contains(Ref))
      Other.insert(Ref->getDecl()->getAsFunction()->getQualifiedNameAsString());
  }
  Info.KernelsWithUnknownLaunches.assign(Other.begin(), Other.end());
}

} // namespace kopt
