//===- RowThreads.cpp - A thread-per-row kernel run by G threads a row ----===//
//
// See RowThreads.h for what is proved. The walk is in three steps: the row
// index and the kernel-wide hazards; the loops outside other loops and how
// each one carries state; every memory access, by the pointer parameter it
// is based on, checked against the ownership rules.
//
//===----------------------------------------------------------------------===//

#include "kopt/Analysis/RowThreads.h"
#include "KernelPlanner.h"
#include "kopt/Analysis/BodyHazards.h"
#include "kopt/Analysis/CudaAST.h"
#include "kopt/Analysis/HiddenPointers.h"
#include "kopt/Analysis/LocalPointers.h"
#include "kopt/Analysis/Mutation.h"

#include "clang/AST/ParentMap.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace clang;
using namespace llvm;

namespace kopt {

namespace {

bool isLoop(const Stmt *S) {
  return isa<ForStmt, WhileStmt, DoStmt, CXXForRangeStmt>(S);
}

/// One dereference of a pointer: `B[e]`, `*p` or `p->m`.
struct Access {
  const Expr *E = nullptr;
  const Expr *Pointer = nullptr; ///< the pointer dereferenced
  const ParmVarDecl *Root = nullptr;
  bool Writes = false, Reads = true;
  const Stmt *Store = nullptr; ///< the statement writing it
  int Loop = -1;               ///< index into Plan.Loops, -1 outside loops
};

class Planner : KernelPlanner {
public:
  Planner(const KernelInfo &K, ASTContext &Ctx, unsigned Threads,
          bool Reassociate)
      : KernelPlanner(K, Ctx), Body(K.Decl->getBody()),
        Parents(const_cast<Stmt *>(Body)), Threads(Threads),
        Reassociate(Reassociate) {}

  Decision<RowThreadsPlan> run() {
    if (std::optional<Refusal> Why = checkKernel())
      return *Why;
    if (std::optional<Refusal> Why = findLoops())
      return *Why;
    if (std::optional<Refusal> Why = checkAccesses())
      return *Why;
    if (none_of(Plan.Loops, [](const RowLoop &L) { return L.Split; }))
      return NotReduced
                 ? *NotReduced
                 : refuse(nullptr, "no loop of the row can be split among its "
                                   "threads (each one carries state or writes "
                                   "nothing): more threads would repeat the "
                                   "same work");
    return Plan;
  }

private:
  /// The row index, and what no kernel run G times a row may hold.
  std::optional<Refusal> checkKernel() {
    if (K.IsTemplate)
      return refuse(nullptr, "template kernels are analysed as instantiated");
    if (!K.SharedArrays.empty())
      return refuse(nullptr, "the kernel uses shared memory");
    if (std::optional<BodyHazard> H = firstHazard(
            Body, Ctx,
            {BodyHazard::Barrier, BodyHazard::WarpCollective, BodyHazard::Goto,
             BodyHazard::Label, BodyHazard::ReservedName},
            "kopt_"))
      return refuse(H->At, "the kernel has '" +
                               (H->Name.empty() ? text(H->At) : H->Name) +
                               "', which ties it to its threads");
    if (std::optional<std::string> Hidden = hiddenPointer(K.Decl, Ctx))
      return refuse(nullptr, *Hidden);
    std::optional<Refusal> Why;
    std::optional<int64_t> Named;          // a row naming another block size
    SmallVector<const Stmt *, 8> Builtins; // in source order, for remarks
    forEachSubStmt(Body, [&](const Stmt *S) {
      if (Why)
        return;
      if (isa<AsmStmt>(S))
        Why = refuse(S, "the kernel has inline assembly");
      else if (const auto *E = dyn_cast<Expr>(S); E && matchBuiltin(E))
        Builtins.push_back(S);
      else if (const auto *VD = dyn_cast<DeclStmt>(S)) {
        for (const Decl *D : VD->decls())
          if (const auto *V = dyn_cast<VarDecl>(D);
              V && !Plan.Row && V->getInit())
            if (std::optional<BlockTerm> T =
                    matchGlobalThreadIndex(V->getInit(), Body, Ctx)) {
              if (!T->Constant || T->Constant == K.LaunchedBlockX)
                Plan.Row = V;
              else if (!Named)
                Named = T->Constant;
            }
      } else if (const auto *C = dyn_cast<CallExpr>(S))
        Why = checkCall(C);
    });
    if (Why)
      return Why;
    if (!Plan.Row && Named)
      return refuse(nullptr, "the row 'blockIdx.x * " + std::to_string(*Named) +
                                 " + threadIdx.x' is not a thread's place in "
                                 "the grid: " +
                                 whyNotLaunchedBlockX(K, *Named));
    if (!Plan.Row)
      return refuse(nullptr, "no variable holds 'blockIdx.x * blockDim.x + "
                             "threadIdx.x' (the row of a thread-per-row "
                             "kernel)");
    Plan.RowInit = Plan.Row->getInit();
    SmallPtrSet<const Stmt *, 8> InInit;
    forEachSubStmt(Plan.RowInit, [&](const Stmt *S) { InInit.insert(S); });
    for (const Stmt *B : Builtins)
      if (!InInit.count(B))
        return refuse(B, "'" + text(B) +
                             "' is used outside the row index's initializer");
    if (!isa<DeclRefExpr>(stripCasts(Plan.RowInit)) &&
        Plan.RowInit->getType()->isIntegerType() &&
        !isModifiedIn(Plan.Row, Body))
      return std::nullopt;
    return refuse(nullptr, "the row index '" + Plan.Row->getName() +
                               "' is not a plain, unchanged variable");
  }

