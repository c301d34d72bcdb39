//===- GridSplit.cpp - A grid-stride kernel on a larger grid --------------===//
//
// See GridSplit.h for what is proved. The walk: the kernel's shape (its
// top-level statements, the loop, the counter and bound); where the thread
// indices are used; the loop body's hazards and carried state; every write
// and every use of a written pointer.
//
//===----------------------------------------------------------------------===//

#include "kopt/Analysis/GridSplit.h"
#include "KernelPlanner.h"
#include "kopt/Analysis/BodyHazards.h"
#include "kopt/Analysis/CudaAST.h"
#include "kopt/Analysis/ElementwiseLoop.h"
#include "kopt/Analysis/HiddenPointers.h"
#include "kopt/Analysis/Mutation.h"

#include "clang/AST/ParentMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace clang;
using namespace llvm;

namespace kopt {

namespace {

class Planner : KernelPlanner {
public:
  Planner(const KernelInfo &K, ASTContext &Ctx)
      : KernelPlanner(K, Ctx),
        Body(dyn_cast_or_null<CompoundStmt>(K.Decl->getBody())),
        Parents(const_cast<Stmt *>(K.Decl->getBody())) {}

  Decision<GridSplitPlan> run() {
    if (!Body)
      return refuse(nullptr, "the kernel has no body");
    if (std::optional<Refusal> Why = checkShape())
      return *Why;
    if (std::optional<Refusal> Why = checkThreadIndices())
      return *Why;
    if (std::optional<Refusal> Why = checkLoopBody())
      return *Why;
    if (std::optional<Refusal> Why = checkMemory())
      return *Why;
    return Plan;
  }

private:
  /// Written with blockDim.x, or with a constant every launch's block
  /// size equals (KernelFacts and markLaunchedBlockStrides classify both).
  bool isGridStrideLoop(const Stmt *S) const {
    const auto *For = dyn_cast<ForStmt>(S);
    const LoopInfo *L = For ? loopOf(K, For) : nullptr;
    return L && L->K == LoopInfo::GridStride;
  }

  /// The start of S's text, for a remark.
  std::string excerpt(const Stmt *S) {
    std::string T = text(S);
    return T.size() <= 48 ? T : T.substr(0, 45) + "...";
  }

  /// Declarations, then the grid-stride loop, and nothing else.
  std::optional<Refusal> checkShape() {
    for (const Stmt *S : Body->body())
      if (isGridStrideLoop(S)) {
        Plan.Loop = cast<ForStmt>(S);
        break;
      }
    for (const Stmt *S : Body->body())
      if (const auto *For = dyn_cast<ForStmt>(S); !Plan.Loop && For)
        if (const LoopInfo *L = loopOf(K, For); L && L->GridStartConstBlock)
          return refuse(For,
                        "the loop names the block size in its start and "
                        "stride: " +
                            whyNotLaunchedBlockX(K, *L->GridStartConstBlock));
    if (!Plan.Loop)
      return refuse(nullptr, "no loop at the kernel's top level is `for (i "
                             "= blockIdx.x * blockDim.x + threadIdx.x; i < "
                             "n; i += blockDim.x * gridDim.x)`");
    bool Before = true;
    for (const Stmt *S : Body->body()) {
      if (S == Plan.Loop) {
        Before = false;
        continue;
      }
      if (Before && isa<DeclStmt, NullStmt>(S))
        continue;
      return refuse(S, "the kernel does more than declarations and its "
                       "grid-stride loop: '" +
                           excerpt(S) + "'");
    }
    std::optional<CountedLoop> CL = matchCountedLoop(Plan.Loop);
    if (CL->Inclusive)
      return refuse(Plan.Loop, "the loop's condition is `<=`, not `<`");
    Plan.Index = CL->Var;
    QualType T = CL->Var->getType();
    if (!T->isSignedIntegerType() || Ctx.getTypeSize(T) < 32)
      return refuse(Plan.Loop, "the counter '" + CL->Var->getName() +
                                   "' is not a signed integer of at least "
                                   "32 bits");
    Plan.IndexBits = Ctx.getTypeSize(T);
    Plan.Bound = dyn_cast_or_null<ParmVarDecl>(referencedVar(CL->Bound));
    if (!Plan.Bound)
      return refuse(CL->Bound, "the bound '" + text(CL->Bound) +
                                   "' is not a kernel parameter");
    QualType BT = Plan.Bound->getType();
    if (!BT->isSignedIntegerType() || Ctx.getTypeSize(BT) > Plan.IndexBits)
      return refuse(CL->Bound, "the bound '" + Plan.Bound->getName() +
                                   "' is not a signed integer no wider "
                                   "than the counter");
    if (isModifiedIn(Plan.Bound, Body) || isModifiedIn(Plan.Index, LoopBody()))
      return refuse(Plan.Loop, "the counter or the bound changes in the "
                               "kernel");
    return std::nullopt;
  }

