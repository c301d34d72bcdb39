//===- MatmulFactors.cpp - The factors of a matrix product ----------------===//
//
// MatmulNest's recognizer, continued: where each factor of the product
// `acc += a * b` comes from (a global buffer, directly or staged through a
// shared-memory tile), its index as a polynomial, and the masks that guard
// it.
//
//===----------------------------------------------------------------------===//
#include "MatmulRecognizer.h"
#include "kopt/Analysis/LocalPointers.h"
#include "kopt/Analysis/Mutation.h"
#include "clang/AST/Attr.h"
#include "clang/AST/ParentMapContext.h"
#include "llvm/ADT/STLExtras.h"

using namespace clang;

namespace kopt::matmul {

Decision<Recognizer::Factor> Recognizer::resolveFactor(const Expr *E) {
  const auto *Sub = dyn_cast<ArraySubscriptExpr>(E->IgnoreParenImpCasts());
  if (!Sub)
    return refuse("a factor of the product is not an array element", E, Ctx);
  if (N.F == MatmulNest::DotLoop) {
    Factor F;
    F.Base = pointerBase(Sub, Body);
    // Or a local pointer into one: its offsets join the index.
    std::optional<LocalPointer> Local;
    if (!F.Base)
      if (const VarDecl *V =
              referencedVar(Sub->getBase()->IgnoreParenImpCasts()))
        if ((Local = matchLocalPointer(V, Kernel)) &&
            !isModifiedIn(Local->Param, Body))
          F.Base = Local->Param;
    if (!F.Base)
      return refuse("a factor is not an element of a pointer parameter", E,
                    Ctx);
    PolyBuilder PB(Ctx, Body);
    PB.keepWhole(N.Row.Var);
    PB.keepWhole(N.Col.Var);
    PB.counter(InnerLoop.Var);
    std::optional<Polynomial> I = PB.build(Sub->getIdx());
    if (Local)
      for (const Expr *Offset : Local->Offsets) {
        std::optional<Polynomial> O = I ? PB.build(Offset) : std::nullopt;
        I = O ? add(*I, *O) : std::nullopt;
      }
    if (!I)
      return refuse("the index of '" + F.Base->getName() +
                        "' is not a polynomial in the row, column, loop "
                        "counter and parameters",
                    E, Ctx);
    F.Index = *I;
    F.Type = Sub->getType();
    return F;
  }
  // Sh[a][b]: a 2D shared array.
  const auto *RowSub =
      dyn_cast<ArraySubscriptExpr>(Sub->getBase()->IgnoreImpCasts());
  const VarDecl *Array =
      RowSub ? referencedVar(RowSub->getBase()->IgnoreImpCasts()) : nullptr;
  if (!Array || !Array->hasAttr<CUDASharedAttr>())
    return refuse("a factor of the tiled product is not an element of a 2D "
                  "__shared__ array",
                  E, Ctx);
  return resolveShared(Sub, Array);
}

Decision<Recognizer::Factor>
Recognizer::resolveShared(const ArraySubscriptExpr *Read,
                          const VarDecl *Array) {
  // Its one store, in the tile loop.
  const BinaryOperator *Store = nullptr;
  unsigned Writes = 0;
  forEachSubStmt(Body, [&](const Stmt *S) {
    std::optional<WriteOf> W = writeOf(S);
    if (!W)
      return;
    const auto *Sub = dyn_cast<ArraySubscriptExpr>(W->Target->IgnoreParens());
    const auto *Row =
        Sub ? dyn_cast<ArraySubscriptExpr>(Sub->getBase()->IgnoreImpCasts())
            : nullptr;
    if (Row && referencedVar(Row->getBase()->IgnoreImpCasts()) == Array) {
      ++Writes;
      Store = dyn_cast<BinaryOperator>(S);
    }
  });
  if (Writes != 1 || !Store ||
      !llvm::is_contained(statementsOf(Outer->getBody()), Store))
    return refuse("'" + Array->getName() +
                      "' is not stored once, at the top of the tile loop",
                  Read, Ctx);
  if (countReferences(Body, Array) != 2)
    return refuse("'" + Array->getName() +
                      "' is used besides its store and the product",
                  Read, Ctx);
  const auto *W = cast<ArraySubscriptExpr>(Store->getLHS()->IgnoreParens());
  const auto *WRow = cast<ArraySubscriptExpr>(W->getBase()->IgnoreImpCasts());
  const auto *RRow =
      cast<ArraySubscriptExpr>(Read->getBase()->IgnoreImpCasts());
  // Each stored subscript is one thread index; the read names the thread
  // that stored the element, which the value is then built for.
  PolyBuilder Plain(Ctx, Body);
  Plain.counter(InnerLoop.Var);
  PolyBuilder PB(Ctx, Body);
  PB.keepWhole(N.Row.Var);
  PB.keepWhole(N.Col.Var);
  PB.counter(InnerLoop.Var);
  PB.counter(OuterLoop.Var);
  PolySymbol K = PolySymbol::variable(InnerLoop.Var);
  bool UsedDims[2] = {false, false};
  const Expr *WIdx[2] = {WRow->getIdx(), W->getIdx()};
  const Expr *RIdx[2] = {RRow->getIdx(), Read->getIdx()};
  for (unsigned Pos = 0; Pos < 2; ++Pos) {
    std::optional<Polynomial> WP = Plain.build(WIdx[Pos]);
    std::optional<Polynomial> RP = Plain.build(RIdx[Pos]);
    std::optional<unsigned> Dim;
    for (unsigned D : {0u, 1u})
      if (WP && *WP == Polynomial::symbol(
                           PolySymbol::builtin(BuiltinVar::ThreadIdx, D)))
        Dim = D;
    if (!Dim || UsedDims[*Dim] || !RP)
      return refuse("'" + Array->getName() +
                        "' is not stored at [threadIdx.y][threadIdx.x] (or "
                        "transposed)",
                    Store, Ctx);
    UsedDims[*Dim] = true;
    if (*RP == *WP)
      continue;
    if (*RP != Polynomial::symbol(K))
      return refuse("'" + Array->getName() +
                        "' is read at an index other than the thread's own "
                        "or the product loop's counter",
                    Read, Ctx);
    // The element was stored by the thread whose threadIdx.<Dim> is k; the
    // row or column of that thread is then not this thread's.
    PB.substitute(PolySymbol::builtin(BuiltinVar::ThreadIdx, *Dim), *RP);
    N.SharedDims[*Dim] = true;
    for (const MatmulAxis *A : {&N.Row, &N.Col}) {
      PolyBuilder Init(Ctx, Body);
      std::optional<Polynomial> AP = Init.build(A->Var->getInit());
      if ((!AP ||
           AP->mentions(PolySymbol::builtin(BuiltinVar::ThreadIdx, *Dim))) &&
          countReferences(Store->getRHS(), A->Var))
        return refuse("the value stored into '" + Array->getName() +
                          "' uses '" + A->Var->getName() +
                          "', which differs in the thread that stored the "
                          "element read",
                      Store, Ctx);
    }
  }
  const auto *AT = Ctx.getAsConstantArrayType(Array->getType());
  const auto *Inner2 =
      AT ? Ctx.getAsConstantArrayType(AT->getElementType()) : nullptr;
  if (!Inner2)
    return refuse("'" + Array->getName() + "' is not a 2D array", Read, Ctx);
  Factor F;
  F.Type = Inner2->getElementType().getUnqualifiedType();
  const Expr *V = Store->getRHS()->IgnoreParenImpCasts();
  const Expr *Load = V;
  if (const auto *C = dyn_cast<ConditionalOperator>(V)) {
    if (!isZeroConstant(C->getFalseExpr(), Ctx))
      return refuse("the masked value stored into '" + Array->getName() +
                        "' is not 'condition ? element : 0'",
                    Store, Ctx);
    Load = C->getTrueExpr()->IgnoreParenImpCasts();
    if (std::optional<Refusal> R = checkMask(C->getCond(), PB, F))
      return *R;
  }
  const auto *Sub = dyn_cast<ArraySubscriptExpr>(Load);
  F.Base = Sub ? pointerBase(Sub, Body) : nullptr;
  std::optional<Polynomial> I = F.Base ? PB.build(Sub->getIdx()) : std::nullopt;
  if (!I || !Ctx.hasSameType(Sub->getType().getUnqualifiedType(), F.Type))
    return refuse("the value stored into '" + Array->getName() +
                      "' is not an element of a pointer parameter of its "
                      "type at a polynomial index",
                  Store, Ctx);
  F.Index = *I;
  return F;
}

std::optional<Refusal> Recognizer::checkMask(const Expr *Cond, PolyBuilder &PB,
                                             Factor &F) {
  SmallVector<const Expr *, 4> Work = {Cond}, Parts;
  while (!Work.empty()) {
    const Expr *E = Work.pop_back_val()->IgnoreParenImpCasts();
    const auto *B = dyn_cast<BinaryOperator>(E);
    if (B && B->getOpcode() == BO_LAnd) {
      Work.push_back(B->getLHS());
      Work.push_back(B->getRHS());
    } else {
      Parts.push_back(E);
    }
  }
  std::optional<Polynomial> KK = reduceIndex();
  for (const Expr *E : Parts) {
    const auto *Cmp = dyn_cast<BinaryOperator>(E);
    if (!Cmp || (Cmp->getOpcode() != BO_LT && Cmp->getOpcode() != BO_GT))
      return refuse("a mask condition is not a '<' comparison", E, Ctx);
    const Expr *Small =
        Cmp->getOpcode() == BO_LT ? Cmp->getLHS() : Cmp->getRHS();
    const Expr *Big = Cmp->getOpcode() == BO_LT ? Cmp->getRHS() : Cmp->getLHS();
    const ParmVarDecl *P = paramRef(Big, Body);
    std::optional<Polynomial> S = PB.build(Small);
    if (!P || !S)
      return refuse("a mask condition does not compare with a parameter", E,
                    Ctx);
    // Row < M and column < N repeat the store's guard; k < K is the mask.
    if (P == N.Row.Bound &&
        *S == Polynomial::symbol(PolySymbol::variable(N.Row.Var)))
      continue;
    if (P == N.Col.Bound &&
        *S == Polynomial::symbol(PolySymbol::variable(N.Col.Var)))
      continue;
    if (P == N.Reduce && KK && *S == *KK) {
      F.MaskedByK = true;
      continue;
    }
    return refuse("a mask condition is not row < M, column < N or the "
                  "reduction index < K",
                  E, Ctx);
  }
  return std::nullopt;
}

std::optional<Refusal> Recognizer::classify(const Factor &F, const Expr *At) {
  std::optional<Polynomial> KK = reduceIndex();
  PolySymbol K = PolySymbol::variable(InnerLoop.Var);
  std::optional<Polynomial> SK = F.Index.coefficientOf(K);
  std::optional<Polynomial> Rest =
      SK && KK ? add(F.Index, *multiply(*KK, *SK), -1) : std::nullopt;
  auto Fail = [&](const Twine &Why) {
    return refuse("the index of '" + F.Base->getName() + "' " + Why, At, Ctx);
  };
  if (!Rest || SK->isZero() || Rest->mentions(K) ||
      (Outer && Rest->mentions(PolySymbol::variable(OuterLoop.Var))))
    return Fail("does not step through the reduction index by a fixed "
                "stride");
  PolySymbol Row = PolySymbol::variable(N.Row.Var);
  PolySymbol Col = PolySymbol::variable(N.Col.Var);
  std::optional<Polynomial> SR = Rest->coefficientOf(Row);
  std::optional<Polynomial> SC = Rest->coefficientOf(Col);
  if (!SR || !SC || !Rest->without(Row).without(Col).isZero() ||
      SR->isZero() == SC->isZero())
    return Fail("is not (row or column) * stride + k * stride");
  auto Sizes = [&](const PolySymbol &S) { return isSizeSymbol(S); };
  if (!SK->onlySymbols(Sizes) || !SR->onlySymbols(Sizes) ||
      !SC->onlySymbols(Sizes))
    return Fail("has strides that are not parameters or constants");
  bool IsA = !SR->isZero();
  if (IsA ? HaveA : HaveB)
    return Fail("uses the same output index as the other factor");
  MatmulOperand &Op = IsA ? N.A : N.B;
  Op.Base = F.Base;
  Op.Outer = IsA ? *SR : *SC;
  Op.Reduce = *SK;
  (IsA ? HaveA : HaveB) = true;
  if (!Ctx.hasSameType(F.Type.getUnqualifiedType(),
                       N.Acc->getType().getUnqualifiedType()))
    return Fail("is read as another type than the accumulator's");
  return std::nullopt;
}

} // namespace kopt::matmul