  /// Calls run G times: only CUDA's and the C library's functions without
  /// pointer arguments (no atomics, printf, malloc), and read-only loads.
  std::optional<Refusal> checkCall(const CallExpr *C) {
    std::optional<CallHazard> H = callHazard(C, Ctx);
    if (!H)
      return std::nullopt;
    switch (H->K) {
    case CallHazard::Launch:
      return refuse(C, "the kernel launches kernels");
    case CallHazard::Unanalyzed:
      return refuse(C, "the kernel calls '" + H->Name +
                           "', which kopt does not prove pure");
    case CallHazard::Effects:
      break;
    }
    return refuse(C, "the kernel calls '" + H->Name +
                         "', which each of the row's threads would run");
  }

  const Stmt *outermostLoop(const Stmt *S) {
    const Stmt *Found = nullptr;
    for (const Stmt *P = Parents.getParent(S); P; P = Parents.getParent(P))
      if (isLoop(P))
        Found = P;
    return Found;
  }

  /// Loops outside other loops: how each carries state, and its counter
  /// when it stores.
  std::optional<Refusal> findLoops() {
    forEachSubStmt(Body, [&](const Stmt *S) {
      if (isLoop(S) && !outermostLoop(S)) {
        RowLoop L;
        L.For = dyn_cast<ForStmt>(S);
        Plan.Loops.push_back(L);
        LoopStmts.push_back(S);
      }
    });
    if (Plan.Loops.empty())
      return refuse(nullptr, "no loop walks the row");
    for (size_t I = 0; I < LoopStmts.size(); ++I) {
      const Stmt *S = LoopStmts[I];
      RowLoop &L = Plan.Loops[I];
      SmallPtrSet<const VarDecl *, 8> Inside = varsDeclaredIn(S);
      bool Carries = false;
      forEachSubStmt(S, [&](const Stmt *X) {
        std::optional<WriteOf> W = writeOf(X);
        if (!W)
          return;
        const VarDecl *V = localWriteTarget(W->Target);
        if (!V)
          return;
        if (L.For && X == L.For->getInc())
          return;
        if (!Inside.count(V) || (L.For && V == loopVar(L.For)))
          Carries = true;
      });
      if (Carries && L.For) {
        std::optional<Refusal> Why = planReduction(L);
        Carries = Why.has_value();
        if (Why && !NotReduced)
          NotReduced = *Why;
      }
      LoopCarries.push_back(Carries);
    }
    return std::nullopt;
  }

