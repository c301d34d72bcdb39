//===- ClusterSplit.cpp - A block's group shared by a cluster -------------===//
//
// The rules and why they suffice are in ClusterSplit.h.
//
//===----------------------------------------------------------------------===//

#include "kopt/Analysis/ClusterSplit.h"

#include "kopt/Analysis/ControlFlow.h"
#include "kopt/Analysis/CudaAST.h"
#include "kopt/Analysis/LocalPointers.h"
#include "kopt/Analysis/LoopAccumulators.h"
#include "kopt/Analysis/Mutation.h"
#include "kopt/Analysis/ReductionTree.h"

#include "clang/AST/Attr.h"
#include "clang/AST/ParentMap.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringRef.h"

#include <map>

using namespace clang;
using namespace llvm;

namespace kopt {

namespace {

Refusal refuse(const Twine &Why, const Stmt *At, ASTContext &AC) {
  return Refusal{Why.str(), lineCol(At->getBeginLoc(), AC)};
}

std::string text(const Stmt *S, ASTContext &AC) {
  return oneLine(sourceText(S->getSourceRange(), AC));
}

bool before(const Stmt *A, const Stmt *B, ASTContext &AC) {
  return AC.getSourceManager().isBeforeInTranslationUnit(A->getBeginLoc(),
                                                         B->getBeginLoc());
}

bool inside(const Stmt *S, const Stmt *Outer, ASTContext &AC) {
  const SourceManager &SM = AC.getSourceManager();
  SourceLocation L = S->getBeginLoc();
  return !SM.isBeforeInTranslationUnit(L, Outer->getBeginLoc()) &&
         !SM.isBeforeInTranslationUnit(Outer->getEndLoc(), L);
}

/// Whether Ref, a reference to a shared variable, is only read where it
/// stands: `s`, `s.f`, `a[i]`, `a[i][j]` as values.
bool isSharedRead(const DeclRefExpr *Ref, const ParentMap &Parents) {
  const Stmt *Child = Ref;
  for (const Stmt *P = Parents.getParent(Ref); P;
       Child = P, P = Parents.getParent(P)) {
    if (const auto *C = dyn_cast<ImplicitCastExpr>(P)) {
      if (C->getCastKind() == CK_LValueToRValue)
        return true;
      if (C->getCastKind() == CK_ArrayToPointerDecay ||
          C->getCastKind() == CK_NoOp)
        continue;
      return false;
    }
    if (isa<ParenExpr>(P))
      continue;
    if (const auto *S = dyn_cast<ArraySubscriptExpr>(P);
        S && S->getBase() == Child)
      continue;
    if (const auto *M = dyn_cast<MemberExpr>(P); M && !M->isArrow())
      continue;
    return false;
  }
  return false;
}

/// `for (T i = threadIdx.x; i < N; i += blockDim.x)` (or a step every
/// launch's block size equals, LoopInfo::StepIsBlockSize), N one value in
/// the block and i not changed in the body.
std::optional<ClusterLoop> matchBlockStride(const ForStmt *For,
                                            const KernelInfo &K) {
  const FunctionDecl *F = K.Decl;
  std::optional<CountedLoop> CL = matchCountedLoop(For);
  const LoopInfo *Facts = loopOf(K, For);
  if (!CL || CL->Inclusive || !CL->Step ||
      !(isBuiltin(stripCasts(CL->Step), BuiltinVar::BlockDim, 0) ||
        (Facts && Facts->K == LoopInfo::BlockStride &&
         Facts->StepIsBlockSize)) ||
      !isThreadIdxX(CL->Init, F->getBody()) || !isBlockUniform(CL->Bound, F) ||
      isModifiedIn(CL->Var, For->getBody()))
    return std::nullopt;
  // The bound is copied into the part's arithmetic as written.
  bool ReadsBlock = false;
  forEachSubStmt(CL->Bound, [&](const Stmt *S) {
    const auto *E = dyn_cast<Expr>(S);
    std::optional<BuiltinRef> B = E ? matchBuiltin(E) : std::nullopt;
    ReadsBlock |=
        B && (B->Var == BuiltinVar::BlockIdx || B->Var == BuiltinVar::GridDim);
  });
  if (ReadsBlock)
    return std::nullopt;
  return ClusterLoop{For, CL->Var, CL->Init, CL->Bound};
}

/// The pointer an access `p[i]`, `*p` or `p->f` goes through; null for
/// anything else.
const Expr *accessedPointer(const Expr *E) {
  E = E->IgnoreParenImpCasts();
  if (const auto *S = dyn_cast<ArraySubscriptExpr>(E))
    return S->getBase()->getType()->isPointerType() ? S->getBase() : nullptr;
  if (const auto *U = dyn_cast<UnaryOperator>(E))
    return U->getOpcode() == UO_Deref ? U->getSubExpr() : nullptr;
  if (const auto *M = dyn_cast<MemberExpr>(E))
    return M->isArrow() ? M->getBase() : accessedPointer(M->getBase());
  return nullptr;
}

bool isAtomicCall(const CallExpr *C) {
  const FunctionDecl *FD = C->getDirectCallee();
  return FD && FD->getName().starts_with("atomic");
}

bool isShared(const ValueDecl *D) {
  const auto *V = dyn_cast_or_null<VarDecl>(D);
  return V && V->hasAttr<CUDASharedAttr>();
}

/// Whether E names (part of) a __shared__ variable itself: `s`, `s.f`,
/// `a[i]` of a shared array, `a[i][j]`.
bool isSharedObject(const Expr *E) {
  E = E->IgnoreParenImpCasts();
  if (const auto *M = dyn_cast<MemberExpr>(E))
    return !M->isArrow() && isSharedObject(M->getBase());
  if (const auto *S = dyn_cast<ArraySubscriptExpr>(E)) {
    const Expr *Base = S->getBase()->IgnoreParenImpCasts();
    return Base->getType()->isArrayType() && isSharedObject(Base);
  }
  const auto *R = dyn_cast<DeclRefExpr>(E);
  return R && isShared(R->getDecl());
}

/// A function of this file the kernel calls whose behaviour depends on
/// its block: it reads blockIdx or gridDim (the copy renames them only in
/// the kernel), or, called in a split loop, waits at a barrier or uses
/// shared memory (the loop's body may do neither). None when no call does.
std::optional<Refusal> checkCalls(const FunctionDecl *F,
                                  const std::vector<ClusterLoop> &Loops,
                                  ASTContext &AC) {
  std::optional<Refusal> Why;
  forEachSubStmt(F->getBody(), [&](const Stmt *S) {
    const auto *C = dyn_cast<CallExpr>(S);
    if (Why || !C || isa<CUDAKernelCallExpr>(C))
      return;
    const FunctionDecl *Callee = C->getDirectCallee();
    const FunctionDecl *Def = Callee ? Callee->getDefinition() : nullptr;
    if (!Def || !Def->getBody() ||
        !AC.getSourceManager().isWrittenInMainFile(
            AC.getSourceManager().getExpansionLoc(Def->getLocation())))
      return;
    bool InLoop = any_of(
        Loops, [&](const ClusterLoop &L) { return inside(C, L.For, AC); });
    std::string What;
    forEachSubStmt(Def->getBody(), [&](const Stmt *X) {
      if (!What.empty())
        return;
      if (const auto *E = dyn_cast<Expr>(X)) {
        std::optional<BuiltinRef> B = matchBuiltin(E);
        if (B &&
            (B->Var == BuiltinVar::BlockIdx || B->Var == BuiltinVar::GridDim))
          What = "reads blockIdx or gridDim: the cluster's blocks would "
                 "each see their own";
      }
      if (InLoop && isBarrierCall(X))
        What = "waits at a barrier, in a block-stride loop the cluster "
               "divides";
      if (const auto *R = dyn_cast<DeclRefExpr>(X);
          InLoop && R && isShared(R->getDecl()))
        What = "uses shared memory, in a block-stride loop the cluster "
               "divides";
    });
    if (!What.empty())
      Why = refuse("it calls '" + Def->getNameAsString() + "', which " + What,
                   C, AC);
  });
  return Why;
}

/// The accumulators of split loop L (LoopAccumulators.h), each a local of
/// the kernel, combined after the loop thread by thread; a floating-point
/// sum or selection only with Reassociate (Rounding).
std::optional<Refusal> checkAccumulators(ClusterLoop &L, bool Reassociate,
                                         bool &Rounding, ASTContext &AC) {
  Decision<std::vector<Accumulator>> D = loopAccumulators(L.For, AC);
  if (auto *Why = std::get_if<Refusal>(&D))
    return Refusal{"the loop at " + str(lineCol(L.For->getBeginLoc(), AC)) +
                       " carries more than a reduction: " + Why->Message,
                   Why->Loc.Line ? Why->Loc
                                 : lineCol(L.For->getBeginLoc(), AC)};
  for (const Accumulator &A : std::get<std::vector<Accumulator>>(D)) {
    std::string V = A.Var->getNameAsString();
    if (!A.Var->isLocalVarDecl() || A.Var->isStaticLocal() ||
        isShared(A.Var))
      return refuse("'" + V + "' is not a local variable of the kernel",
                    L.For, AC);
    if (!A.Exact && !Reassociate)
      return refuse("the loop at " + str(lineCol(L.For->getBeginLoc(), AC)) +
                        (A.Kind == Accumulator::Sum
                             ? " sums the floating-point '" + V +
                                   "': adding the blocks' parts rounds "
                                   "differently (reassociate=true)"
                             : " keeps the floating-point '" + V +
                                   "' by comparison: which of two equal "
                                   "values (-0.0, +0.0) it keeps depends on "
                                   "the order (reassociate=true)"),
                    L.For, AC);
    Rounding |= !A.Exact;
  }
  L.Accumulators = std::move(std::get<std::vector<Accumulator>>(D));
  return std::nullopt;
}

/// The memory rules of ClusterSplit.h.
std::optional<Refusal> checkMemory(const FunctionDecl *F,
                                   const std::vector<ClusterLoop> &Loops,
                                   const ClusterLoop &LastCombined,
                                   ASTContext &AC) {
  const Stmt *Body = F->getBody();
  auto LoopOf = [&](const Stmt *S) -> const ClusterLoop * {
    for (const ClusterLoop &L : Loops)
      if (inside(S, L.For, AC))
        return &L;
    return nullptr;
  };
  // Writes: where, through what, and the access text of those in loops.
  std::map<const ValueDecl *, std::vector<std::string>> Written;
  std::set<const Expr *> Targets;
  const ClusterLoop *StoreLoop = nullptr;
  std::optional<Refusal> Why;
  forEachSubStmt(Body, [&](const Stmt *S) {
    if (Why)
      return;
    const Expr *Target = nullptr;
    bool Plain = false;
    if (std::optional<WriteOf> W = writeOf(S)) {
      if (localWriteTarget(W->Target))
        return;
      Target = W->Target;
      Plain = W->Plain;
    } else if (const auto *C = dyn_cast<CallExpr>(S);
               C && isAtomicCall(C) && C->getNumArgs() > 0) {
      // atomicAdd(&p[i], v) or atomicAdd(p + i, v): the call is the write.
      Target = C;
    } else {
      return;
    }
    if (isSharedObject(Target))
      return; // each block's own, written alike (no split loop uses one)
    const Expr *Pointer = accessedPointer(Target);
    if (const auto *C = dyn_cast<CallExpr>(Target)) {
      const Expr *Addr = C->getArg(0)->IgnoreParenImpCasts();
      const auto *U = dyn_cast<UnaryOperator>(Addr);
      bool Element = U && U->getOpcode() == UO_AddrOf;
      Pointer = Element ? accessedPointer(U->getSubExpr()) : Addr;
      if (Element) // the element is the target, not a read
        Targets.insert(U->getSubExpr()->IgnoreParenImpCasts());
    }
    const ValueDecl *Root = Pointer ? pointerRoot(Pointer, Body) : nullptr;
    if (Root && isShared(Root))
      return; // each block's own, written alike (no split loop uses one)
    if (!Root) {
      Why = refuse("the store '" + text(S, AC) +
                       "' writes through a pointer kopt cannot follow",
                   S, AC);
      return;
    }
    const ClusterLoop *L = LoopOf(S);
    if (!L) {
      if (!Plain)
        Why = refuse("'" + text(S, AC) +
                         "' updates memory outside the block-stride loops: "
                         "every block of the cluster would do it",
                     S, AC);
      Written[Root];
      Targets.insert(Target->IgnoreParenImpCasts());
      return;
    }
    if (L != &LastCombined && before(L->For, LastCombined.For, AC)) {
      Why = refuse("the loop at " + str(lineCol(L->For->getBeginLoc(), AC)) +
                       " stores to memory before the loop at " +
                       str(lineCol(LastCombined.For->getBeginLoc(), AC)) +
                       " is combined across the cluster: only the last "
                       "combined loop and loops after it may store, when "
                       "the whole cluster has read what it needs",
                   S, AC);
      return;
    }
    if (StoreLoop && StoreLoop != L) {
      Why = refuse("two block-stride loops store to memory (at " +
                       str(lineCol(StoreLoop->For->getBeginLoc(), AC)) +
                       " and " + str(lineCol(L->For->getBeginLoc(), AC)) +
                       "): between them only a barrier of the block orders "
                       "the stores",
                   S, AC);
      return;
    }
    StoreLoop = L;
    Written[Root].push_back(withoutSpaces(text(Target, AC)));
    Targets.insert(Target->IgnoreParenImpCasts());
  });
  if (Why)
    return Why;
  if (StoreLoop) {
    for (const ClusterLoop &L : Loops)
      if (L.For != StoreLoop->For && before(StoreLoop->For, L.For, AC))
        return refuse("the block-stride loop at " +
                          str(lineCol(L.For->getBeginLoc(), AC)) +
                          " follows the loop that stores (at " +
                          str(lineCol(StoreLoop->For->getBeginLoc(), AC)) + ")",
                      L.For, AC);
  }
  // Reads through a written pointer: only the stored element, in the loop
  // that stores it.
  forEachSubStmt(Body, [&](const Stmt *S) {
    const auto *E = dyn_cast<Expr>(S);
    if (Why || !E || Targets.count(E))
      return;
    const Expr *Pointer = accessedPointer(E);
    // `a[i].f` is seen as its subscript `a[i]`; `p->f` as itself.
    const auto *M = dyn_cast<MemberExpr>(E->IgnoreParenImpCasts());
    if (!Pointer || (M && !M->isArrow()))
      return;
    auto It = Written.find(pointerRoot(Pointer, Body));
    if (It == Written.end())
      return;
    const ClusterLoop *L = LoopOf(E);
    if (L && L == StoreLoop &&
        is_contained(It->second, withoutSpaces(text(E, AC))))
      return;
    Why = refuse("'" + text(E, AC) + "' reads memory the kernel writes ('" +
                     It->first->getNameAsString() +
                     "'): another block of the cluster may write it",
                 E, AC);
  });
  return Why;
}

} // namespace

Decision<ClusterSplitPlan> planClusterSplit(const KernelInfo &K, ASTContext &AC,
                                            bool Reassociate) {
  const FunctionDecl *F = K.Decl;
  const auto *Body = dyn_cast_or_null<CompoundStmt>(F->getBody());
  if (!Body)
    return Refusal{"the kernel has no body", K.Loc};
  ClusterSplitPlan P;

  // The block-stride loops, in the kernel's straight-line code.
  std::optional<Refusal> Why;
  forEachSubStmt(Body, [&](const Stmt *S) {
    const auto *For = dyn_cast<ForStmt>(S);
    if (Why || !For)
      return;
    std::optional<ClusterLoop> L = matchBlockStride(For, K);
    if (!L)
      return;
    if (std::optional<Refusal> U =
            checkUniformControl(F, For, "the block-stride loop", AC)) {
      Why = U;
      return;
    }
    ParentMap Parents(const_cast<Stmt *>(For->getBody()));
    forEachSubStmt(For->getBody(), [&](const Stmt *X) {
      if (Why)
        return;
      std::string What;
      if (isBarrierCall(X))
        What = "waits at a barrier";
      else if (isa<BreakStmt, ReturnStmt, GotoStmt>(X))
        What = "leaves the loop early";
      else if (const auto *R = dyn_cast<DeclRefExpr>(X);
               R && isShared(R->getDecl()) && !isSharedRead(R, Parents))
        What = "writes or passes the shared '" +
               R->getDecl()->getNameAsString() +
               "' (each block would hold only its part)";
      else if (const auto *In = dyn_cast<ForStmt>(X);
               In && matchBlockStride(In, K))
        What = "holds another block-stride loop";
      if (!What.empty())
        Why = refuse("the block-stride loop at " +
                         str(lineCol(For->getBeginLoc(), AC)) + " " + What +
                         " ('" + text(X, AC) + "')",
                     X, AC);
    });
    P.Loops.push_back(*L);
  });
  if (Why)
    return *Why;
  if (P.Loops.empty())
    return Refusal{"no block-stride loop (`for (i = threadIdx.x; i < n; i "
                   "+= blockDim.x)`) to divide among the cluster's blocks",
                   K.Loc};

  const ClusterLoop *LastCombined = nullptr;
  for (ClusterLoop &L : P.Loops) {
    if (std::optional<Refusal> W =
            checkAccumulators(L, Reassociate, P.Rounding, AC))
      return *W;
    if (!L.Accumulators.empty())
      LastCombined = &L;
  }
  if (!LastCombined)
    return Refusal{"no block-stride loop accumulates a sum, maximum or "
                   "minimum for the cluster to combine (an element-wise "
                   "kernel: split-grid's kind)",
                   K.Loc};
  if (std::optional<Refusal> W = checkMemory(F, P.Loops, *LastCombined, AC))
    return *W;
  if (std::optional<Refusal> W = checkCalls(F, P.Loops, AC))
    return *W;
  return P;
}

} // namespace kopt
