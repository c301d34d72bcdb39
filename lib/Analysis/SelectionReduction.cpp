//===- SelectionReduction.cpp - First-index argmax/argmin -----------------===//
//
// Recognizes the (value, index) tree of SelectionReduction.h and what
// feeds it. For any tree it returns:
//
//   * the tree keeps the larger (smaller) value and, among equal values,
//     the lower index;
//   * the value and index arrays are __shared__ arrays of F, used only by
//     the tree and by reads of element 0 (checkArrayUses);
//   * v and idx are locals that start with the same value in every thread
//     and change only by selection updates `if (e > v) { v = e; idx = J; }`
//     in the tree's direction (no conversion between e and v, J and idx).
//
// Then no thread holds a NaN value unless all hold (v0, i0), and the tree
// returns the same index whatever order it combines the pairs in (the
// value too, except for the sign of a zero two threads may hold at one
// index). Feed is set when the one update is the body of a block-stride
// loop over J, in uniform control flow, before the tree: the threads'
// indices are then disjoint and each thread visits its own in increasing
// order, which is what lets vectorize-loads change the partition.
//
//===----------------------------------------------------------------------===//

#include "kopt/Analysis/SelectionReduction.h"
#include "kopt/Analysis/IndexClassifier.h"
#include "kopt/Analysis/Mutation.h"
#include "kopt/Analysis/ReductionTree.h"

#include "clang/AST/Attr.h"
#include "clang/AST/ParentMap.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/STLExtras.h"

#include <map>
#include <set>

using namespace clang;
using namespace clang::ast_matchers;
using namespace llvm;

namespace kopt {

namespace {

const char *StepShape =
    "the (value, index) tree step is not 'if (t < s) { T ov = V[t + s]; "
    "U oi = I[t + s]; if (ov > V[t] || (ov == V[t] && oi < I[t])) { V[t] = "
    "ov; I[t] = oi; } }' (or with < for a minimum)";

/// `X > Y` or `Y < X`: the operands as (greater, smaller).
std::optional<std::pair<const Expr *, const Expr *>>
greaterThan(const Expr *E) {
  const auto *B = dyn_cast<BinaryOperator>(E->IgnoreParens());
  if (!B)
    return std::nullopt;
  if (B->getOpcode() == BO_GT)
    return std::make_pair(B->getLHS(), B->getRHS());
  if (B->getOpcode() == BO_LT)
    return std::make_pair(B->getRHS(), B->getLHS());
  return std::nullopt;
}

/// The tree step's view of the partner's value or index: `V[t + s]`, or a
/// local `ov` initialized with it and not modified in the step.
class Partners {
public:
  Partners(const VarDecl *Step, const Stmt *Scope, const Stmt *StepBody)
      : Step(Step), Scope(Scope), StepBody(StepBody) {}

  /// The array E reads the partner's slot of, or null.
  const ValueDecl *arrayOf(const Expr *E) const {
    E = E->IgnoreParenImpCasts();
    if (const VarDecl *L = referencedVar(E)) {
      auto It = Locals.find(L);
      return It == Locals.end() ? nullptr : It->second;
    }
    const ValueDecl *A = subscriptBase(E);
    return A && isPartnerSlot(E, A, Step, Scope) ? A : nullptr;
  }