  /// Splits L when all it carries is accumulators that may be combined
  /// (exact, or reassociation allowed); why not otherwise.
  std::optional<Refusal> planReduction(RowLoop &L) {
    Decision<std::vector<Accumulator>> D = loopAccumulators(L.For, Ctx);
    if (auto *Why = std::get_if<Refusal>(&D))
      return Refusal{"the loop carries more than a reduction: " + Why->Message,
                     Why->Loc};
    std::vector<Accumulator> &Accs = std::get<std::vector<Accumulator>>(D);
    if (Accs.empty())
      return refuse(L.For, "the loop changes its own counter");
    for (const Accumulator &A : Accs)
      if (!A.Exact && !Reassociate)
        return refuse(
            L.For,
            A.Kind == Accumulator::Sum
                ? "the loop sums the floating-point '" + A.Var->getName() +
                      "': dividing it among the row's threads "
                      "adds in another order (reassociate=true "
                      "allows it; results may differ in rounding)"
                : "the loop keeps the floating-point '" + A.Var->getName() +
                      "' by comparison: divided among the row's "
                      "threads, which of two equal values (-0.0, "
                      "+0.0) it keeps depends on the order "
                      "(reassociate=true allows it)");
    std::optional<CountedLoop> CL = matchCountedLoop(L.For);
    if (!CL || !isa<DeclStmt>(L.For->getInit()) ||
        (CL->Step && !isOne(CL->Step)) ||
        isModifiedIn(CL->Var, L.For->getBody()))
      return refuse(L.For, "the reduction loop is not 'for (T i = s; i < n; "
                           "++i)' with i unchanged in its body");
    if (std::optional<Refusal> Why = checkCounter(*CL))
      return Why;
    if (leavesEarly(L.For))
      return refuse(L.For, "the reduction loop leaves early (break or "
                           "return): its threads would stop at different "
                           "places");
    std::optional<int64_t> From = evaluateInt(CL->Init, Ctx, Body);
    std::optional<int64_t> To = evaluateInt(CL->Bound, Ctx, Body);
    if (From && To && *To - *From + (CL->Inclusive ? 1 : 0) < Threads)
      return refuse(L.For, "the reduction loop runs " +
                               Twine(std::max<int64_t>(
                                   0, *To - *From + (CL->Inclusive ? 1 : 0))) +
                               " iterations, fewer than the row's " +
                               Twine(Threads) + " threads");
    L.Var = CL->Var;
    L.Init = CL->Init;
    L.Split = true;
    L.Accumulators = std::move(Accs);
    return std::nullopt;
  }

  static const VarDecl *loopVar(const ForStmt *For) {
    std::optional<CountedLoop> CL = matchCountedLoop(For);
    return CL ? CL->Var : nullptr;
  }

  /// The pointer parameter P is based on; null when it cannot be told.
  /// Local sets when P names a local array (thread-private memory).
  const ParmVarDecl *rootParam(const Expr *P, bool &Local) {
    const ValueDecl *Root = pointerRoot(P, Body);
    if (const auto *Parm = dyn_cast_or_null<ParmVarDecl>(Root))
      return Parm->getType()->isPointerType() ? Parm : nullptr;
    const auto *V = dyn_cast_or_null<VarDecl>(Root);
    Local = V && V->hasLocalStorage() && V->getType()->isArrayType();
    return nullptr;
  }