  const Stmt *LoopBody() const { return Plan.Loop->getBody(); }

  /// threadIdx, blockIdx and gridDim only in the loop's start and step, or
  /// in unchanged locals used only there.
  std::optional<Refusal> checkThreadIndices() {
    SmallPtrSet<const Stmt *, 16> Header;
    std::vector<const Stmt *> InOrder;
    auto Mark = [&](const Stmt *S) {
      if (S)
        forEachSubStmt(S, [&](const Stmt *X) {
          if (Header.insert(X).second)
            InOrder.push_back(X);
        });
    };
    Mark(Plan.Loop->getInit());
    Mark(Plan.Loop->getInc());
    // Locals of the header (`int stride = blockDim.x * gridDim.x;`): every
    // reference to them must be in the start or step.
    for (const Stmt *S : Body->body()) {
      const auto *DS = dyn_cast<DeclStmt>(S);
      if (!DS)
        continue;
      for (const Decl *D : DS->decls()) {
        const auto *V = dyn_cast<VarDecl>(D);
        if (!V || !V->getInit() || isModifiedIn(V, Body))
          continue;
        std::vector<const DeclRefExpr *> Refs = referencesTo(Body, V, Ctx);
        if (!Refs.empty() &&
            all_of(Refs, [&](const DeclRefExpr *R) { return Header.count(R); }))
          Mark(V->getInit());
      }
    }
    // The start and the stride hold up to the launch's thread count (the
    // launch keeps it within 31 bits): nothing on their way may be narrower.
    for (const Stmt *S : InOrder)
      if (const auto *E = dyn_cast<Expr>(S);
          E && E->getType()->isIntegerType() &&
          !E->getType()->isBooleanType() && Ctx.getTypeSize(E->getType()) < 32)
        return refuse(E, "the loop's start or step goes through '" + text(E) +
                             "', narrower than 32 bits");
    std::optional<Refusal> Why;
    forEachSubStmt(Body, [&](const Stmt *S) {
      const auto *E = dyn_cast<Expr>(S);
      std::optional<BuiltinRef> B = E ? matchBuiltin(E) : std::nullopt;
      if (Why || !B || B->Var == BuiltinVar::BlockDim || Header.count(S))
        return;
      Why = refuse(S, "'" + text(S) +
                          "' is used outside the loop's start and step: "
                          "the iteration depends on its thread");
    });
    return Why;
  }

  /// Nothing carried, nothing that ties an iteration to its thread.
  std::optional<Refusal> checkLoopBody() {
    if (!K.SharedArrays.empty())
      return refuse(nullptr, "the kernel uses shared memory");
    if (std::optional<BodyHazard> H =
            firstHazard(Body, Ctx,
                        {BodyHazard::Return, BodyHazard::Goto,
                         BodyHazard::Label, BodyHazard::Barrier,
                         BodyHazard::WarpCollective, BodyHazard::ReservedName},
                        "kopt_"))
      return refuse(H->At, "the kernel has '" +
                               (H->Name.empty() ? text(H->At) : H->Name) +
                               "', which ties an iteration to its thread");
    if (std::optional<BodyHazard> H =
            firstHazard(LoopBody(), Ctx, {BodyHazard::Break}))
      return refuse(H->At, "the loop body leaves the loop early");
    std::optional<Refusal> Why;
    SmallPtrSet<const VarDecl *, 8> Inside = varsDeclaredIn(LoopBody());
    forEachSubStmt(Body, [&](const Stmt *S) {
      if (Why)
        return;
      if (isa<AsmStmt>(S)) {
        Why = refuse(S, "the kernel has inline assembly");
        return;
      }
      if (const auto *C = dyn_cast<CallExpr>(S)) {
        if (std::optional<CallHazard> H = callHazard(C, Ctx))
          Why = refuse(C, "the kernel calls '" + H->Name + "', which " +
                              (H->K == CallHazard::Unanalyzed
                                   ? "kopt does not prove pure"
                                   : "may act beyond its result"));
        return;
      }
      std::optional<WriteOf> W = writeOf(S);
      if (!W || S == Plan.Loop->getInc())
        return;
      const VarDecl *V = localWriteTarget(W->Target);
      if (V && !Inside.count(V) && isInLoopBody(S))
        Why = refuse(S, "the loop writes '" + V->getName() +
                            "', declared outside it: state carried from "
                            "one iteration to the next");
    });
    if (Why)
      return Why;
    if (std::optional<std::string> Hidden = hiddenPointer(K.Decl, Ctx))
      return refuse(nullptr, *Hidden);
    return std::nullopt;
  }

