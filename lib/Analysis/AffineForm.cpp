//===- AffineForm.cpp - Integer expressions as affine forms ---------------===//

#include "kopt/Analysis/AffineForm.h"
#include "kopt/Analysis/Mutation.h"
#include "kopt/Frontend/SkippedBodies.h"

#include "clang/AST/Attr.h"
#include "clang/AST/ParentMapContext.h"
#include "llvm/Support/MathExtras.h"

using namespace clang;

namespace kopt {

int64_t AffineForm::coefficient(unsigned Symbol) const {
  auto It = Terms.find(Symbol);
  return It == Terms.end() ? 0 : It->second;
}

std::optional<AffineForm> add(const AffineForm &A, const AffineForm &B,
                              int64_t ScaleB) {
  AffineForm R = A;
  int64_t Product;
  if (llvm::MulOverflow(B.Constant, ScaleB, Product) ||
      llvm::AddOverflow(R.Constant, Product, R.Constant))
    return std::nullopt;
  for (const auto &[S, C] : B.Terms) {
    int64_t &Coef = R.Terms[S];
    if (llvm::MulOverflow(C, ScaleB, Product) ||
        llvm::AddOverflow(Coef, Product, Coef))
      return std::nullopt;
    if (Coef == 0)
      R.Terms.erase(S);
  }
  return R;
}

std::optional<AffineForm> scale(const AffineForm &A, int64_t Factor) {
  return add(AffineForm(), A, Factor);
}

namespace {

bool sameForm(const AffineForm &A, const AffineForm &B) {
  return A.Constant == B.Constant && A.Terms == B.Terms;
}

bool sameSymbol(const AffineSymbol &A, const AffineSymbol &B) {
  if (A.K != B.K)
    return false;
  switch (A.K) {
  case AffineSymbol::Builtin:
    return A.B.Var == B.B.Var && A.B.Dim == B.B.Dim;
  case AffineSymbol::Value:
    return A.Decl == B.Decl;
  case AffineSymbol::Iteration:
    return A.Loop == B.Loop;
  case AffineSymbol::Opaque:
    return A.Text == B.Text && A.Uniform == B.Uniform &&
           A.ScalesThreadIdx == B.ScalesThreadIdx;
  case AffineSymbol::FloorDiv:
  case AffineSymbol::Mod:
    return A.Divisor == B.Divisor && A.Truncates == B.Truncates &&
           sameForm(A.Operand, B.Operand);
  case AffineSymbol::Quotient:
    return A.DivisorSymbol == B.DivisorSymbol && sameForm(A.Operand, B.Operand);
  }
  return false;
}

} // namespace

unsigned AffineContext::intern(AffineSymbol S) {
  for (unsigned I = 0; I < Symbols.size(); ++I)
    if (sameSymbol(Symbols[I], S))
      return I;
  Symbols.push_back(std::move(S));
  return Symbols.size() - 1;
}

AffineForm AffineContext::single(unsigned Symbol, int64_t Coefficient) const {
  AffineForm F;
  if (Coefficient)
    F.Terms[Symbol] = Coefficient;
  return F;
}

unsigned AffineContext::builtin(BuiltinVar Var, unsigned Dim) {
  AffineSymbol S;
  S.K = AffineSymbol::Builtin;
  S.B = {Var, Dim};
  S.Uniform = Var != BuiltinVar::ThreadIdx;
  S.Min = (Var == BuiltinVar::BlockDim || Var == BuiltinVar::GridDim) ? 1 : 0;
  return intern(S);
}

std::optional<int64_t> AffineContext::constant(const Expr *E) const {
  Expr::EvalResult R;
  if (E && !E->isValueDependent() && !E->isTypeDependent() &&
      E->EvaluateAsInt(R, *EvalCtx))
    return R.Val.getInt().getExtValue();
  return std::nullopt;
}

bool AffineContext::isUniform(const AffineForm &F) const {
  for (const auto &[S, C] : F.Terms)
    if (!Symbols[S].Uniform)
      return false;
  return true;
}

std::vector<unsigned> AffineContext::symbolsOf(const AffineForm &F) const {
  std::vector<unsigned> Out;
  std::vector<const AffineForm *> Work{&F};
  while (!Work.empty()) {
    const AffineForm *X = Work.back();
    Work.pop_back();
    for (const auto &[S, C] : X->Terms) {
      if (llvm::is_contained(Out, S))
        continue;
      Out.push_back(S);
      const AffineSymbol &Sym = Symbols[S];
      if (Sym.K == AffineSymbol::FloorDiv || Sym.K == AffineSymbol::Mod ||
          Sym.K == AffineSymbol::Quotient)
        Work.push_back(&Sym.Operand);
      if (Sym.K == AffineSymbol::Quotient &&
          !llvm::is_contained(Out, Sym.DivisorSymbol))
        Out.push_back(Sym.DivisorSymbol);
    }
  }
  llvm::sort(Out);
  return Out;
}

std::string AffineContext::str(const AffineForm &F) const {
  static const char *Builtins[] = {"threadIdx", "blockIdx", "blockDim",
                                   "gridDim"};
  std::string Out;
  for (const auto &[I, C] : F.Terms) {
    const AffineSymbol &S = Symbols[I];
    std::string Name;
    switch (S.K) {
    case AffineSymbol::Builtin:
      Name = std::string(Builtins[unsigned(S.B.Var)]) + "." + "xyz"[S.B.Dim];
      break;
    case AffineSymbol::Value:
    case AffineSymbol::Opaque:
      Name = S.Text;
      break;
    case AffineSymbol::Iteration:
      Name = "iter" + std::to_string(I);
      break;
    case AffineSymbol::FloorDiv:
      Name = "(" + str(S.Operand) + ")/" + std::to_string(S.Divisor);
      break;
    case AffineSymbol::Mod:
      Name = "(" + str(S.Operand) + ")%" + std::to_string(S.Divisor);
      break;
    case AffineSymbol::Quotient:
      Name = "(" + str(S.Operand) + ")/" + Symbols[S.DivisorSymbol].Text;
      break;
    }
    if (!Out.empty())
      Out += C < 0 ? " - " : " + ";
    else if (C < 0)
      Out += "-";
    int64_t Abs = C < 0 ? -C : C;
    Out += (Abs == 1 ? "" : std::to_string(Abs) + "*") + Name;
  }
  if (F.Constant || Out.empty()) {
    if (Out.empty())
      Out = std::to_string(F.Constant);
    else
      Out += (F.Constant < 0 ? " - " : " + ") +
             std::to_string(F.Constant < 0 ? -F.Constant : F.Constant);
  }
  return Out;
}

std::optional<AffineForm> AffineContext::opaque(const Expr *E, bool Uniform,
                                                bool ScalesThreadIdx) {
  // Inside an inlined helper the text names its parameters, not the
  // arguments: no symbol can stand for it.
  if (!Bound.empty())
    return std::nullopt;
  AffineSymbol S;
  S.K = AffineSymbol::Opaque;
  // Equal texts are one symbol (`row * n` read twice); an expression
  // written in a macro has no text and is a symbol of its own.
  S.Text = withoutSpaces(sourceText(E->getSourceRange(), Ctx));
  if (S.Text.empty())
    S.Text = "expr#" + std::to_string(reinterpret_cast<uintptr_t>(E));
  S.Uniform = Uniform;
  S.ScalesThreadIdx = ScalesThreadIdx;
  return single(intern(S));
}

std::optional<AffineForm> AffineContext::build(const Expr *E) {
  return build(E, 0);
}

std::optional<AffineForm> AffineContext::build(const Expr *E, unsigned Depth) {
  if (!E || Depth > 32)
    return std::nullopt;
  E = stripCasts(E);
  if (std::optional<BuiltinRef> B = matchBuiltin(E))
    return single(builtin(B->Var, B->Dim));
  if (E->isValueDependent() || E->isTypeDependent())
    return std::nullopt;
  if (std::optional<int64_t> C = constant(E)) {
    AffineForm F;
    F.Constant = *C;
    return F;
  }
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    for (auto It = Bound.rbegin(); It != Bound.rend(); ++It)
      if (It->first == Ref->getDecl())
        return It->second;
    if (const auto *V = dyn_cast<VarDecl>(Ref->getDecl()))
      return buildVar(V, E, Depth);
    return std::nullopt;
  }
  if (const auto *U = dyn_cast<UnaryOperator>(E)) {
    if (U->getOpcode() == UO_Minus)
      if (std::optional<AffineForm> F = build(U->getSubExpr(), Depth + 1))
        return scale(*F, -1);
    if (U->getOpcode() == UO_Plus)
      return build(U->getSubExpr(), Depth + 1);
    return std::nullopt;
  }
  if (const auto *B = dyn_cast<BinaryOperator>(E))
    return buildBinary(B, Depth);
  if (const auto *C = dyn_cast<ConditionalOperator>(E)) {
    for (const Expr *Sub :
         {C->getCond(), C->getTrueExpr(), C->getFalseExpr()}) {
      std::optional<AffineForm> F = build(Sub, Depth + 1);
      if (!F || !isUniform(*F))
        return std::nullopt;
    }
    return opaque(E, /*Uniform=*/true);
  }
  if (const auto *Call = dyn_cast<CallExpr>(E)) {
    if (std::optional<AffineForm> F = inlineCall(Call, Depth))
      return F;
    // A pure function of uniform values (min, max, ...) is uniform.
    const FunctionDecl *Callee = Call->getDirectCallee();
    if (!Callee || !isPureFunction(Callee))
      return std::nullopt;
    for (const Expr *A : Call->arguments()) {
      std::optional<AffineForm> F = build(A, Depth + 1);
      if (!F || !isUniform(*F))
        return std::nullopt;
    }
    return opaque(E, /*Uniform=*/true);
  }
  return std::nullopt;
}

