//===- MatmulNest.cpp - Kernels that compute a dense matrix product -------===//

#include "kopt/Analysis/MatmulNest.h"
#include "MatmulRecognizer.h"
#include "kopt/Analysis/LocalPointers.h"
#include "kopt/Analysis/Mutation.h"

#include "clang/AST/Attr.h"
#include "clang/AST/ParentMapContext.h"
#include "llvm/ADT/STLExtras.h"

using namespace clang;

namespace kopt {

namespace matmul {

Refusal refuse(const Twine &Why, const Stmt *At, const ASTContext &Ctx) {
  return {Why.str(), At ? lineCol(At->getBeginLoc(), Ctx) : LineCol()};
}

std::optional<Accumulation> matchAccumulation(const Stmt *S) {
  const auto *B = dyn_cast<BinaryOperator>(S);
  if (!B)
    return std::nullopt;
  const VarDecl *Acc = referencedVar(B->getLHS()->IgnoreParens());
  if (!Acc || !Acc->hasLocalStorage() || isa<ParmVarDecl>(Acc) ||
      !Acc->getType()->isRealFloatingType())
    return std::nullopt;
  const Expr *Value = nullptr;
  if (B->getOpcode() == BO_AddAssign) {
    Value = B->getRHS();
  } else if (B->getOpcode() == BO_Assign) {
    const auto *Sum = dyn_cast<BinaryOperator>(B->getRHS()->IgnoreParens());
    if (!Sum || Sum->getOpcode() != BO_Add)
      return std::nullopt;
    if (referencedVar(Sum->getLHS()->IgnoreParenImpCasts()) == Acc)
      Value = Sum->getRHS();
    else if (referencedVar(Sum->getRHS()->IgnoreParenImpCasts()) == Acc)
      Value = Sum->getLHS();
  }
  const auto *Mul =
      Value ? dyn_cast<BinaryOperator>(Value->IgnoreParenImpCasts()) : nullptr;
  if (!Mul || Mul->getOpcode() != BO_Mul)
    return std::nullopt;
  return Accumulation{S, Acc, Mul};
}

bool isZeroConstant(const Expr *E, const ASTContext &Ctx) {
  if (!E || E->isValueDependent())
    return false;
  E = E->IgnoreParenImpCasts();
  Expr::EvalResult R;
  if (!E->EvaluateAsRValue(R, Ctx))
    return false;
  if (R.Val.isInt())
    return R.Val.getInt().isZero();
  if (R.Val.isFloat())
    return R.Val.getFloat().isPosZero();
  return false;
}

/// An initializer that reads no memory, calls nothing and changes nothing
/// (builtins, constants, arithmetic on other locals and parameters).
bool isPureScalarInit(const Expr *E) {
  bool Pure = true;
  forEachSubStmt(E, [&](const Stmt *S) {
    const auto *X = dyn_cast<Expr>(S);
    if (!X || !Pure || matchBuiltin(X))
      return;
    if (isa<CallExpr>(X) || isa<ArraySubscriptExpr>(X) || isa<MemberExpr>(X) ||
        isa<CXXConstructExpr>(X))
      Pure = false;
    if (const auto *U = dyn_cast<UnaryOperator>(X))
      if (U->getOpcode() == UO_Deref || U->isIncrementDecrementOp() ||
          U->getOpcode() == UO_AddrOf)
        Pure = false;
    if (const auto *B = dyn_cast<BinaryOperator>(X); B && B->isAssignmentOp())
      Pure = false;
  });
  return Pure;
}

SmallVector<const Stmt *, 8> statementsOf(const Stmt *S) {
  SmallVector<const Stmt *, 8> Out;
  if (const auto *C = dyn_cast<CompoundStmt>(S))
    Out.append(C->body_begin(), C->body_end());
  else if (S)
    Out.push_back(S);
  return Out;
}

const ParmVarDecl *paramRef(const Expr *E, const Stmt *Scope) {
  const auto *P = dyn_cast_or_null<ParmVarDecl>(
      referencedVar(stripCasts(E)->IgnoreParens()));
  if (!P || !P->getType()->isIntegerType() || isModifiedIn(P, Scope))
    return nullptr;
  return P;
}

const ParmVarDecl *pointerBase(const ArraySubscriptExpr *A, const Stmt *Scope) {
  const auto *P = dyn_cast_or_null<ParmVarDecl>(
      referencedVar(A->getBase()->IgnoreParenImpCasts()));
  if (!P || !P->getType()->isPointerType() || isModifiedIn(P, Scope))
    return nullptr;
  return P;
}

Decision<MatmulNest> Recognizer::run() {
  if (std::optional<Refusal> R = findAccumulation())
    return *R;
  for (auto Check : {&Recognizer::findLoops, &Recognizer::findStoreAndGuard,
                     &Recognizer::checkStructure, &Recognizer::checkAccUses})
    if (std::optional<Refusal> R = (this->*Check)())
      return *R;
  if (std::optional<Refusal> R = checkAxis(N.Row, "row"))
    return *R;
  if (std::optional<Refusal> R = checkAxis(N.Col, "column"))
    return *R;
  if (N.Row.Dim == N.Col.Dim)
    return refuse("the row and the column use the same dimension of "
                  "threadIdx",
                  Acc.S, Ctx);
  for (const Expr *E : {Acc.Product->getLHS(), Acc.Product->getRHS()}) {
    Decision<Factor> F = resolveFactor(E);
    if (auto *R = std::get_if<Refusal>(&F))
      return *R;
    const Factor &X = std::get<Factor>(F);
    if (N.F == MatmulNest::SharedTiles && !X.MaskedByK)
      return refuse("the shared tile of '" + X.Base->getName() +
                        "' is not masked with zero beyond the reduction "
                        "bound, so the last tile reads past it",
                    E, Ctx);
    if (std::optional<Refusal> R = classify(X, E))
      return *R;
  }
  if (!HaveA || !HaveB)
    return refuse("the two factors do not index one by the row and one by "
                  "the column",
                  Acc.S, Ctx);
  QualType AT = N.A.Base->getType()->getPointeeType().getUnqualifiedType();
  QualType BT = N.B.Base->getType()->getPointeeType().getUnqualifiedType();
  QualType AccT = N.Acc->getType().getUnqualifiedType();
  if (!Ctx.hasSameType(AT, AccT) || !Ctx.hasSameType(BT, AccT) ||
      !Ctx.hasSameType(Acc.Product->getType(), AccT))
    return refuse("A, B, their product and the accumulator are not all of "
                  "one floating-point type",
                  Acc.S, Ctx);
  N.Elem = AccT;
  N.Loc = lineCol(Acc.S->getBeginLoc(), Ctx);
  return N;
}

std::optional<Refusal> Recognizer::findAccumulation() {
  unsigned Count = 0;
  forEachSubStmt(Body, [&](const Stmt *S) {
    if (std::optional<Accumulation> A = matchAccumulation(S)) {
      if (!Count++)
        Acc = *A;
    }
  });
  if (Count == 0)
    return Refusal{};
  if (Count > 1)
    return refuse("the kernel accumulates " + Twine(Count) +
                      " products; one accumulator is handled",
                  Acc.S, Ctx);
  N.Acc = Acc.Acc;
  return std::nullopt;
}

std::optional<Refusal> Recognizer::findLoops() {
  DynTypedNodeList Parents = Ctx.getParents(*Acc.S);
  const Stmt *Up = Parents.empty() ? nullptr : Parents[0].get<Stmt>();
  if (const auto *C = dyn_cast_or_null<CompoundStmt>(Up); C && C->size() == 1) {
    Parents = Ctx.getParents(*C);
    Up = Parents.empty() ? nullptr : Parents[0].get<Stmt>();
  }
  Inner = dyn_cast_or_null<ForStmt>(Up);
  if (!Inner)
    return Refusal{};
  std::optional<CountedLoop> L = matchCountedLoop(Inner);
  auto IsOne = [&](const Expr *E) {
    return !E || evaluateInt(E, Ctx, nullptr) == std::optional<int64_t>(1);
  };
  if (!L || L->Inclusive || evaluateInt(L->Init, Ctx, nullptr) != 0 ||
      !IsOne(L->Step) || !L->Var->getType()->isIntegerType())
    return refuse("the loop around the accumulation does not count from 0 "
                  "by 1 to a bound",
                  Inner, Ctx);
  InnerLoop = *L;
  // An enclosing counted loop makes it the tiled form.
  for (DynTypedNodeList P = Ctx.getParents(*Inner); !P.empty();
       P = Ctx.getParents(P[0])) {
    const Stmt *S = P[0].get<Stmt>();
    if (!S)
      break;
    if (const auto *F = dyn_cast<ForStmt>(S)) {
      Outer = F;
      break;
    }
    if (isa<WhileStmt>(S) || isa<DoStmt>(S))
      return refuse("the accumulation is inside a while or do loop", S, Ctx);
  }
  if (!Outer) {
    N.F = MatmulNest::DotLoop;
    N.Reduce = paramRef(InnerLoop.Bound, Body);
    if (!N.Reduce)
      return refuse("the dot-product loop's bound is not an unmodified "
                    "integer parameter of the kernel",
                    Inner, Ctx);
    return std::nullopt;
  }
  N.F = MatmulNest::SharedTiles;
  std::optional<CountedLoop> O = matchCountedLoop(Outer);
  std::optional<int64_t> Tile = evaluateInt(InnerLoop.Bound, Ctx, Body);
  std::optional<int64_t> OuterStep =
      O && O->Step ? evaluateInt(O->Step, Ctx, Body) : std::nullopt;
  if (!O || O->Inclusive || evaluateInt(O->Init, Ctx, nullptr) != 0 || !Tile ||
      *Tile <= 0 || OuterStep != Tile)
    return refuse("the loop over tiles does not count from 0 in steps of "
                  "the inner loop's constant trip count",
                  Outer, Ctx);
  OuterLoop = *O;
  N.SharedTile = *Tile;
  N.Reduce = paramRef(OuterLoop.Bound, Body);
  if (!N.Reduce)
    return refuse("the loop over tiles' bound is not an unmodified integer "
                  "parameter of the kernel",
                  Outer, Ctx);
  // Its body: the tile stores, a barrier, the inner loop, a barrier.
  SmallVector<const Stmt *, 8> Stmts = statementsOf(Outer->getBody());
  auto IsSharedStore = [&](const Stmt *S) {
    const auto *B = dyn_cast<BinaryOperator>(S);
    const auto *Sub =
        B && B->getOpcode() == BO_Assign
            ? dyn_cast<ArraySubscriptExpr>(B->getLHS()->IgnoreParens())
            : nullptr;
    const auto *Row =
        Sub ? dyn_cast<ArraySubscriptExpr>(Sub->getBase()->IgnoreImpCasts())
            : nullptr;
    const VarDecl *V =
        Row ? referencedVar(Row->getBase()->IgnoreImpCasts()) : nullptr;
    return V && V->hasAttr<CUDASharedAttr>();
  };
  bool Shaped = Stmts.size() >= 4 && Stmts[Stmts.size() - 2] == Inner &&
                isBarrierCall(Stmts.back()) &&
                isBarrierCall(Stmts[Stmts.size() - 3]);
  for (unsigned I = 0; Shaped && I + 3 < Stmts.size(); ++I)
    Shaped = IsSharedStore(Stmts[I]);
  if (!Shaped)
    return refuse("the loop over tiles is not shared-memory tile stores, "
                  "__syncthreads(), the product loop, __syncthreads()",
                  Outer, Ctx);
  return std::nullopt;
}

std::optional<Refusal> Recognizer::findStoreAndGuard() {
  const BinaryOperator *Store = nullptr;
  unsigned Stores = 0;
  forEachSubStmt(Body, [&](const Stmt *S) {
    std::optional<WriteOf> W = writeOf(S);
    if (!W)
      return;
    const auto *Sub = dyn_cast<ArraySubscriptExpr>(W->Target->IgnoreParens());
    if (!Sub || !pointerBase(Sub, Body))
      return;
    ++Stores;
    Store = dyn_cast<BinaryOperator>(S);
  });
  // `=` or a compound assignment (`C[...] += acc`): the statement is
  // carried over as written.
  if (Stores != 1 || !Store)
    return refuse("the kernel does not store exactly once to global memory "
                  "with an assignment",
                  Acc.S, Ctx);
  N.Store = Store;
  const auto *Target =
      cast<ArraySubscriptExpr>(Store->getLHS()->IgnoreParens());
  N.C = pointerBase(Target, Body);
  // The guard: the if whose then-branch holds the store.
  for (DynTypedNodeList P = Ctx.getParents(*Store); !P.empty();
       P = Ctx.getParents(P[0])) {
    const Stmt *S = P[0].get<Stmt>();
    if (!S || S == Body)
      break;
    if (const auto *If = dyn_cast<IfStmt>(S)) {
      N.Guard = If;
      break;
    }
  }
  // Or a top-level `if (row >= M || col >= N) return;` before it.
  if (!N.Guard)
    for (const Stmt *S : statementsOf(Body)) {
      const auto *If = dyn_cast<IfStmt>(S);
      SmallVector<const Stmt *, 8> Then =
          If ? statementsOf(If->getThen()) : SmallVector<const Stmt *, 8>();
      if (Then.size() == 1 && isa<ReturnStmt>(Then[0]) &&
          !cast<ReturnStmt>(Then[0])->getRetValue()) {
        N.Guard = If;
        N.GuardReturns = true;
        break;
      }
    }
  if (!N.Guard || N.Guard->getElse() || N.Guard->getInit() ||
      N.Guard->getConditionVariable())
    return refuse("the store is not under an 'if' (without else) that "
                  "bounds the row and the column, nor after one that "
                  "returns outside them",
                  Store, Ctx);
  // `row < M && col < N`, either order, either spelling of `<`; or for an
  // early return `row >= M || col >= N`.
  const char *Form = N.GuardReturns ? "the early return is not 'if (row >= "
                                      "M || col >= N) return;'"
                                    : "the guard is not 'row < M && col < N'";
  const auto *And =
      dyn_cast<BinaryOperator>(N.Guard->getCond()->IgnoreParenImpCasts());
  if (!And || And->getOpcode() != (N.GuardReturns ? BO_LOr : BO_LAnd))
    return refuse(Form, N.Guard, Ctx);
  BinaryOperatorKind Below = N.GuardReturns ? BO_GE : BO_LT;
  BinaryOperatorKind Above = N.GuardReturns ? BO_LE : BO_GT;
  std::vector<std::pair<const VarDecl *, const ParmVarDecl *>> Bounds;
  for (const Expr *Side : {And->getLHS(), And->getRHS()}) {
    const auto *Cmp = dyn_cast<BinaryOperator>(Side->IgnoreParenImpCasts());
    if (!Cmp || (Cmp->getOpcode() != Below && Cmp->getOpcode() != Above))
      return refuse(Form, N.Guard, Ctx);
    const Expr *Small =
        Cmp->getOpcode() == Below ? Cmp->getLHS() : Cmp->getRHS();
    const Expr *Big = Cmp->getOpcode() == Below ? Cmp->getRHS() : Cmp->getLHS();
    const VarDecl *V = referencedVar(stripCasts(Small)->IgnoreParens());
    const ParmVarDecl *P = paramRef(Big, Body);
    if (!V || !P || isa<ParmVarDecl>(V))
      return refuse(Twine(Form) + " with local indices and parameter bounds",
                    N.Guard, Ctx);
    Bounds.push_back({V, P});
  }
  // Which is the row is settled by the store's index and the factors; here
  // the first is taken as the row and swapped in classify() if needed.
  N.Row.Var = Bounds[0].first;
  N.Row.Bound = Bounds[0].second;
  N.Col.Var = Bounds[1].first;
  N.Col.Bound = Bounds[1].second;
  if (N.Row.Var == N.Col.Var)
    return refuse("the guard bounds one index twice", N.Guard, Ctx);
  PolyBuilder PB(Ctx, Body);
  PB.keepWhole(N.Row.Var);
  PB.keepWhole(N.Col.Var);
  std::optional<Polynomial> Index = PB.build(Target->getIdx());
  std::optional<Polynomial> SR =
      Index ? Index->coefficientOf(PolySymbol::variable(N.Row.Var))
            : std::nullopt;
  std::optional<Polynomial> SC =
      Index ? Index->coefficientOf(PolySymbol::variable(N.Col.Var))
            : std::nullopt;
  if (!SR || !SC || SR->isZero() || SC->isZero() ||
      !Index->without(PolySymbol::variable(N.Row.Var))
           .without(PolySymbol::variable(N.Col.Var))
           .isZero() ||
      !SR->onlySymbols([&](const PolySymbol &S) { return isSizeSymbol(S); }) ||
      !SC->onlySymbols([&](const PolySymbol &S) { return isSizeSymbol(S); }))
    return refuse("the store's index is not row * S + column * T with S and "
                  "T parameters or constants",
                  Store, Ctx);
  N.CRow = *SR;
  N.CCol = *SC;
  return std::nullopt;
}

bool Recognizer::isSizeSymbol(const PolySymbol &S) const {
  const auto *P = dyn_cast_or_null<ParmVarDecl>(S.Decl);
  return P && P->getType()->isIntegerType() && !isModifiedIn(P, Body);
}

std::optional<Refusal> Recognizer::checkStructure() {
  // The statements the kernel is made of: declarations, the loop nest and
  // the guarded store; the guard may instead hold the accumulator, the
  // loop and the store.
  const Stmt *Nest = Outer ? Outer : Inner;
  auto CheckDecls = [&](const Stmt *S) -> std::optional<Refusal> {
    const auto *D = dyn_cast<DeclStmt>(S);
    if (!D)
      return refuse("a statement besides declarations, the loop and the "
                    "guarded store",
                    S, Ctx);
    for (const Decl *X : D->decls()) {
      const auto *V = dyn_cast<VarDecl>(X);
      if (!V)
        return refuse("an unexpected declaration", S, Ctx);
      if (V->hasAttr<CUDASharedAttr>() && !V->hasInit() &&
          V->getType()->isConstantArrayType())
        continue;
      if (V == N.Acc && V->getInit())
        continue; // checkCarriedOver checks its initial value
      if (matchLocalPointer(V, Kernel))
        continue; // a row pointer: resolveFactor reads through it
      if (!V->hasLocalStorage() || !V->getType()->isScalarType() ||
          !V->getInit() || !isPureScalarInit(V->getInit()))
        return refuse("'" + V->getName() +
                          "' is not a scalar local with a side-effect-free "
                          "initializer",
                      S, Ctx);
      if (V != N.Acc && isModifiedIn(V, Body) && V != InnerLoop.Var &&
          (!Outer || V != OuterLoop.Var))
        return refuse("'" + V->getName() + "' is modified", S, Ctx);
    }
    return std::nullopt;
  };
  SmallVector<const Stmt *, 8> Top = statementsOf(Body);
  if (Top.empty())
    return Refusal{};
  if (N.GuardReturns) {
    // Declarations, the early return, declarations, the loop, the store.
    if (Top.back() != N.Store)
      return refuse("the store is not the kernel's last statement", Top.back(),
                    Ctx);
    if (N.F == MatmulNest::SharedTiles)
      return refuse("threads return before the tile loop's barriers", N.Guard,
                    Ctx);
    if (!llvm::is_contained(Top, Nest))
      return refuse("the product loop is nested in other statements", Nest,
                    Ctx);
    for (const Stmt *S : llvm::drop_end(Top))
      if (S != Nest && S != N.Guard)
        if (std::optional<Refusal> R = CheckDecls(S))
          return R;
  } else {
    if (Top.back() != N.Guard)
      return refuse("the guarded store is not the kernel's last statement",
                    Top.back(), Ctx);
    if (std::optional<Refusal> R = checkGuarded(Top, Nest, CheckDecls))
      return R;
  }
  if (std::optional<Refusal> R = checkCarriedOver())
    return R;
  if (!N.Acc->getInit())
    return refuse("the accumulator '" + N.Acc->getName() +
                      "' has no initial value",
                  Acc.S, Ctx);
  bool Hazard = false;
  forEachSubStmt(Body, [&](const Stmt *S) {
    if (isa<AsmStmt>(S) || isa<GotoStmt>(S) || isa<BreakStmt>(S) ||
        isa<ContinueStmt>(S) ||
        (isa<ReturnStmt>(S) &&
         !(N.GuardReturns && N.Guard->getThen()->getSourceRange().fullyContains(
                                 S->getSourceRange()))))
      Hazard = true;
  });
  if (Hazard)
    return refuse("the kernel has a return, jump or inline assembly", Acc.S,
                  Ctx);
  return std::nullopt;
}

std::optional<Refusal> Recognizer::checkGuarded(
    ArrayRef<const Stmt *> Top, const Stmt *Nest,
    llvm::function_ref<std::optional<Refusal>(const Stmt *)> CheckDecls) {
  SmallVector<const Stmt *, 8> Guarded = statementsOf(N.Guard->getThen());
  bool NestInGuard = llvm::is_contained(Guarded, Nest);
  if (NestInGuard && N.F == MatmulNest::SharedTiles)
    return refuse("the tile loop is under the guard, so some threads skip "
                  "its barriers",
                  N.Guard, Ctx);
  for (const Stmt *S : llvm::drop_end(Top))
    if (S != Nest)
      if (std::optional<Refusal> R = CheckDecls(S))
        return R;
  if (!NestInGuard && !llvm::is_contained(Top, Nest))
    return refuse("the product loop is nested in other statements", Nest, Ctx);
  if (Guarded.empty() || Guarded.back() != N.Store)
    return refuse("the store is not the guard's last statement", N.Store, Ctx);
  for (const Stmt *S : llvm::drop_end(Guarded))
    if (S != Nest)
      if (std::optional<Refusal> R = CheckDecls(S))
        return R;
  return std::nullopt;
}

std::optional<Refusal> Recognizer::checkCarriedOver() {
  // The guard, the store and a non-zero initial value of the accumulator
  // are re-evaluated for each element elsewhere: they may read the row, the
  // column, parameters and (but the initial value) the accumulator, not
  // other locals or the thread's builtins.
  const Expr *Init = N.Acc->getInit();
  if (!isZeroConstant(Init, Ctx))
    N.AccInit = Init;
  std::optional<Refusal> Outside;
  auto Check = [&](const Stmt *Part, const char *What, bool AccOk) {
    forEachSubStmt(Part, [&](const Stmt *S) {
      const auto *E = dyn_cast<Expr>(S);
      if (!E || Outside)
        return;
      if (matchBuiltin(E))
        Outside =
            refuse(Twine(What) + " reads a CUDA builtin directly", S, Ctx);
      const VarDecl *V = referencedVar(E);
      if (V && V->hasLocalStorage() && !isa<ParmVarDecl>(V) && V != N.Row.Var &&
          V != N.Col.Var && (V != N.Acc || !AccOk))
        Outside = refuse(Twine(What) + " reads the local '" + V->getName() +
                             "' (only the row, the column and the "
                             "accumulator are carried over)",
                         S, Ctx);
    });
  };
  // (A guard that reads the accumulator cannot pick the elements whose
  // initial value is evaluated.)
  Check(N.Guard->getCond(), "the guard or the store", !N.AccInit);
  Check(N.Store, "the guard or the store", true);
  if (N.AccInit) {
    Check(N.AccInit, "the accumulator's initial value", false);
    if (!Outside && N.AccInit->HasSideEffects(Ctx))
      Outside = refuse("the accumulator's initial value has side effects",
                       N.AccInit, Ctx);
  }
  return Outside;
}

std::optional<Refusal> Recognizer::checkAccUses() {
  // Besides the accumulation, the accumulator is only read by the store.
  for (const DeclRefExpr *Ref : referencesTo(Body, N.Acc, Ctx)) {
    if (Acc.S->getSourceRange().fullyContains(Ref->getSourceRange()))
      continue;
    if (!cast<BinaryOperator>(N.Store)
             ->getRHS()
             ->getSourceRange()
             .fullyContains(Ref->getSourceRange()))
      return refuse("the accumulator '" + N.Acc->getName() +
                        "' is used outside the product and the stored value",
                    Ref, Ctx);
  }
  return std::nullopt;
}

std::optional<Refusal> Recognizer::checkAxis(MatmulAxis &Axis,
                                             const char *What) {
  const Expr *Init = Axis.Var->getInit();
  PolyBuilder PB(Ctx, Body);
  std::optional<Polynomial> P = Init ? PB.build(Init) : std::nullopt;
  auto Fail = [&] {
    return refuse(Twine("the ") + What + " '" + Axis.Var->getName() +
                      "' is not blockIdx * tile + threadIdx in one "
                      "dimension",
                  Axis.Var->getInit() ? static_cast<const Stmt *>(Init) : Acc.S,
                  Ctx);
  };
  if (!P || isModifiedIn(Axis.Var, Body))
    return Fail();
  for (unsigned Dim : {0u, 1u}) {
    PolySymbol Tid = PolySymbol::builtin(BuiltinVar::ThreadIdx, Dim);
    PolySymbol Bid = PolySymbol::builtin(BuiltinVar::BlockIdx, Dim);
    std::optional<Polynomial> T = P->coefficientOf(Tid);
    std::optional<Polynomial> Tile = P->coefficientOf(Bid);
    if (!T || T->asConstant() != 1 || !Tile)
      continue;
    std::optional<Polynomial> Rest =
        add(*P,
            *add(Polynomial::symbol(Tid),
                 *multiply(Polynomial::symbol(Bid), *Tile)),
            -1);
    if (!Rest || !Rest->isZero())
      return Fail();
    Axis.Dim = Dim;
    if (std::optional<int64_t> C = Tile->asConstant(); C && *C > 0) {
      Axis.Tile = *C;
      return std::nullopt;
    }
    if (*Tile ==
        Polynomial::symbol(PolySymbol::builtin(BuiltinVar::BlockDim, Dim)))
      return std::nullopt;
    return Fail();
  }
  return Fail();
}

std::optional<Polynomial> Recognizer::reduceIndex() const {
  Polynomial K = Polynomial::symbol(PolySymbol::variable(InnerLoop.Var));
  if (!Outer)
    return K;
  return add(K, Polynomial::symbol(PolySymbol::variable(OuterLoop.Var)));
}

} // namespace matmul

Decision<MatmulNest> findMatmulNest(const FunctionDecl *Kernel,
                                    ASTContext &Ctx) {
  if (!Kernel || !Kernel->getBody() || Kernel->isTemplated())
    return Refusal{};
  return matmul::Recognizer(Kernel, Ctx).run();
}

} // namespace kopt