  /// Every dereference in the kernel with its root, loop and store.
  std::optional<Refusal> collectAccesses() {
    // The dereference each write lands in: the writing statement, and
    // whether it is a plain `=` of the whole element (no read).
    DenseMap<const Expr *, std::pair<const Stmt *, bool>> Written;
    std::optional<Refusal> Why;
    forEachSubStmt(Body, [&](const Stmt *S) {
      std::optional<WriteOf> W = writeOf(S);
      if (!W || Why || localWriteTarget(W->Target))
        return;
      const Expr *D = writtenDereference(W->Target);
      if (!D) {
        Why = refuse(S, "the kernel writes '" + text(W->Target) +
                            "', neither a local variable nor memory "
                            "through a pointer");
        return;
      }
      Written[D] = {S, W->Plain && D == W->Target->IgnoreParens()};
    });
    if (Why)
      return Why;
    forEachSubStmt(Body, [&](const Stmt *S) {
      if (Why)
        return;
      const auto *E = dyn_cast<Expr>(S);
      if (!E)
        return;
      Access A;
      A.E = E;
      if (const auto *Sub = dyn_cast<ArraySubscriptExpr>(E)) {
        const Expr *Base = Sub->getBase()->IgnoreParenImpCasts();
        if (!Base->getType()->isPointerType()) {
          // An array's element: a local array is the thread's own; a
          // member array is reached through the dereference below it.
          const VarDecl *V = referencedVar(Base);
          if (V && !V->hasLocalStorage())
            Why = refuse(E, "the kernel reaches '" + V->getName() +
                                "', which is not local");
          return;
        }
        A.Pointer = Sub->getBase();
      } else if (const auto *U = dyn_cast<UnaryOperator>(E);
                 U && U->getOpcode() == UO_Deref)
        A.Pointer = U->getSubExpr();
      else if (const auto *M = dyn_cast<MemberExpr>(E); M && M->isArrow())
        A.Pointer = M->getBase();
      else
        return;
      bool Local = false;
      A.Root = rootParam(A.Pointer, Local);
      if (Local)
        return;
      if (!A.Root) {
        Why = refuse(E, "cannot tell which parameter '" + text(A.Pointer) +
                            "' points into");
        return;
      }
      if (auto It = Written.find(E); It != Written.end()) {
        A.Writes = true;
        A.Store = It->second.first;
        A.Reads = !It->second.second;
      }
      if (const Stmt *L = outermostLoop(E))
        A.Loop = std::find(LoopStmts.begin(), LoopStmts.end(), L) -
                 LoopStmts.begin();
      Accesses.push_back(A);
    });
    return Why;
  }

  /// A store statement run by one thread: a whole statement with no other
  /// side effect.
  std::optional<Refusal> checkGuardable(const Access &A) {
    const Stmt *S = A.Store;
    const Stmt *P = Parents.getParent(S);
    if (isa_and_nonnull<ExprWithCleanups>(P)) {
      S = P;
      P = Parents.getParent(S);
    }
    bool Whole = P && !isa<Expr>(P);
    if (const auto *F = dyn_cast_or_null<ForStmt>(P))
      Whole = F->getBody() == S;
    if (const auto *W = dyn_cast_or_null<WhileStmt>(P))
      Whole = W->getBody() == S;
    if (const auto *D = dyn_cast_or_null<DoStmt>(P))
      Whole = D->getBody() == S;
    if (const auto *I = dyn_cast_or_null<IfStmt>(P))
      Whole = I->getThen() == S || I->getElse() == S;
    if (!Whole)
      return refuse(S, "the store '" + text(S) + "' is part of an expression");
    // Other writes, or calls with effects (a pure math call such as
    // `out[i] = sqrtf(s)` is fine; checkCall refused the others already).
    bool Effects = false;
    for (const Stmt *C : S->children())
      if (C)
        forEachSubStmt(C, [&](const Stmt *X) {
          const auto *Call = dyn_cast<CallExpr>(X);
          Effects |= writeOf(X).has_value() ||
                     (Call && callHazard(Call, Ctx).has_value());
        });
    if (Effects)
      return refuse(S, "the store '" + text(S) + "' has other side effects");
    return std::nullopt;
  }

  /// The ownership rules of RowThreads.h, parameter by parameter.
  std::optional<Refusal> checkAccesses() {
    if (std::optional<Refusal> Why = collectAccesses())
      return Why;
    SmallVector<const ParmVarDecl *, 8> WrittenRoots;
    for (const Access &A : Accesses)
      if (A.Writes && !is_contained(WrittenRoots, A.Root))
        WrittenRoots.push_back(A.Root);
    SmallPtrSet<const Stmt *, 8> Guarded;
    for (const ParmVarDecl *R : WrittenRoots) {
      if (!R->getType().isRestrictQualified())
        return refuse(nullptr, "'" + R->getName() +
                                   "' is written and not __restrict__ "
                                   "(restrict-const adds a __restrict__ copy)");
      bool InLoops = false, Outside = false;
      for (const Access &A : Accesses)
        if (A.Root == R)
          (A.Loop < 0 ? Outside : InLoops) = true;
      if (InLoops && Outside)
        return refuse(nullptr, "'" + R->getName() +
                                   "' is accessed both inside and outside "
                                   "the row's loops");
      const VarDecl *Base = nullptr;
      for (const Access &A : Accesses) {
        if (A.Root != R)
          continue;
        if (Outside) {
          if (!A.Writes && !insideStoreOf(A.E, R))
            return refuse(A.E, "'" + text(A.E) +
                                   "' reads what only one thread of the row "
                                   "writes");
          if (A.Writes && Guarded.insert(A.Store).second) {
            if (std::optional<Refusal> Why = checkGuardable(A))
              return Why;
            Plan.LaneZeroStores.push_back(A.Store);
          }
          continue;
        }
        if (std::optional<Refusal> Why = checkOwned(A, Base))
          return Why;
        RowLoop &L = Plan.Loops[A.Loop];
        if (L.Split || !A.Writes || !Guarded.insert(A.Store).second)
          continue;
        if (std::optional<Refusal> Why = checkGuardable(A))
          return Why;
        L.OwnedStores.push_back(A.Store);
      }
    }
    return std::nullopt;
  }