std::optional<AffineForm> AffineContext::inlineCall(const CallExpr *Call,
                                                    unsigned Depth) {
  // A helper in a header has its body parsed again (SkippedBodies.h), in
  // an ASTContext of its own: its constants are evaluated there.
  const FunctionDecl *Def = definitionOf(Call->getDirectCallee());
  if (!Def || Def->getNumParams() != Call->getNumArgs() || Def->isVariadic())
    return std::nullopt;
  const auto *Body = dyn_cast_or_null<CompoundStmt>(Def->getBody());
  const auto *Ret = Body && Body->size() == 1
                        ? dyn_cast<ReturnStmt>(Body->body_front())
                        : nullptr;
  if (!Ret || !Ret->getRetValue() || !Def->getReturnType()->isIntegerType())
    return std::nullopt;
  std::vector<std::pair<const ParmVarDecl *, AffineForm>> Args;
  for (unsigned I = 0; I < Def->getNumParams(); ++I) {
    const ParmVarDecl *P = Def->getParamDecl(I);
    if (!P->getType()->isIntegerType() || isModifiedIn(P, Body))
      return std::nullopt;
    std::optional<AffineForm> F = build(Call->getArg(I), Depth + 1);
    if (!F)
      return std::nullopt;
    Args.emplace_back(P, std::move(*F));
  }
  std::size_t Outer = Bound.size();
  const ASTContext *OuterCtx = EvalCtx;
  Bound.insert(Bound.end(), Args.begin(), Args.end());
  EvalCtx = &Def->getASTContext();
  std::optional<AffineForm> F = build(Ret->getRetValue(), Depth + 1);
  EvalCtx = OuterCtx;
  Bound.resize(Outer);
  return F;
}