  bool isInLoopBody(const Stmt *S) {
    for (const Stmt *P = S; P; P = Parents.getParent(P))
      if (P == LoopBody())
        return true;
    return false;
  }

  /// The pointer parameter a subscript `B[e]` is taken of, directly.
  static const ParmVarDecl *subscriptParam(const Expr *E) {
    const auto *A = dyn_cast<ArraySubscriptExpr>(E->IgnoreParens());
    if (!A)
      return nullptr;
    const auto *P = dyn_cast_or_null<ParmVarDecl>(
        referencedVar(A->getBase()->IgnoreParenImpCasts()));
    return P && P->getType()->isPointerType() ? P : nullptr;
  }

  /// Memory written only as B[i] / B[o + i] of __restrict__ parameters,
  /// each written B used only so.
  std::optional<Refusal> checkMemory() {
    std::optional<Refusal> Why;
    forEachSubStmt(Body, [&](const Stmt *S) {
      std::optional<WriteOf> W = writeOf(S);
      if (Why || !W || S == Plan.Loop->getInc() || localWriteTarget(W->Target))
        return;
      const Expr *T = W->Target->IgnoreParens();
      // A member of the element (`B[i].x = v`) is still element i.
      while (const auto *M = dyn_cast<MemberExpr>(T)) {
        if (M->isArrow())
          break;
        T = M->getBase()->IgnoreParens();
      }
      const ParmVarDecl *P = subscriptParam(T);
      if (!P || !isInLoopBody(S)) {
        Why = refuse(S, "the kernel writes '" + text(W->Target) +
                            "', which is not a pointer parameter's element "
                            "in the loop");
        return;
      }
      if (!is_contained(Plan.Written, P))
        Plan.Written.push_back(P);
    });
    if (Why)
      return Why;
    for (const ParmVarDecl *P : Plan.Written) {
      if (!P->getType().isRestrictQualified())
        return refuse(nullptr, "'" + P->getName() +
                                   "' is written and not __restrict__ "
                                   "(restrict-const adds a __restrict__ "
                                   "copy)");
      std::string Offset;
      bool First = true;
      for (const DeclRefExpr *R : referencesTo(Body, P, Ctx)) {
        const auto *A = dyn_cast_or_null<ArraySubscriptExpr>(
            Parents.getParentIgnoreParenImpCasts(const_cast<DeclRefExpr *>(R)));
        const Expr *Off = nullptr;
        if (!A || A->getBase()->IgnoreParenImpCasts() != R ||
            !isInLoopBody(A) ||
            !matchElementIndex(A->getIdx(), Plan.Index, LoopBody(), K.Decl, Ctx,
                               Off))
          return refuse(R, "'" + P->getName() +
                               "' is written, and used here other than as "
                               "its element '" +
                               P->getName() + "[" + Plan.Index->getName() +
                               "]' of the loop's index");
        const Stmt *Up =
            Parents.getParentIgnoreParens(const_cast<ArraySubscriptExpr *>(A));
        if (const auto *U = dyn_cast_or_null<UnaryOperator>(Up);
            U && U->getOpcode() == UO_AddrOf)
          return refuse(A, "the address of '" + text(A) + "' is taken");
        std::string This =
            Off ? withoutSpaces(sourceText(Off->getSourceRange(), Ctx)) : "";
        if (!First && This != Offset)
          return refuse(A, "'" + P->getName() +
                               "' is accessed at two different offsets from "
                               "the index");
        Offset = This;
        First = false;
      }
    }
    if (Plan.Written.empty())
      return refuse(nullptr, "the loop writes no memory");
    return std::nullopt;
  }

  const CompoundStmt *Body;
  ParentMap Parents;
  GridSplitPlan Plan;
};

} // namespace

Decision<GridSplitPlan> planGridSplit(const KernelInfo &K, ASTContext &Ctx) {
  return Planner(K, Ctx).run();
}

} // namespace kopt