  /// `T ov = V[t + s];`: records ov; false if S is not such a declaration.
  bool addLocal(const Stmt *S, ASTContext &AC) {
    const auto *DS = dyn_cast<DeclStmt>(S);
    const auto *V = DS && DS->isSingleDecl()
                        ? dyn_cast<VarDecl>(DS->getSingleDecl())
                        : nullptr;
    if (!V || !V->getInit() || isModifiedIn(V, StepBody))
      return false;
    const Expr *Init = V->getInit()->IgnoreParenImpCasts();
    const ValueDecl *A = subscriptBase(Init);
    if (!A || !isPartnerSlot(Init, A, Step, Scope) ||
        !AC.hasSameUnqualifiedType(V->getType(), Init->getType()))
      return false;
    Locals[V] = A;
    return true;
  }

private:
  const VarDecl *Step;
  const Stmt *Scope, *StepBody;
  std::map<const VarDecl *, const ValueDecl *> Locals;
};

/// `V[t] = P` with P the partner's slot of V: V, or null.
const ValueDecl *takeFromPartner(const Stmt *S, const Partners &P,
                                 const Stmt *Scope) {
  const auto *B = dyn_cast<BinaryOperator>(S);
  if (!B || B->getOpcode() != BO_Assign)
    return nullptr;
  const ValueDecl *A = subscriptBase(B->getLHS());
  return A && isOwnSlot(B->getLHS(), A, Scope) && P.arrayOf(B->getRHS()) == A
             ? A
             : nullptr;
}

/// The shape of the tree step: the arrays and the direction, or null.
struct PairStep {
  const ValueDecl *Values = nullptr, *Indices = nullptr;
  bool Max = true;
};

std::optional<PairStep> matchPairStep(const ForStmt *Loop, const Stmt *Scope,
                                      ASTContext &AC) {
  const VarDecl *S = matchTreeHead(Loop, AC);
  const auto *Body = dyn_cast<CompoundStmt>(Loop->getBody());
  if (!S || isModifiedIn(S, Loop->getBody()) || !Body || Body->size() != 2 ||
      !isSyncthreads(Body->body_back()))
    return std::nullopt;
  const auto *If = dyn_cast<IfStmt>(Body->body_front());
  if (!If || If->getElse() || If->getInit() || If->getConditionVariable())
    return std::nullopt;
  const auto *Cond = dyn_cast<BinaryOperator>(If->getCond()->IgnoreParens());
  if (!Cond ||
      !((Cond->getOpcode() == BO_LT && isThreadIdxX(Cond->getLHS(), Scope) &&
         referencedVar(Cond->getRHS()) == S) ||
        (Cond->getOpcode() == BO_GT && isThreadIdxX(Cond->getRHS(), Scope) &&
         referencedVar(Cond->getLHS()) == S)))
    return std::nullopt;
  const auto *Then = dyn_cast<CompoundStmt>(If->getThen());
  if (!Then || Then->size() < 1)
    return std::nullopt;
  Partners P(S, Scope, Then);
  for (const Stmt *X : llvm::drop_end(Then->body()))
    if (!P.addLocal(X, AC))
      return std::nullopt;
  const auto *Pick = dyn_cast<IfStmt>(Then->body_back());
  if (!Pick || Pick->getElse() || Pick->getInit() ||
      Pick->getConditionVariable())
    return std::nullopt;

  // ov > V[t] || (ov == V[t] && oi < I[t])
  PairStep Step;
  const auto *Or = dyn_cast<BinaryOperator>(Pick->getCond()->IgnoreParens());
  if (!Or || Or->getOpcode() != BO_LOr)
    return std::nullopt;
  auto Strict = greaterThan(Or->getLHS());
  if (!Strict)
    return std::nullopt;
  const Expr *Partner = Strict->first, *Own = Strict->second;
  if (!P.arrayOf(Partner)) {
    std::swap(Partner, Own);
    Step.Max = false;
  }
  Step.Values = P.arrayOf(Partner);
  if (!Step.Values || !isOwnSlot(Own, Step.Values, Scope))
    return std::nullopt;
  const auto *And = dyn_cast<BinaryOperator>(Or->getRHS()->IgnoreParens());
  if (!And || And->getOpcode() != BO_LAnd)
    return std::nullopt;
  const auto *Eq = dyn_cast<BinaryOperator>(And->getLHS()->IgnoreParens());
  if (!Eq || Eq->getOpcode() != BO_EQ)
    return std::nullopt;
  const Expr *EL = Eq->getLHS(), *ER = Eq->getRHS();
  if (P.arrayOf(ER) == Step.Values)
    std::swap(EL, ER);
  if (P.arrayOf(EL) != Step.Values || !isOwnSlot(ER, Step.Values, Scope))
    return std::nullopt;
  auto Lower = greaterThan(And->getRHS()); // (own index, partner's index)
  if (!Lower)
    return std::nullopt;
  Step.Indices = P.arrayOf(Lower->second);
  if (!Step.Indices || Step.Indices == Step.Values ||
      !isOwnSlot(Lower->first, Step.Indices, Scope))
    return std::nullopt;

  // { V[t] = ov; I[t] = oi; } in either order.
  const auto *Take = dyn_cast<CompoundStmt>(Pick->getThen());
  if (!Take || Take->size() != 2)
    return std::nullopt;
  const ValueDecl *A = takeFromPartner(Take->body_front(), P, Scope);
  const ValueDecl *B = takeFromPartner(Take->body_back(), P, Scope);
  if (!A || !B ||
      !((A == Step.Values && B == Step.Indices) ||
        (A == Step.Indices && B == Step.Values)))
    return std::nullopt;
  return Step;
}

/// `V[t] = v` with v a local variable: (V, v), or nulls.
std::pair<const ValueDecl *, const VarDecl *> ownSlotStore(const Stmt *S,
                                                           const Stmt *Scope) {
  const auto *B = dyn_cast_or_null<BinaryOperator>(S);
  if (!B || B->getOpcode() != BO_Assign)
    return {nullptr, nullptr};
  const ValueDecl *A = subscriptBase(B->getLHS());
  const VarDecl *V = referencedVar(B->getRHS());
  if (!A || !isOwnSlot(B->getLHS(), A, Scope) || !V || !V->isLocalVarDecl() ||
      V->isStaticLocal())
    return {nullptr, nullptr};
  return {A, V};
}

/// The same in every thread: a constant, or uniform by the index
/// classifier (parameters, blockIdx, ...).
bool isThreadInvariant(const Expr *E, const FunctionDecl *F, ASTContext &AC) {
  if (hasSideEffects(E, AC))
    return false;
  return E->isEvaluatable(AC) ||
         classifyIndex(E, F, AC).K == IndexClass::Uniform;
}

/// A selection update `if (e > v) { v = e; idx = J; }` (`<` for a
/// minimum; e a local of v's type or an expression without side effects,
/// J an integer expression of idx's type without side effects): J, or
/// null.
const Expr *matchUpdate(const IfStmt *If, const VarDecl *V, const VarDecl *Idx,
                        bool Max, ASTContext &AC) {
  if (If->getElse() || If->getInit() || If->getConditionVariable())
    return nullptr;
  auto Cmp = greaterThan(If->getCond());
  if (!Cmp || referencedVar(Max ? Cmp->second : Cmp->first) != V)
    return nullptr;
  const Expr *Candidate = Max ? Cmp->first : Cmp->second;
  const VarDecl *E = referencedVar(Candidate);
  if (E == V || E == Idx || hasSideEffects(Candidate, AC) ||
      !AC.hasSameUnqualifiedType(Candidate->IgnoreParenImpCasts()->getType(),
                                 V->getType()))
    return nullptr;
  const auto *Then = dyn_cast<CompoundStmt>(If->getThen());
  if (!Then || Then->size() != 2)
    return nullptr;
  const Expr *J = nullptr;
  bool SetsValue = false;
  for (const Stmt *S : Then->body()) {
    const auto *B = dyn_cast<BinaryOperator>(S);
    if (!B || B->getOpcode() != BO_Assign)
      return nullptr;
    const VarDecl *L = referencedVar(B->getLHS());
    const Expr *R = B->getRHS();
    if (L == V && !SetsValue) {
      SetsValue =
          E ? referencedVar(R) == E
            : withoutSpaces(sourceText(R->getSourceRange(), AC)) ==
                  withoutSpaces(sourceText(Candidate->getSourceRange(), AC));
      if (!SetsValue)
        return nullptr;
    } else if (L == Idx && !J) {
      J = R->IgnoreParenImpCasts();
      if (hasSideEffects(J, AC) ||
          !AC.hasSameUnqualifiedType(J->getType(), Idx->getType()) ||
          referencedVar(J) == V || referencedVar(J) == Idx)
        return nullptr;
    } else {
      return nullptr;
    }
  }
  return SetsValue ? J : nullptr;
}

class SelectionFinder {
public:
  SelectionFinder(const FunctionDecl *F, ASTContext &AC)
      : F(F), AC(AC), Body(F->getBody()), Parents(F->getBody()) {}