bool AffineContext::startsUniformLoop(const VarDecl *V, AffineForm &Out,
                                      unsigned Depth) {
  auto &Parents = const_cast<ASTContext &>(Ctx).getParentMapContext();
  DynTypedNodeList DS = Parents.getParents(*V);
  const auto *Decl = DS.empty() ? nullptr : DS[0].get<DeclStmt>();
  if (!Decl)
    return false;
  DynTypedNodeList FS = Parents.getParents(*Decl);
  const auto *For = FS.empty() ? nullptr : FS[0].get<ForStmt>();
  if (!For || For->getInit() != Decl)
    return false;
  std::optional<CountedLoop> L = matchCountedLoop(For);
  if (!L || L->Var != V || isModifiedIn(V, For->getCond()))
    return false;
  std::optional<AffineForm> Start = build(L->Init, Depth + 1);
  if (!Start)
    return false;
  AffineForm Step;
  Step.Constant = 1;
  if (L->Step) {
    std::optional<AffineForm> S = build(L->Step, Depth + 1);
    if (!S || !isUniform(*S))
      return false;
    Step = *S;
  }
  AffineSymbol It;
  It.K = AffineSymbol::Iteration;
  It.Loop = For;
  It.Min = 0;
  if (Step.isConstant()) {
    std::optional<AffineForm> R =
        add(*Start, single(intern(It)), Step.Constant);
    if (!R)
      return false;
    Out = *R;
    return true;
  }
  // A run-time step (blockDim.x): how far the loop has advanced is uniform
  // but not affine.
  AffineSymbol Offset;
  Offset.K = AffineSymbol::Opaque;
  Offset.Text =
      "advance@" +
      withoutSpaces(sourceText(For->getSourceRange(), Ctx)).substr(0, 64) +
      "#" + std::to_string(reinterpret_cast<uintptr_t>(For));
  Offset.Uniform = true;
  std::optional<AffineForm> R = add(*Start, single(intern(Offset)));
  if (!R)
    return false;
  Out = *R;
  return true;
}