  /// True if E lies in a statement that writes through R (lane 0 runs the
  /// whole statement, reads of R in it included).
  bool insideStoreOf(const Expr *E, const ParmVarDecl *R) {
    for (const Stmt *P = E; P; P = Parents.getParent(P))
      for (const Access &A : Accesses)
        if (A.Root == R && A.Writes && A.Store == P)
          return true;
    return false;
  }

  /// An access of a written parameter inside a loop: `B[i]`, one base for
  /// the parameter, i the loop's counter; a read only where the loop is
  /// split. Decides the loop's form on first sight.
  std::optional<Refusal> checkOwned(const Access &A, const VarDecl *&Base) {
    RowLoop &L = Plan.Loops[A.Loop];
    const Stmt *LoopStmt = LoopStmts[A.Loop];
    if (!L.For)
      return refuse(LoopStmt, "a loop that writes '" + A.Root->getName() +
                                  "' is not a for loop");
    std::optional<CountedLoop> CL = matchCountedLoop(L.For);
    if (!CL || !isa<DeclStmt>(L.For->getInit()) ||
        (CL->Step && !isOne(CL->Step)) ||
        isModifiedIn(CL->Var, L.For->getBody()))
      return refuse(L.For, "a loop that writes '" + A.Root->getName() +
                               "' is not 'for (T i = s; i < n; ++i)' with i "
                               "unchanged in its body");
    if (std::optional<Refusal> Why = checkCounter(*CL))
      return Why;
    L.Var = CL->Var;
    L.Init = CL->Init;
    L.Split = !LoopCarries[A.Loop] && !leavesEarly(L.For);
    const auto *Sub = dyn_cast<ArraySubscriptExpr>(A.E);
    const VarDecl *B =
        Sub ? referencedVar(stripCasts(Sub->getBase())) : nullptr;
    std::optional<std::string> Offset =
        Sub ? counterOffset(Sub->getIdx(), L.Var) : std::nullopt;
    if (!B || !Offset)
      return refuse(A.E, "'" + text(A.E) + "' is not '" + A.Root->getName() +
                             "' indexed by the loop's counter '" +
                             L.Var->getName() +
                             "' (plus an offset the same in every loop)");
    if (Base && Base != B)
      return refuse(A.E, "'" + A.Root->getName() +
                             "' is reached through two pointers ('" +
                             Base->getName() + "', '" + B->getName() + "')");
    auto [It, New] = Offsets.try_emplace(A.Root, *Offset);
    if (!New && It->second != *Offset)
      return refuse(A.E, "'" + A.Root->getName() +
                             "' is indexed with two offsets ('" + It->second +
                             "', '" + *Offset + "')");
    if (isModifiedIn(B, Body))
      return refuse(A.E, "'" + B->getName() + "' changes in the kernel");
    Base = B;
    if (A.Reads && !L.Split)
      return refuse(A.E, "'" + text(A.E) +
                             "' is read in a loop that carries state (or "
                             "leaves early), where another thread of the "
                             "row may own it");
    return std::nullopt;
  }