  void run(std::vector<SelectionTree> &Trees, std::vector<Refusal> &Refused) {
    for (const BoundNodes &N :
         match(findAll(forStmt(unless(hasAncestor(lambdaExpr()))).bind("f")),
               *Body, AC)) {
      const auto *Loop = N.getNodeAs<ForStmt>("f");
      if (!looksLikeTree(Loop, AC))
        continue;
      std::optional<PairStep> Step = matchPairStep(Loop, Body, AC);
      if (!Step) {
        // A step of several statements that is not this shape.
        const auto *BodyC = dyn_cast<CompoundStmt>(Loop->getBody());
        const auto *If = BodyC && !BodyC->body_empty()
                             ? dyn_cast<IfStmt>(BodyC->body_front())
                             : nullptr;
        if (If && isa<CompoundStmt>(single(If->getThen())))
          Refused.push_back({StepShape, lineCol(Loop->getBeginLoc(), AC)});
        continue;
      }
      Decision<SelectionTree> T = matchContext(Loop, *Step);
      if (auto *R = std::get_if<Refusal>(&T))
        Refused.push_back(*R);
      else
        Trees.push_back(std::get<SelectionTree>(T));
    }
  }

private:
  Decision<SelectionTree> matchContext(const ForStmt *Loop,
                                       const PairStep &Step) {
    SelectionTree T;
    T.Loop = Loop;
    T.Loc = lineCol(Loop->getBeginLoc(), AC);
    T.Max = Step.Max;
    T.ValueArray = Step.Values;
    T.IndexArray = Step.Indices;
    auto Refuse = [&](const Twine &Msg) { return Refusal{Msg.str(), T.Loc}; };

    // V[t] = v; I[t] = idx; __syncthreads(); right before the loop.
    const char *Prelude = "the (value, index) tree is not preceded by "
                          "'V[threadIdx.x] = v; I[threadIdx.x] = idx; "
                          "__syncthreads();' with v and idx local variables";
    T.Block = dyn_cast_or_null<CompoundStmt>(
        Parents.getParent(const_cast<ForStmt *>(Loop)));
    if (!T.Block)
      return Refuse(Prelude);
    size_t Index = llvm::find(T.Block->body(), Loop) - T.Block->body_begin();
    if (Index < 3 || !isSyncthreads(T.Block->body_begin()[Index - 1]))
      return Refuse(Prelude);
    T.Sync = T.Block->body_begin()[Index - 1];
    const Stmt *S1 = T.Block->body_begin()[Index - 3];
    const Stmt *S2 = T.Block->body_begin()[Index - 2];
    for (const Stmt *S : {S1, S2}) {
      auto [A, V] = ownSlotStore(S, Body);
      if (A && A == T.ValueArray && !T.Value)
        T.Value = V;
      else if (A && A == T.IndexArray && !T.Index)
        T.Index = V;
      else
        return Refuse(Prelude);
    }
    T.FirstStore = cast<BinaryOperator>(S1);
    T.SecondStore = cast<BinaryOperator>(S2);
    T.ValueType = T.Value->getType();
    T.IndexType = T.Index->getType();
    auto Element = [](const ValueDecl *A) {
      QualType Ty = A->getType();
      if (const auto *AT = Ty->getAsArrayTypeUnsafe())
        return AT->getElementType();
      return Ty->getPointeeType();
    };
    if (!AC.hasSameUnqualifiedType(Element(T.ValueArray), T.ValueType) ||
        !AC.hasSameUnqualifiedType(Element(T.IndexArray), T.IndexType))
      return Refuse("'" + T.Value->getNameAsString() + "' or '" +
                    T.Index->getNameAsString() +
                    "' is stored into the tree through a conversion");
    if (!T.IndexType->isIntegerType() || !T.ValueType->isArithmeticType())
      return Refuse("the tree's index is not an integer or its value not a "
                    "number");

    // The arrays: __shared__ arrays of F that only the tree writes and only
    // reads of element 0 read besides.
    std::vector<ReductionTree> Ranges(2);
    for (ReductionTree &Range : Ranges) {
      Range.Store = T.FirstStore;
      Range.Loop = Loop;
    }
    Ranges[0].Array = T.ValueArray;
    Ranges[1].Array = T.IndexArray;
    for (const ReductionTree &Range : Ranges) {
      const auto *A = dyn_cast<VarDecl>(Range.Array);
      if (!A || !A->isLocalVarDecl() || !A->hasAttr<CUDASharedAttr>())
        return Refuse("'" + Range.Array->getNameAsString() +
                      "' is not a __shared__ array declared in '" +
                      F->getNameAsString() + "'");
      if (std::optional<Refusal> R =
              checkArrayUses(F, Range.Array, Ranges, {}, AC))
        return *R;
    }

    const SourceManager &SM = AC.getSourceManager();
    for (const DeclRefExpr *Ref : referencesTo(Body, T.ValueArray, AC))
      if (SM.isBeforeInTranslationUnit(Ref->getBeginLoc(),
                                       T.FirstStore->getBeginLoc()) ||
          SM.isBeforeInTranslationUnit(Loop->getEndLoc(), Ref->getBeginLoc()))
        T.ValueRead = true;

    if (std::optional<Refusal> R = matchFeed(T))
      return *R;
    return T;
  }