std::optional<AffineForm>
AffineContext::buildVar(const VarDecl *V, const Expr *E, unsigned Depth) {
  auto Value = [&](bool Uniform) {
    AffineSymbol S;
    S.K = AffineSymbol::Value;
    S.Decl = V;
    S.Text = V->getNameAsString();
    S.Uniform = Uniform;
    if (V->getType()->isUnsignedIntegerType())
      S.Min = 0;
    return single(intern(S));
  };
  if (isa<ParmVarDecl>(V)) {
    // A parameter keeps the value it was called with unless Scope writes it.
    if (isModifiedIn(V, Scope))
      return std::nullopt;
    return Value(/*Uniform=*/true);
  }
  if (!V->hasLocalStorage() || V->hasAttr<CUDASharedAttr>()) {
    // __constant__ and const globals read the same value everywhere.
    if (V->getType().isConstQualified() || V->hasAttr<CUDAConstantAttr>())
      return Value(/*Uniform=*/true);
    return std::nullopt;
  }
  AffineForm Loop;
  if (startsUniformLoop(V, Loop, Depth))
    return Loop;
  if (!V->getInit() || isModifiedIn(V, Scope))
    return std::nullopt;
  return build(V->getInit(), Depth + 1);
}

std::optional<AffineForm> AffineContext::buildBinary(const BinaryOperator *B,
                                                     unsigned Depth) {
  BinaryOperatorKind Op = B->getOpcode();
  if (!B->getType()->isIntegerType() || B->isComparisonOp() ||
      B->isLogicalOp() || B->isAssignmentOp() || Op == BO_Comma)
    return std::nullopt;
  std::optional<AffineForm> L = build(B->getLHS(), Depth + 1);
  std::optional<AffineForm> R = build(B->getRHS(), Depth + 1);
  if (!L || !R)
    return std::nullopt;
  bool BothUniform = isUniform(*L) && isUniform(*R);
  switch (Op) {
  case BO_Add:
    return add(*L, *R);
  case BO_Sub:
    return add(*L, *R, -1);
  case BO_Mul: {
    if (L->isConstant())
      return scale(*R, L->Constant);
    if (R->isConstant())
      return scale(*L, R->Constant);
    if (BothUniform)
      return opaque(B, /*Uniform=*/true);
    // threadIdx.x times a run-time uniform value: a stride known only at
    // run time.
    const AffineForm &Varying = isUniform(*L) ? *R : *L;
    if (!isUniform(*L) && !isUniform(*R))
      return std::nullopt;
    unsigned Tid = builtin(BuiltinVar::ThreadIdx, 0);
    for (const auto &[S, C] : Varying.Terms)
      if (!Symbols[S].Uniform && S != Tid)
        return std::nullopt;
    return opaque(B, /*Uniform=*/false, /*ScalesThreadIdx=*/true);
  }
  case BO_Shl:
    if (R->isConstant() && R->Constant >= 0 && R->Constant <= 30)
      return scale(*L, int64_t(1) << R->Constant);
    break;
  case BO_Div:
  case BO_Rem:
  case BO_Shr:
  case BO_And: {
    // By a positive constant: a division or remainder the Presburger
    // queries can reason about. `x >> k` and `x & (2^k - 1)` are exact
    // floor division and remainder for any sign; `/` and `%` truncate,
    // which equals them only for a non-negative operand.
    std::optional<int64_t> D;
    bool Remainder = Op == BO_Rem || Op == BO_And;
    if (R->isConstant()) {
      if (Op == BO_Shr && R->Constant >= 0 && R->Constant <= 30)
        D = int64_t(1) << R->Constant;
      else if (Op == BO_And && R->Constant > 0 &&
               llvm::isPowerOf2_64(uint64_t(R->Constant) + 1))
        D = R->Constant + 1;
      else if ((Op == BO_Div || Op == BO_Rem) && R->Constant > 0)
        D = R->Constant;
    }
    if (!D && Op == BO_Div && BothUniform && R->Constant == 0 &&
        R->Terms.size() == 1 && R->Terms.begin()->second == 1) {
      // By a run-time value: `(n + b - 1) / b`. Not affine, but the
      // Presburger queries know b * (e / b) lies in (e - b, e].
      AffineSymbol S;
      S.K = AffineSymbol::Quotient;
      S.Operand = *L;
      S.DivisorSymbol = R->Terms.begin()->first;
      S.Truncates = true;
      S.Uniform = true;
      return single(intern(S));
    }
    if (!D)
      break;
    if (L->isConstant() && L->Constant >= 0) {
      AffineForm F;
      F.Constant = Remainder ? L->Constant % *D : L->Constant / *D;
      return F;
    }
    AffineSymbol S;
    S.K = Remainder ? AffineSymbol::Mod : AffineSymbol::FloorDiv;
    S.Operand = *L;
    S.Divisor = *D;
    S.Truncates = Op == BO_Div || Op == BO_Rem;
    S.Uniform = isUniform(*L);
    if (Remainder && !S.Truncates)
      S.Min = 0;
    return single(intern(S));
  }
  default:
    break;
  }
  if (BothUniform)
    return opaque(B, /*Uniform=*/true);
  return std::nullopt;
}

} // namespace kopt
