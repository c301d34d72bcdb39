//===- PartialCombine.cpp - Partials that only their combine reads --------===//
//
// The rules and what they trust are in PartialCombine.h.
//
//===----------------------------------------------------------------------===//

#include "kopt/Analysis/PartialCombine.h"
#include "kopt/Analysis/CudaAST.h"
#include "kopt/Analysis/DeviationSums.h"
#include "kopt/Analysis/IndexClassifier.h"
#include "kopt/Analysis/LoopAccumulators.h"
#include "kopt/Analysis/Mutation.h"
#include "kopt/Analysis/ReductionTree.h"

#include "clang/AST/Expr.h"
#include "clang/AST/ParentMap.h"
#include "llvm/ADT/StringSwitch.h"

using namespace clang;
using namespace llvm;

namespace kopt {

namespace {

/// What a variable holding a loop's partial holds at a point after the
/// loop: one thread's partial, a warp's total, the block's total, or a value
/// that is none of them (assigned afresh).
enum class Level { Thread, Warp, Block, Free };

std::optional<Accumulator::KindT> atomicKind(StringRef Callee) {
  Callee.consume_back("_block");
  Callee.consume_back("_system");
  return StringSwitch<std::optional<Accumulator::KindT>>(Callee)
      .Case("atomicAdd", Accumulator::Sum)
      .Case("atomicMax", Accumulator::Max)
      .Case("atomicMin", Accumulator::Min)
      .Default(std::nullopt);
}

std::optional<Accumulator::KindT> treeKind(const ReductionTree &T) {
  if (T.Add)
    return Accumulator::Sum;
  return minMaxKind(T.CalleeText);
}

StringRef calleeName(const CallExpr *C) {
  const FunctionDecl *FD = C->getDirectCallee();
  return FD && FD->getIdentifier() ? FD->getName() : StringRef();
}

/// Whether E, or a function it calls (a few levels down), contains a call
/// that satisfies Pred.
bool callsSomething(const Stmt *S, function_ref<bool(const CallExpr *)> Pred,
                    unsigned Depth = 3) {
  bool Found = false;
  forEachSubStmt(S, [&](const Stmt *C) {
    const auto *Call = dyn_cast<CallExpr>(C);
    if (Found || !Call)
      return;
    if (Pred(Call)) {
      Found = true;
      return;
    }
    const FunctionDecl *FD = Call->getDirectCallee();
    if (Depth > 0 && FD && FD->hasBody())
      Found = callsSomething(FD->getBody(), Pred, Depth - 1);
  });
  return Found;
}

bool isFoldShuffle(StringRef Name) {
  return Name == "__shfl_xor_sync" || Name == "__shfl_down_sync";
}

/// The level a call that reduces across threads leaves its result at: a
/// function of the file that waits at a barrier (a block's), one that only
/// shuffles down or across (a warp's), cooperative_groups::reduce (a
/// tile's, at most a warp); none for any other call, and for a function
/// that also shuffles up (a scan gives each thread its own value).
std::optional<Level> reductionCallLevel(const CallExpr *C) {
  const FunctionDecl *FD = C->getDirectCallee();
  if (!FD)
    return std::nullopt;
  if (FD->getName() == "reduce" && StringRef(FD->getQualifiedNameAsString())
                                       .starts_with("cooperative_groups::"))
    return Level::Warp;
  if (!FD->hasBody()) {
    // Declared in a header read without bodies (the preamble): its name is
    // all there is.
    std::string Name = FD->getName().lower();
    if (!StringRef(Name).contains("reduce"))
      return std::nullopt;
    return StringRef(Name).contains("block") ? Level::Block : Level::Warp;
  }
  if (callsSomething(FD->getBody(), [](const CallExpr *X) {
        return calleeName(X) == "__shfl_up_sync";
      }))
    return std::nullopt;
  if (callsSomething(FD->getBody(),
                     [](const CallExpr *X) { return isBarrierCall(X); }))
    return Level::Block;
  if (callsSomething(FD->getBody(), [](const CallExpr *X) {
        return isFoldShuffle(calleeName(X));
      }))
    return Level::Warp;
  return std::nullopt;
}

bool refersTo(const Expr *E, const VarDecl *V) {
  return referencedVar(stripCasts(E)) == V;
}

class Follower {
public:
  Follower(const FunctionDecl *F, const ForStmt *Loop, PartialScope Scope,
           ASTContext &AC)
      : F(F), Loop(Loop), Scope(Scope), AC(AC),
        Parents(const_cast<Stmt *>(F->getBody())) {
    std::vector<Refusal> Ignored;
    findReductionTrees(F, AC, Trees, Ignored);
  }