  /// The offset O of an index `i`, `O + i` or `i + O` (i the counter; ""
  /// for `i` alone), when O has one value in the whole kernel: no side
  /// effect or memory read, and only parameters and variables declared
  /// outside loops that never change. Its text, without spaces, names it.
  std::optional<std::string> counterOffset(const Expr *Index,
                                           const VarDecl *Counter) {
    const Expr *I = stripCasts(Index);
    if (referencedVar(I) == Counter)
      return std::string();
    const auto *Add = dyn_cast<BinaryOperator>(I);
    if (!Add || Add->getOpcode() != BO_Add)
      return std::nullopt;
    const Expr *O = nullptr;
    if (referencedVar(stripCasts(Add->getRHS())) == Counter)
      O = Add->getLHS();
    else if (referencedVar(stripCasts(Add->getLHS())) == Counter)
      O = Add->getRHS();
    if (!O || hasSideEffects(O, Ctx))
      return std::nullopt;
    bool Uniform = true;
    forEachSubStmt(O, [&](const Stmt *S) {
      if (isa<ArraySubscriptExpr, MemberExpr, CallExpr>(S))
        Uniform = false;
      else if (const auto *U = dyn_cast<UnaryOperator>(S);
               U && U->getOpcode() == UO_Deref)
        Uniform = false;
      else if (const auto *R = dyn_cast<DeclRefExpr>(S)) {
        const auto *V = dyn_cast<VarDecl>(R->getDecl());
        if (V && (!V->hasLocalStorage() || isModifiedIn(V, Body) ||
                  declaredInLoop(V)))
          Uniform = false;
      }
    });
    std::string Text = withoutSpaces(sourceText(O->getSourceRange(), Ctx));
    if (!Uniform || Text.empty())
      return std::nullopt;
    return Text;
  }

  bool declaredInLoop(const VarDecl *V) {
    return any_of(LoopStmts,
                  [&](const Stmt *L) { return varsDeclaredIn(L).count(V); });
  }

  bool isOne(const Expr *E) {
    std::optional<int64_t> V = evaluateInt(E, Ctx, Body);
    return V && *V == 1;
  }

  bool leavesEarly(const ForStmt *For) {
    return firstHazard(For->getBody(), Ctx,
                       {BodyHazard::Return, BodyHazard::Break}, "")
        .has_value();
  }

  /// The counter is stepped by G in a 64-bit shadow: its type and its
  /// bound's have at most 32 bits and one signedness, the counter at least
  /// as wide (it never wraps before the bound), so every value of the
  /// original loop is exact there and the shadow ends where it ends.
  std::optional<Refusal> checkCounter(const CountedLoop &CL) {
    QualType T = CL.Var->getType();
    QualType B = CL.Bound->IgnoreImpCasts()->getType();
    if (!T->isIntegerType() || !B->isIntegerType() || Ctx.getTypeSize(T) > 32 ||
        Ctx.getTypeSize(B) > 32 || Ctx.getTypeSize(T) < Ctx.getTypeSize(B) ||
        T->isSignedIntegerType() != B->isSignedIntegerType() ||
        (CL.Inclusive && !T->isSignedIntegerType()))
      return refuse(CL.Bound,
                    "the counter '" + CL.Var->getName() + "' (" +
                        T.getAsString() + ") and its bound (" +
                        B.getAsString() +
                        ") are not integers of at most 32 bits, one "
                        "signedness, the counter as wide as the bound (and "
                        "signed for '<=')");
    if (hasSideEffects(CL.Init, Ctx) || hasSideEffects(CL.Bound, Ctx))
      return refuse(CL.Bound, "the loop's start or bound has side effects");
    return std::nullopt;
  }

  const Stmt *Body;
  ParentMap Parents;
  RowThreadsPlan Plan;
  std::vector<const Stmt *> LoopStmts;
  std::vector<bool> LoopCarries;
  std::vector<Access> Accesses;
  unsigned Threads;
  bool Reassociate;
  /// Why the first loop that carries state could not be split as a
  /// reduction (the refusal when no loop is split at all).
  std::optional<Refusal> NotReduced;
  /// The offset every in-loop access of a written parameter adds to the
  /// counter (see counterOffset).
  DenseMap<const ParmVarDecl *, std::string> Offsets;
};

} // namespace

Decision<RowThreadsPlan> planRowThreads(const KernelInfo &K, ASTContext &Ctx,
                                        unsigned Threads, bool Reassociate) {
  if (!K.Decl || !K.Decl->getBody())
    return Refusal{"the kernel has no body", K.Loc};
  return Planner(K, Ctx, Threads, Reassociate).run();
}

} // namespace kopt
