//===- LaunchSites.cpp - Where the host launches kernels ------------------===//
//
// Launch sites are the call edges from host functions to kernels in Clang's
// CallGraph whose call is a `<<<...>>>` launch; their configuration is
// evaluated in the caller's body. Any other reference to a kernel (a
// function pointer, cudaLaunchKernel) leaves its launches unknown.
//
//===----------------------------------------------------------------------===//

#include "kopt/Analysis/BlockParams.h"
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

namespace {

/// Whether the launch L passes for parameter Index the value of its 1-D
/// block: the same variable (or the same constant) as the block argument,
/// in a launch whose arguments change nothing.
bool passesBlockX(const LaunchSite &L, unsigned Index) {
  if (!L.Call || !L.CallerDecl || !L.Block.Expr ||
      Index >= L.Call->getNumArgs())
    return false;
  ASTContext &Ctx = L.CallerDecl->getASTContext();
  for (const Expr *A : L.Call->arguments())
    if (hasSideEffects(A, Ctx))
      return false;
  // The configuration as written (an int converted to dim3 is a
  // constructor call, which Clang counts as a side effect).
  if (const CallExpr *Config = L.Call->getConfig())
    for (const Expr *A : Config->arguments())
      if (const Expr *User = userWrittenLaunchArg(A);
          User && hasSideEffects(User, Ctx))
        return false;
  if (L.Block.IsDim3)
    return false;
  const Expr *Arg = stripCasts(L.Call->getArg(Index));
  const Expr *Block = stripCasts(L.Block.Expr);
  const VarDecl *ArgVar = referencedVar(Arg);
  if (ArgVar || referencedVar(Block))
    return ArgVar && ArgVar == referencedVar(Block) &&
           !ArgVar->getType().isVolatileQualified();
  std::optional<int64_t> A = evaluateInt(Arg, Ctx, nullptr);
  return A && L.Block.Value.X && *A == *L.Block.Value.X;
}

/// Whether the launch L may pass for parameter Index the value of its
/// block's x extent, as far as the file shows: the block's own variable, or
/// a value equal to its constant x.
bool mayPassBlockX(const LaunchSite &L, unsigned Index) {
  if (!L.Call || !L.CallerDecl || Index >= L.Call->getNumArgs())
    return false;
  const Expr *Arg = stripCasts(L.Call->getArg(Index));
  const VarDecl *ArgVar = referencedVar(Arg);
  if (ArgVar && L.Block.Expr &&
      ArgVar == referencedVar(stripCasts(L.Block.Expr)))
    return true;
  std::optional<int64_t> A =
      evaluateInt(Arg, L.CallerDecl->getASTContext(), L.CallerDecl->getBody());
  return A && L.Block.Value.X && *A == *L.Block.Value.X;
}

/// The launches of K (of K's own instantiation for a template's).
std::vector<const LaunchSite *> launchesOf(const ProgramInfo &Info,
                                           const KernelInfo &K) {
  std::vector<const LaunchSite *> Launches;
  for (const LaunchSite *L : Info.launchesOf(K.Name))
    if (L->TemplateArgs == K.TemplateArgs)
      Launches.push_back(L);
  return Launches;
}

} // namespace

std::variant<int64_t, std::string>
ProgramInfo::launchedBlockX(const KernelInfo &K) const {
  if (hasUnknownLaunches(K.Name))
    return "'" + K.Name +
           "' is referenced other than by a <<<...>>> launch: its blocks are "
           "unknown";
  std::optional<int64_t> X;
  for (const LaunchSite *L : kopt::launchesOf(*this, K)) {
    if (!L->Block.Value.X)
      return "the block '" + L->Block.Text + "' of the launch at " +
             str(L->Loc) + " is not a compile-time constant";
    if (X && *X != *L->Block.Value.X)
      return "its launches run blocks of " + std::to_string(*X) + " and " +
             std::to_string(*L->Block.Value.X) + " threads in x";
    X = L->Block.Value.X;
  }
  if (!X)
    return "no launch of '" + K.Name + K.TemplateArgs + "' in this file";
  return *X;
}