  std::optional<Refusal> follow(const Accumulator &A) {
    return follow(A.Var, A.Kind, Loop->getEndLoc());
  }

  /// V holds a thread's partial of kind K from After on.
  std::optional<Refusal> follow(const VarDecl *V, Accumulator::KindT K,
                                SourceLocation After) {
    std::vector<Held> Work{{V, K, After, Level::Thread, V}};
    while (!Work.empty()) {
      Held H = Work.back();
      Work.pop_back();
      if (std::optional<Refusal> Why = followOne(H, Work))
        return Why;
    }
    return std::nullopt;
  }

private:
  /// A variable holding a loop's partial, or a value computed from it at
  /// level L: its reads after After are checked.
  struct Held {
    const VarDecl *Var;
    Accumulator::KindT Kind;
    SourceLocation After;
    Level L;
    const VarDecl *Origin; ///< the loop's accumulator, which Var derives from
  };

  std::optional<Refusal> followOne(Held H, std::vector<Held> &Work) {
    const SourceManager &SM = AC.getSourceManager();
    SourceLocation After = SM.getExpansionLoc(H.After);
    const Stmt *Consumed = nullptr; // the statement that read the last ref
    for (const DeclRefExpr *R : referencesTo(F->getBody(), H.Var, AC)) {
      if (!SM.isBeforeInTranslationUnit(After,
                                        SM.getExpansionLoc(R->getBeginLoc())))
        continue;
      const Stmt *S = statementOf(R);
      if (S == Consumed)
        continue;
      Consumed = S;
      if (H.L == Level::Free || (H.L == Level::Block && !Scope.Grid))
        continue;
      std::optional<Level> Next = step(H, S, Work);
      if (!Next)
        return Refusal{
            "vectorizing changes which elements each thread folds into '" +
                H.Origin->getName().str() + "', and at " +
                str(lineCol(R->getBeginLoc(), AC)) + " ('" +
                oneLine(sourceText(S->getSourceRange(), AC)) + "') " +
                (H.L == Level::Thread ? "a thread's partial"
                 : H.L == Level::Warp ? "a warp's total"
                                      : "a block's total") +
                " is used other than in their combine " +
                (Scope.Grid ? "over the grid (an atomic into one address, "
                              "directly or after warp shuffles)"
                            : "over the block (a shared-memory tree, warp "
                              "shuffles, an atomic, a function that reduces "
                              "across threads)"),
            lineCol(R->getBeginLoc(), AC)};
      H.L = lift(*Next);
    }
    return std::nullopt;
  }

  Level lift(Level L) const {
    return Scope.OneWarpBlocks && L == Level::Warp ? Level::Block : L;
  }

  /// The variable whose initializer is S (`float t = f(v);`), if any.
  const VarDecl *initializedBy(const Stmt *S) {
    const auto *DS = dyn_cast_or_null<DeclStmt>(Parents.getParent(S));
    const auto *V = DS && DS->isSingleDecl()
                        ? dyn_cast<VarDecl>(DS->getSingleDecl())
                        : nullptr;
    return V && V->getInit() == S ? V : nullptr;
  }

  /// The full expression R is part of (`part[w] = v` in `if (lane == 0)
  /// part[w] = v;`, the condition of an if, an initializer).
  const Stmt *statementOf(const DeclRefExpr *R) {
    const Stmt *S = R;
    while (isa_and_nonnull<Expr>(Parents.getParent(S)))
      S = Parents.getParent(S);
    return S;
  }

  /// The call R is an argument of (through casts and parentheses).
  const CallExpr *callTaking(const DeclRefExpr *R) {
    const Stmt *S = R;
    const Stmt *P = Parents.getParent(S);
    while (isa_and_nonnull<ImplicitCastExpr, ParenExpr, CStyleCastExpr>(P)) {
      S = P;
      P = Parents.getParent(S);
    }
    const auto *C = dyn_cast_or_null<CallExpr>(P);
    return C && llvm::is_contained(C->arguments(), S) ? C : nullptr;
  }

  bool unconditional(const Stmt *S) {
    for (const Stmt *P = Parents.getParent(S); P; P = Parents.getParent(P))
      if (!isa<CompoundStmt>(P))
        return false;
    return true;
  }