  /// Checks that v and idx change only by selection updates, and finds the
  /// one block-stride loop that computes them, if there is one.
  std::optional<Refusal> matchFeed(SelectionTree &T) {
    auto Refuse = [&](const Twine &Msg) { return Refusal{Msg.str(), T.Loc}; };
    std::string Pair = "'" + T.Value->getNameAsString() + "', '" +
                       T.Index->getNameAsString() + "'";
    std::string Update = "'if (e " + std::string(T.Max ? ">" : "<") + " " +
                         T.Value->getNameAsString() + ") { " +
                         T.Value->getNameAsString() + " = e; " +
                         T.Index->getNameAsString() + " = j; }'";
    std::set<const IfStmt *> Updates;
    std::map<const IfStmt *, const Expr *> IndexOf;
    for (const VarDecl *V : {T.Value, T.Index}) {
      if (!V->getInit() || !isThreadInvariant(V->getInit(), F, AC))
        return Refuse("'" + V->getNameAsString() +
                      "' does not start with the same value in every "
                      "thread");
      for (const DeclRefExpr *Ref : referencesTo(Body, V, AC)) {
        if (Ref->getBeginLoc() == T.FirstStore->getRHS()->getBeginLoc() ||
            Ref->getBeginLoc() == T.SecondStore->getRHS()->getBeginLoc())
          continue;
        const IfStmt *If = nullptr;
        for (const Stmt *P = Parents.getParent(Ref); P && !If;
             P = Parents.getParent(P))
          If = dyn_cast<IfStmt>(P);
        const Expr *J =
            If ? matchUpdate(If, T.Value, T.Index, T.Max, AC) : nullptr;
        if (!J)
          return Refuse(Pair + " are used at " +
                        str(lineCol(Ref->getBeginLoc(), AC)) +
                        " other than by a selection " + Update +
                        " and the stores before the tree");
        Updates.insert(If);
        IndexOf[If] = J;
      }
    }
    if (Updates.empty())
      return Refuse("nothing selects " + Pair);
    if (Updates.size() != 1)
      return std::nullopt;
    // One update: is it the body of a block-stride loop over j?
    const IfStmt *If = *Updates.begin();
    const Stmt *Up = Parents.getParent(If);
    if (const auto *C = dyn_cast_or_null<CompoundStmt>(Up)) {
      if (C->size() > 2 || C->body_back() != If)
        return std::nullopt;
      if (C->size() == 2) {
        const auto *DS = dyn_cast<DeclStmt>(C->body_front());
        const auto *E = DS && DS->isSingleDecl()
                            ? dyn_cast<VarDecl>(DS->getSingleDecl())
                            : nullptr;
        if (!E || !E->getInit() || isModifiedIn(E, If))
          return std::nullopt;
      }
      Up = Parents.getParent(C);
    }
    const auto *Loop = dyn_cast_or_null<ForStmt>(Up);
    std::optional<CountedLoop> CL =
        Loop ? matchCountedLoop(Loop) : std::nullopt;
    if (!CL || CL->Inclusive || !isThreadIdxX(CL->Init, Body) || !CL->Step ||
        !isBuiltin(stripCasts(CL->Step), BuiltinVar::BlockDim, 0) ||
        isModifiedIn(CL->Var, Loop->getBody()) ||
        referencedVar(IndexOf[If]) != CL->Var ||
        !AC.getSourceManager().isBeforeInTranslationUnit(
            Loop->getEndLoc(), T.FirstStore->getBeginLoc()) ||
        checkUniformControl(F, Loop, "the loop", AC))
      return std::nullopt;
    T.Feed = Loop;
    return std::nullopt;
  }

  const FunctionDecl *F;
  ASTContext &AC;
  const Stmt *Body;
  ParentMap Parents;
};

} // namespace

void findSelectionTrees(const FunctionDecl *F, ASTContext &AC,
                        std::vector<SelectionTree> &Trees,
                        std::vector<Refusal> &Refused) {
  if (!F->getBody())
    return;
  SelectionFinder(F, AC).run(Trees, Refused);
}

} // namespace kopt
