//===- ElementwiseLoop.cpp - One element per iteration --------------------===//

#include "kopt/Analysis/ElementwiseLoop.h"
#include "ElementwiseHelpers.h"
#include "kopt/Analysis/AffineForm.h"
#include "kopt/Analysis/BodyHazards.h"
#include "kopt/Analysis/ControlFlow.h"
#include "kopt/Analysis/IndexSets.h"
#include "kopt/Analysis/LocalPointers.h"

#include "clang/AST/Attr.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <map>

using namespace clang;
using namespace clang::ast_matchers;
using namespace llvm;

namespace kopt {

using namespace elementwise;

namespace elementwise {

std::optional<Refusal> scanElementCode(const Stmt *Body, ASTContext &Ctx,
                                       const ElementRegion &R) {
  using K = BodyHazard;
  std::vector<BuiltinVar> Harmless;
  if (!R.OnePerThread)
    Harmless = {BuiltinVar::BlockDim, BuiltinVar::GridDim};
  if (R.PerBlock)
    Harmless.push_back(BuiltinVar::BlockIdx);
  std::optional<BodyHazard> H =
      firstHazard(Body, Ctx,
                  {K::Return, K::Goto, K::Break, K::Continue, K::Barrier,
                   K::WarpCollective, K::ThreadIndex, K::ReservedName},
                  "kopt_vec", Harmless);
  if (!H)
    return std::nullopt;
  std::string What;
  switch (H->K) {
  case K::Return:
    What = "a return statement";
    break;
  case K::Goto:
    What = "a goto";
    break;
  case K::Break:
    What = "a break out of the element loop";
    break;
  case K::Continue:
    What = "a continue of the element loop";
    break;
  case K::Barrier:
    What = "a barrier";
    break;
  case K::WarpCollective:
    What = "the warp collective '" + H->Name + "'";
    break;
  case K::ThreadIndex:
    What = "a use of " + H->Name;
    break;
  case K::ReservedName:
    What = "code kopt already vectorized";
    break;
  case K::Label:
    break;
  }
  return Refusal{"the element computation contains " + What,
                 lineCol(H->At->getBeginLoc(), Ctx)};
}

/// The local variables S refers to, once each, in source order.
std::vector<const VarDecl *> localsIn(const Stmt *S, ASTContext &Ctx) {
  std::vector<const VarDecl *> Vars;
  for (const BoundNodes &N :
       match(findAll(declRefExpr(to(varDecl(hasLocalStorage()).bind("v")))), *S,
             Ctx))
    if (const auto *V = N.getNodeAs<VarDecl>("v"); !is_contained(Vars, V))
      Vars.push_back(V);
  return Vars;
}

} // namespace elementwise

bool matchElementIndex(const Expr *Index, const VarDecl *Var, const Stmt *Body,
                       const FunctionDecl *Kernel, ASTContext &Ctx,
                       const Expr *&Offset) {
  Offset = nullptr;
  const Expr *E = stripCasts(Index);
  if (referencedVar(E) == Var)
    return true;
  // A local of the body that holds such an index (`int i = row * n + j;`)
  // and keeps it.
  if (const VarDecl *L = referencedVar(E);
      L && !isa<ParmVarDecl>(L) && L->hasLocalStorage() && L->getInit() &&
      !L->getType()->isReferenceType() && L->getType()->isIntegerType() &&
      Body->getSourceRange().fullyContains(L->getSourceRange()) &&
      !isModifiedIn(L, Body) && referencedVar(stripCasts(L->getInit())) != L)
    return matchElementIndex(L->getInit(), Var, Body, Kernel, Ctx, Offset);
  const auto *Add = dyn_cast<BinaryOperator>(E);
  if (!Add || Add->getOpcode() != BO_Add)
    return false;
  const Expr *Off = nullptr;
  if (referencedVar(Add->getRHS()) == Var)
    Off = Add->getLHS();
  else if (referencedVar(Add->getLHS()) == Var)
    Off = Add->getRHS();
  if (!Off || hasSideEffects(Off, Ctx) ||
      classifyIndex(Off, Kernel, Ctx).K != IndexClass::Uniform)
    return false;
  // Every variable of the offset must be declared outside Body and keep its
  // value in it.
  const SourceManager &SM = Ctx.getSourceManager();
  for (const VarDecl *V : localsIn(Off, Ctx))
    if (isModifiedIn(V, Body) ||
        (!isa<ParmVarDecl>(V) &&
         !SM.isBeforeInTranslationUnit(V->getLocation(), Body->getBeginLoc())))
      return false;
  Offset = Off;
  return true;
}

namespace elementwise {

std::vector<std::string> carriedState(const Stmt *Body, const VarDecl *Index,
                                      ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  std::vector<std::string> Names;
  for (const VarDecl *V : localsIn(Body, Ctx))
    if (V != Index &&
        SM.isBeforeInTranslationUnit(V->getLocation(), Body->getBeginLoc()) &&
        isModifiedIn(V, Body))
      Names.push_back(V->getNameAsString());
  return Names;
}

const AccessInfo *accessOf(const KernelInfo &K, const ArraySubscriptExpr *E) {
  for (const AccessInfo &A :
       concat<const AccessInfo>(K.Accesses, K.LocalPointerAccesses))
    if (A.Expr == E)
      return &A;
  return nullptr;
}

const VarDecl *baseOf(const AccessInfo &A) {
  return A.Through ? A.Through : A.BaseDecl;
}

bool sharedByRegion(const AccessInfo &A, const KernelInfo &K,
                    const ElementRegion &R, ASTContext &AC) {
  if (!A.Through)
    return true;
  std::optional<LocalPointer> L =
      matchLocalPointerAt(A.Through, A.Expr, K.Decl);
  if (!L || !AC.getSourceManager().isBeforeInTranslationUnit(
                A.Through->getLocation(), R.Body->getBeginLoc()))
    return false;
  return all_of(L->Offsets, [&](const Expr *Offset) {
    return classifyIndex(Offset, K.Decl, AC).K == IndexClass::Uniform &&
           (R.PerBlock || !mayDifferBetweenBlocks(Offset, K.Decl->getBody()));
  });
}

std::string guardedAccess(const AccessInfo &A, const Stmt *Body,
                          ParentMap &Parents, ASTContext &AC) {
  const Stmt *Guard = guardOf(A.Expr, Body, Parents);
  return std::string(A.writes() ? "the store to '" : "the load of '") + A.Base +
         "[" + A.Index + "]' runs only when '" +
         oneLine(sourceText(Guard->getSourceRange(), AC)) + "'";
}

bool loadedBeforeStored(const Expr *L, const Expr *S, const Stmt *Body,
                        ParentMap &Parents) {
  if (topLevelIndex(L, Body, Parents) < topLevelIndex(S, Body, Parents))
    return true;
  const Stmt *Up = Parents.getParentIgnoreParenImpCasts(const_cast<Expr *>(S));
  const auto *Assign = dyn_cast_or_null<BinaryOperator>(Up);
  if (!Assign || Assign->getOpcode() != BO_Assign ||
      Assign->getLHS()->IgnoreParenImpCasts() != S)
    return false;
  bool InRHS = false;
  for (const Stmt *P = L; P && P != Assign;
       P = Parents.getParent(const_cast<Stmt *>(P)))
    InRHS |= P == Assign->getRHS();
  if (!InRHS)
    return false;
  for (const Stmt *P = Assign; P && P != Body;
       P = Parents.getParent(const_cast<Stmt *>(P)))
    if (isa<ForStmt, WhileStmt, DoStmt, CXXForRangeStmt>(P))
      return false;
  return true;
}

size_t topLevelIndex(const Stmt *E, const Stmt *Body, ParentMap &Parents) {
  const auto *CS = dyn_cast<CompoundStmt>(Body);
  if (!CS)
    return 0;
  const Stmt *S = E;
  while (S && Parents.getParent(const_cast<Stmt *>(S)) != CS)
    S = Parents.getParent(const_cast<Stmt *>(S));
  size_t Index = 0;
  for (const Stmt *Child : CS->body()) {
    if (Child == S)
      return Index;
    ++Index;
  }
  return Index;
}

} // namespace elementwise

bool isPlainLoad(const KernelInfo &K, const ArraySubscriptExpr *E) {
  const AccessInfo *A = accessOf(K, E);
  return A && A->K == AccessInfo::Load;
}

std::optional<Refusal> whyReadMayFollowWrite(const KernelInfo &K,
                                             const ElementRegion &R,
                                             const VectorPointer &P,
                                             ASTContext &AC) {
  if (!P.Writes || !P.Reads)
    return std::nullopt;
  ParentMap Parents(const_cast<Stmt *>(K.Decl->getBody()));
  // The statement that runs the write W once per element: its assignment,
  // with no loop between it and the body; null when a loop is there.
  auto OnceAssignment = [&](const Expr *W) -> const BinaryOperator * {
    const Stmt *S = Parents.getParent(const_cast<Expr *>(W));
    while (S && isa<ParenExpr>(S))
      S = Parents.getParent(const_cast<Stmt *>(S));
    const auto *B = dyn_cast_or_null<BinaryOperator>(S);
    if (!B || !B->isAssignmentOp() || B->getLHS()->IgnoreParens() != W)
      return nullptr;
    for (const Stmt *Up = B; Up && Up != R.Body;
         Up = Parents.getParent(const_cast<Stmt *>(Up)))
      if (isa<ForStmt, WhileStmt, DoStmt, CXXForRangeStmt>(Up))
        return nullptr;
    return B;
  };
  auto Within = [&](const Stmt *Inner, const Stmt *Outer) {
    for (const Stmt *Up = Inner; Up;
         Up = Parents.getParent(const_cast<Stmt *>(Up)))
      if (Up == Outer)
        return true;
    return false;
  };
  for (const ArraySubscriptExpr *W : P.Accesses) {
    const AccessInfo *WA = accessOf(K, W);
    if (!WA || !WA->writes())
      continue;
    size_t WIndex = topLevelIndex(W, R.Body, Parents);
    const BinaryOperator *Assign = OnceAssignment(W);
    for (const ArraySubscriptExpr *Rd : P.Accesses) {
      const AccessInfo *RA = accessOf(K, Rd);
      if (!RA || !RA->reads())
        continue;
      size_t RIndex = topLevelIndex(Rd, R.Body, Parents);
      if (RIndex < WIndex)
        continue;
      if (Assign && Rd == W && Assign->isCompoundAssignmentOp())
        continue;
      if (Assign && Assign->getOpcode() == BO_Assign &&
          Within(Rd, Assign->getRHS()))
        continue;
      std::string Read = "the read of '" + RA->Base + "[" + RA->Index +
                         "]' at " + str(RA->Loc);
      return Refusal{(RIndex > WIndex
                          ? Read + " follows the write at " + str(WA->Loc)
                          : Read + " and the write at " + str(WA->Loc) +
                                " share a statement of the loop body, where "
                                "their order is not checked") +
                         ": a staged element is read before the element's "
                         "iteration runs",
                     RA->Loc};
    }
  }
  return std::nullopt;
}

bool declaresVectorCarrier(const Stmt *S, ASTContext &Ctx) {
  for (const BoundNodes &N : match(findAll(declStmt().bind("d")), *S, Ctx))
    for (const Decl *D : N.getNodeAs<DeclStmt>("d")->decls())
      if (const auto *V = dyn_cast<VarDecl>(D);
          V && V->getIdentifier() && V->getName().starts_with("kopt_vec_"))
        return true;
  return false;
}

namespace {

/// `if (i >= n) return;` (or `n <= i`, the return in braces): the bound n
/// of an early return that leaves the threads past the elements.
const Expr *earlyReturnBound(const Stmt *S, const VarDecl *V) {
  const auto *If = dyn_cast<IfStmt>(S);
  if (!If || If->getElse() || If->getInit() || If->getConditionVariable())
    return nullptr;
  const Stmt *Then = If->getThen();
  if (const auto *CS = dyn_cast<CompoundStmt>(Then))
    Then = CS->size() == 1 ? CS->body_front() : nullptr;
  const auto *Ret = dyn_cast_or_null<ReturnStmt>(Then);
  const auto *Cond =
      dyn_cast<BinaryOperator>(If->getCond()->IgnoreParenImpCasts());
  if (!Ret || Ret->getRetValue() || !Cond)
    return nullptr;
  if (Cond->getOpcode() == BO_GE && referencedVar(Cond->getLHS()) == V)
    return Cond->getRHS();
  if (Cond->getOpcode() == BO_LE && referencedVar(Cond->getRHS()) == V)
    return Cond->getLHS();
  return nullptr;
}

} // namespace

/// `T i = gid; if (i < n) STMT`, or `T i = gid; if (i >= n) return; STMT`,
/// as the whole kernel body.
std::optional<ElementRegion> matchOnePerThread(const KernelInfo &K) {
  const auto *Body = dyn_cast<CompoundStmt>(K.Decl->getBody());
  if (!Body || (Body->size() != 2 && Body->size() != 3))
    return std::nullopt;
  const auto *DS = dyn_cast<DeclStmt>(Body->body_front());
  if (!DS || !DS->isSingleDecl())
    return std::nullopt;
  const auto *V = dyn_cast<VarDecl>(DS->getSingleDecl());
  if (!V || !V->getInit())
    return std::nullopt;
  std::optional<BlockTerm> Index =
      matchGlobalThreadIndex(V->getInit(), Body, K.Decl->getASTContext());
  if (!Index || (Index->Constant && Index->Constant != K.LaunchedBlockX))
    return std::nullopt;
  ElementRegion R;
  R.Var = V;
  R.OnePerThread = true;
  if (Body->size() == 3) {
    // The statement after an early return runs for the elements below
    // the bound, as the guarded statement does.
    R.Bound = earlyReturnBound(Body->body_begin()[1], V);
    R.Body = Body->body_back();
    if (!R.Bound || isa<NullStmt, DeclStmt>(R.Body))
      return std::nullopt;
    return R;
  }
  const auto *If = dyn_cast<IfStmt>(Body->body_back());
  if (!If || If->getElse() || If->getInit() || If->getConditionVariable())
    return std::nullopt;
  const auto *Cond =
      dyn_cast<BinaryOperator>(If->getCond()->IgnoreParenImpCasts());
  if (!Cond)
    return std::nullopt;
  R.Body = If->getThen();
  if (Cond->getOpcode() == BO_LT && referencedVar(Cond->getLHS()) == V)
    R.Bound = Cond->getRHS();
  else if (Cond->getOpcode() == BO_GT && referencedVar(Cond->getRHS()) == V)
    R.Bound = Cond->getLHS();
  else
    return std::nullopt;
  return R;
}

/// The rewritten kernel handles every element below the bound. That is
/// what the original did only if each launch started a thread per
/// element: its grid must be ceil(n / B), written `(n + B - 1) / B` (or
/// `(n + (B - 1)) / B`) with B the launch's block size and n the value the
/// launch passes for the bound, or constants whose product covers n. A
/// launch that started fewer threads processed a prefix the rewrite would
/// extend. Returns why coverage is not proven, or nothing.
std::optional<std::string>
whyNotCovering(const LaunchSite &L, const ElementRegion &R, ASTContext &HC) {
  std::string Launch = "the launch at " + str(L.Loc);
  const auto *BoundParam =
      dyn_cast_or_null<ParmVarDecl>(referencedVar(R.Bound));
  if (!BoundParam)
    return "the bound '" +
           sourceText(R.Bound->getSourceRange(), R.Var->getASTContext()) +
           "' is not a kernel parameter, so no launch can be shown to "
           "cover it";
  unsigned Index = BoundParam->getFunctionScopeIndex();
  if (!L.Call || Index >= L.Call->getNumArgs() || !L.Grid.Expr || !L.Block.Expr)
    return Launch + " does not show its grid, block and bound";
  const Stmt *Scope = L.CallerDecl ? L.CallerDecl->getBody() : nullptr;
  // The x extents of grid and block, as forms in the launching function.
  auto ExtentX = [&](const LaunchDim &D) -> const Expr * {
    if (!D.IsDim3)
      return D.Expr;
    const Expr *Init = followLocalInit(D.Expr, Scope)->IgnoreImplicit();
    const auto *C = dyn_cast<CXXConstructExpr>(Init);
    if (!C || C->getNumArgs() < 1 || isDim3(C->getArg(0)->getType()))
      return nullptr;
    return C->getArg(0);
  };
  const Expr *GridX = ExtentX(L.Grid), *BlockX = ExtentX(L.Block);
  if (!GridX || !BlockX)
    return Launch + " uses a dim3 grid or block kopt cannot read";
  AffineContext Forms(HC, Scope);
  std::optional<AffineForm> G = Forms.build(GridX);
  std::optional<AffineForm> B = Forms.build(BlockX);
  std::optional<AffineForm> N = Forms.build(L.Call->getArg(Index));
  if (G && B && N && coversCount(Forms, *G, *B, *N))
    return std::nullopt;
  return "cannot prove that " + Launch + " starts a thread for each of the '" +
         BoundParam->getNameAsString() + "' elements (grid '" + L.Grid.Text +
         "', expected ceil(n / block) as (n + block - 1) / block); the "
         "rewrite would cover elements the original did not";
}

} // namespace kopt