  /// The level V holds after S, a full expression that refers to it, or
  /// none when S exposes what V holds at level L.
  std::optional<Level> step(const Held &H, const Stmt *S,
                            std::vector<Held> &Work) {
    const VarDecl *V = H.Var;
    Level L = H.L;
    // A value computed from V's into a new variable: followed in its turn.
    auto Into = [&](Level Of) {
      if (const VarDecl *W = initializedBy(S))
        Work.push_back({W, H.Kind, S->getEndLoc(), lift(Of), H.Origin});
    };
    const auto *B = dyn_cast<BinaryOperator>(S);
    bool AssignsV =
        B && B->getOpcode() == BO_Assign && refersTo(B->getLHS(), V);
    // A copy into a new variable (`float w = v;`, warp-reduce's): followed
    // in its turn; v keeps what it holds.
    if (isa<DeclRefExpr>(stripCasts(cast<Expr>(S))) && initializedBy(S)) {
      Into(L);
      return L;
    }
    // v = e, e not reading v: v holds no partial any more.
    if (AssignsV && countReferences(B->getRHS(), V) == 0)
      return unconditional(S) ? Level::Free : L;
    // The store of a shared-memory tree of the same operation. A tree
    // from a constant (`BLOCK / 2`, `128`) or a variable (`B / 2`) covers
    // the block only where every launch runs that many threads; otherwise
    // it may leave some threads' partials out, and is not followed.
    if (L == Level::Thread && !Scope.Grid)
      for (const ReductionTree &T : Trees)
        if (T.Store == S && refersTo(T.Value, V) && treeKind(T) == H.Kind &&
            (!T.ConstSize || T.ConstSize == Scope.BlockX) &&
            (!T.BlockSize || Scope.BlockXParams.count(T.BlockSize)))
          return L;
    // A shuffle step: v = op(v, __shfl_xor_sync(m, v, o)).
    if (updateKind(S, V, AC) == H.Kind &&
        callsSomething(
            S,
            [&](const CallExpr *C) {
              return isFoldShuffle(calleeName(C)) && C->getNumArgs() >= 2 &&
                     refersTo(C->getArg(1), V);
            },
            0))
      return std::max(L, Level::Warp);
    // A call that reduces across threads, v one of its arguments: in `v =
    // f(v)` v then holds its result; in `t = f(v) / n` v is left as it was.
    // Or cluster-split's combine, thread by thread.
    const CallExpr *C = nullptr;
    for (const DeclRefExpr *Ref : referencesTo(S, V, AC))
      if (!C)
        C = callTaking(Ref);
    if (C) {
      bool Result = AssignsV && stripCasts(B->getRHS()) == C;
      if (calleeName(C).starts_with("kopt_cluster_combine") && Result)
        return L;
      // In a grid-wide loop, a block's total held elsewhere is not followed.
      if (std::optional<Level> Reduced = reductionCallLevel(C)) {
        if (Result)
          return std::max(L, *Reduced);
        if (stripCasts(cast<Expr>(S)) == C && initializedBy(S)) {
          Into(std::max(L, *Reduced));
          return L;
        }
        if (!Scope.Grid)
          return L;
      }
    }
    // A warp's total kept in shared memory or broadcast from a lane.
    if (L == Level::Warp) {
      if (B && B->getOpcode() == BO_Assign && refersTo(B->getRHS(), V) &&
          isSharedTarget(B->getLHS()) && !Scope.Grid)
        return L;
      const Expr *Value = AssignsV           ? stripCasts(B->getRHS())
                          : initializedBy(S) ? stripCasts(cast<Expr>(S))
                                             : nullptr;
      if (const auto *C = dyn_cast_or_null<CallExpr>(Value);
          C && calleeName(C) == "__shfl_sync" && C->getNumArgs() >= 3 &&
          refersTo(C->getArg(1), V) &&
          evaluateInt(C->getArg(2), AC, F->getBody())) {
        if (!AssignsV)
          Into(L);
        return L;
      }
    }
    // one-pass-variance's closed form (DeviationSums.h): w gains the
    // thread's sum of squared deviations, a partial followed in its turn.
    if (L == Level::Thread && H.Kind == Accumulator::Sum) {
      const Stmt *P = Parents.getParent(S);
      if (isa_and_nonnull<CompoundStmt>(P))
        P = Parents.getParent(P);
      std::optional<VarianceFold> Fold =
          matchVarianceFold(dyn_cast_or_null<IfStmt>(P), Loop, F, AC);
      if (Fold && (V == Fold->Sum || V == Fold->Squares || V == Fold->Count)) {
        Work.push_back(
            {Fold->Into, Accumulator::Sum, P->getEndLoc(), L, H.Origin});
        return L;
      }
    }
    // An atomic of the same operation at one address.
    if (const auto *C = dyn_cast<CallExpr>(S);
        C && atomicKind(calleeName(C)) == H.Kind && C->getNumArgs() == 2 &&
        refersTo(C->getArg(1), V) && countReferences(C->getArg(0), V) == 0 &&
        oneAddress(C->getArg(0)))
      return L;
    return std::nullopt;
  }