namespace {

void markLoops(KernelInfo &K, const ProgramInfo &Info) {
  auto X = Info.launchedBlockX(K);
  if (const int64_t *Value = std::get_if<int64_t>(&X))
    K.LaunchedBlockX = *Value;
  for (LoopInfo &L : K.Loops)
    if (L.K == LoopInfo::Counted && L.GridStartConstBlock &&
        L.GridStartConstBlock == K.LaunchedBlockX) {
      L.K = LoopInfo::GridStride;
      L.StepIsBlockSize = true;
    } else if (L.K == LoopInfo::Counted &&
               (L.ThreadStartConstStep || L.ThreadStartParamStep) &&
               whyStepIsNotBlockSize(Info, K, L).empty()) {
      L.K = LoopInfo::BlockStride;
      L.StepIsBlockSize = true;
    }
}

} // namespace

std::optional<std::string> blockPassedToParameter(const ProgramInfo &Info,
                                                  const KernelInfo &K) {
  if (!K.Decl)
    return std::nullopt;
  for (const LaunchSite *L : launchesOf(Info, K))
    for (unsigned I = 0; I < K.Decl->getNumParams(); ++I)
      if (K.Decl->getParamDecl(I)->getType()->isIntegerType() &&
          mayPassBlockX(*L, I))
        return "the launch at " + str(L->Loc) + " passes its block size to '" +
               K.Decl->getParamDecl(I)->getNameAsString() +
               "' (the kernel may step or index by it)";
  return std::nullopt;
}

std::string whyStepIsNotBlockSize(const ProgramInfo &Info, const KernelInfo &K,
                                  const LoopInfo &L) {
  if (L.GridStartConstBlock) {
    std::string C = std::to_string(*L.GridStartConstBlock);
    std::string What = "it starts at 'blockIdx.x * " + C +
                       " + threadIdx.x' and steps by '" + C +
                       " * gridDim.x', a grid-stride loop only where " + C +
                       " is blockDim.x, and ";
    auto X = Info.launchedBlockX(K);
    if (auto *Why = std::get_if<std::string>(&X))
      return What + *Why;
    if (std::get<int64_t>(X) != *L.GridStartConstBlock)
      return What + "every launch runs " +
             std::to_string(std::get<int64_t>(X)) + " threads in x";
    return "";
  }
  if (L.ThreadStartConstStep) {
    std::string Step = std::to_string(*L.ThreadStartConstStep);
    if (*L.ThreadStartConstStep < 32)
      return "it steps by " + Step + ", less than a warp";
    auto X = Info.launchedBlockX(K);
    if (auto *Why = std::get_if<std::string>(&X))
      return "it steps by the constant " + Step +
             ", a block-stride loop only where that is blockDim.x, and " + *Why;
    if (std::get<int64_t>(X) != *L.ThreadStartConstStep)
      return "it steps by the constant " + Step +
             ", a block-stride loop only where that is blockDim.x, and every "
             "launch runs " +
             std::to_string(std::get<int64_t>(X)) + " threads in x";
    return "";
  }
  if (!L.ThreadStartParamStep || !K.Decl ||
      *L.ThreadStartParamStep >= K.Decl->getNumParams())
    return "it does not step by a constant or a parameter";
  std::string Why = whyParamIsNotBlockX(Info, K, *L.ThreadStartParamStep);
  if (Why.empty())
    return "";
  return "it steps by the parameter '" +
         K.Decl->getParamDecl(*L.ThreadStartParamStep)->getNameAsString() +
         "', a block-stride loop only where every launch passes its block "
         "size there, and " +
         Why;
}

std::string whyParamIsNotBlockX(const ProgramInfo &Info, const KernelInfo &K,
                                unsigned Index) {
  if (Info.hasUnknownLaunches(K.Name))
    return "'" + K.Name + "' is referenced other than by a <<<...>>> launch";
  std::vector<const LaunchSite *> Launches = launchesOf(Info, K);
  if (Launches.empty())
    return "no launch of '" + K.Name + K.TemplateArgs + "' is in this file";
  for (const LaunchSite *S : Launches)
    if (!passesBlockX(*S, Index))
      return "the launch at " + str(S->Loc) +
             " does not pass the value of its 1-D block '" + S->Block.Text +
             "' (the same variable or constant, in a launch whose arguments "
             "change nothing)";
  return "";
}

void markLaunchedBlockStrides(ProgramInfo &Info) {
  for (KernelInfo &K : Info.Kernels) {
    markLoops(K, Info);
    for (KernelInfo &I : K.Instances)
      markLoops(I, Info);
  }
}

} // namespace kopt