  /// `a[i]` of a __shared__ array a, or of a local pointer into one that
  /// is never changed (`float *maxvals = shared;`, `&shared[w]`).
  bool isSharedTarget(const Expr *E) {
    const auto *Sub = dyn_cast<ArraySubscriptExpr>(E->IgnoreParenImpCasts());
    const ValueDecl *D = Sub ? subscriptBase(Sub) : nullptr;
    for (int Depth = 0; D && Depth < 4; ++Depth) {
      if (D->hasAttr<CUDASharedAttr>())
        return true;
      const auto *V = dyn_cast<VarDecl>(D);
      if (!V || !V->isLocalVarDecl() || !V->getType()->isPointerType() ||
          !V->getInit() || isModifiedIn(V, F->getBody()))
        return false;
      const Expr *Init = stripCasts(V->getInit());
      if (const auto *U = dyn_cast<UnaryOperator>(Init);
          U && U->getOpcode() == UO_AddrOf)
        Init = U->getSubExpr()->IgnoreParens();
      if (const auto *Add = dyn_cast<BinaryOperator>(Init);
          Add && Add->isAdditiveOp())
        Init = stripCasts(Add->getLHS());
      D = isa<ArraySubscriptExpr>(Init)
              ? subscriptBase(cast<ArraySubscriptExpr>(Init))
              : referencedVar(Init);
    }
    return false;
  }

  /// Whether Addr is the same for every thread of the block (of the grid
  /// for grid-wide loops): `p`, `&p[i]`, `p + i` with i uniform.
  bool oneAddress(const Expr *Addr) {
    Addr = stripCasts(Addr);
    const Expr *Index = nullptr;
    if (const auto *U = dyn_cast<UnaryOperator>(Addr);
        U && U->getOpcode() == UO_AddrOf)
      if (const auto *Sub =
              dyn_cast<ArraySubscriptExpr>(U->getSubExpr()->IgnoreParens())) {
        if (!isa_and_nonnull<ParmVarDecl>(subscriptBase(Sub)))
          return false;
        Index = Sub->getIdx();
      }
    if (const auto *Add = dyn_cast<BinaryOperator>(Addr);
        Add && Add->getOpcode() == BO_Add &&
        Add->getLHS()->getType()->isPointerType()) {
      if (!isa_and_nonnull<ParmVarDecl>(
              referencedVar(stripCasts(Add->getLHS()))))
        return false;
      Index = Add->getRHS();
    }
    if (!Index)
      return isa_and_nonnull<ParmVarDecl>(referencedVar(Addr));
    if (Scope.Grid)
      return evaluateInt(Index, AC, F->getBody()).has_value();
    return classifyIndex(Index, F, AC).K == IndexClass::Uniform;
  }

  const FunctionDecl *F;
  const ForStmt *Loop;
  PartialScope Scope;
  ASTContext &AC;
  ParentMap Parents;
  std::vector<ReductionTree> Trees;
};

} // namespace

std::optional<Refusal> checkPartialsCombined(const FunctionDecl *F,
                                             const ForStmt *Loop,
                                             PartialScope Scope,
                                             ASTContext &AC) {
  // online-softmax's running maximum and sum (DeviationSums.h): a pair for
  // any share of the elements; its closed form makes a thread's partial.
  std::optional<SoftmaxFold> Pair = matchSoftmaxFold(Loop, F, AC);
  std::vector<const VarDecl *> Vouched;
  if (Pair)
    Vouched = {Pair->Max, Pair->Sum};
  Decision<std::vector<Accumulator>> Accs = loopAccumulators(Loop, AC, Vouched);
  if (const auto *Why = std::get_if<Refusal>(&Accs))
    return Refusal{"the loop carries state other than partial sums, maxima "
                   "and minima: " +
                       Why->Message,
                   Why->Loc};
  const auto &Found = std::get<std::vector<Accumulator>>(Accs);
  if (Found.empty() && !Pair)
    return std::nullopt;
  Follower Follow(F, Loop, Scope, AC);
  for (const Accumulator &A : Found)
    if (std::optional<Refusal> Why = Follow.follow(A))
      return Why;
  if (Pair)
    return Follow.follow(Pair->Into, Accumulator::Sum, Pair->If->getEndLoc());
  return std::nullopt;
}

} // namespace kopt
