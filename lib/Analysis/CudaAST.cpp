//===- CudaAST.cpp - Recognizers for CUDA idioms in Clang's AST -----------===//

#include "kopt/Analysis/CudaAST.h"
#include "kopt/Analysis/Mutation.h"
#include "kopt/Frontend/SkippedBodies.h"

#include "clang/AST/Attr.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMap.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/PrettyPrinter.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/raw_ostream.h"

using namespace clang;

namespace kopt {

std::string typeAsWritten(QualType T, const PrintingPolicy &PP) {
  SplitQualType S = T.split();
  std::string Quals = S.Quals.getAsString(PP);
  if (const auto *Sub = dyn_cast<SubstTemplateTypeParmType>(S.Ty))
    if (const TemplateTypeParmDecl *P = Sub->getReplacedParameter();
        P && P->getIdentifier())
      return (Quals.empty() ? "" : Quals + " ") + P->getName().str();
  if (const auto *Ptr = dyn_cast<PointerType>(S.Ty)) {
    std::string Inner = typeAsWritten(Ptr->getPointeeType(), PP);
    if (Inner != Ptr->getPointeeType().getAsString(PP))
      return Inner + " *" + Quals;
  }
  return T.getAsString(PP);
}

const Expr *stripCasts(const Expr *E) {
  while (E) {
    E = E->IgnoreParenImpCasts();
    if (const auto *C = dyn_cast<ExplicitCastExpr>(E)) {
      if (C->getType()->isIntegerType() || C->getType()->isPointerType()) {
        E = C->getSubExpr();
        continue;
      }
    }
    if (const auto *FC = dyn_cast<CXXFunctionalCastExpr>(E)) {
      E = FC->getSubExpr();
      continue;
    }
    return E;
  }
  return E;
}

std::optional<BuiltinRef> matchBuiltin(const Expr *E) {
  const auto *PO = dyn_cast_or_null<PseudoObjectExpr>(stripCasts(E));
  if (!PO)
    return std::nullopt;
  // `(blockDim.x)` is one pseudo-object whose syntactic form is the parens.
  const auto *Prop =
      dyn_cast<MSPropertyRefExpr>(PO->getSyntacticForm()->IgnoreParens());
  if (!Prop)
    return std::nullopt;
  const Expr *Base = Prop->getBaseExpr()->IgnoreParenImpCasts();
  if (const auto *OV = dyn_cast<OpaqueValueExpr>(Base))
    Base = OV->getSourceExpr()->IgnoreParenImpCasts();
  const auto *Ref = dyn_cast<DeclRefExpr>(Base);
  if (!Ref)
    return std::nullopt;
  std::optional<BuiltinVar> Var =
      llvm::StringSwitch<std::optional<BuiltinVar>>(Ref->getDecl()->getName())
          .Case("threadIdx", BuiltinVar::ThreadIdx)
          .Case("blockIdx", BuiltinVar::BlockIdx)
          .Case("blockDim", BuiltinVar::BlockDim)
          .Case("gridDim", BuiltinVar::GridDim)
          .Default(std::nullopt);
  if (!Var)
    return std::nullopt;
  std::optional<unsigned> Dim = llvm::StringSwitch<std::optional<unsigned>>(
                                    Prop->getPropertyDecl()->getName())
                                    .Case("x", 0u)
                                    .Case("y", 1u)
                                    .Case("z", 2u)
                                    .Default(std::nullopt);
  if (!Dim)
    return std::nullopt;
  return BuiltinRef{*Var, *Dim};
}

bool isBuiltin(const Expr *E, BuiltinVar Var, unsigned Dim) {
  std::optional<BuiltinRef> R = matchBuiltin(E);
  return R && R->Var == Var && R->Dim == Dim;
}

namespace {

/// Whether \p E reads nothing but \p Def's parameters (and constants) and
/// has no side effects.
bool readsOnlyParameters(const Expr *E, const FunctionDecl *Def) {
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    const auto *P = dyn_cast<ParmVarDecl>(Ref->getDecl());
    return isa<EnumConstantDecl>(Ref->getDecl()) ||
           (P && P->getDeclContext() == Def);
  }
  return llvm::all_of(E->children(), [&](const Stmt *C) {
    const auto *CE = dyn_cast_or_null<Expr>(C);
    return !C || (CE && readsOnlyParameters(CE, Def));
  });
}

/// A helper of arithmetic values whose body is one `return` of an
/// expression of its parameters without side effects (a rounding-up
/// division), read from a header's text too (SkippedBodies.h).
bool returnsFunctionOfParameters(const FunctionDecl *FD) {
  // Helpers that call helpers: a bound on the depth (and on recursion).
  static thread_local unsigned Depth = 0;
  if (Depth > 4)
    return false;
  const FunctionDecl *Def = definitionOf(FD);
  const auto *Body =
      Def ? dyn_cast_or_null<CompoundStmt>(Def->getBody()) : nullptr;
  const auto *Ret = Body && Body->size() == 1
                        ? dyn_cast<ReturnStmt>(Body->body_front())
                        : nullptr;
  // Of values only: a pointer or reference parameter would let the result
  // depend on memory, which may change between calls.
  if (!Ret || !Ret->getRetValue() || !takesAndReturnsValues(Def))
    return false;
  ++Depth;
  bool Pure = readsOnlyParameters(Ret->getRetValue(), Def) &&
              !hasSideEffects(Ret->getRetValue(), Def->getASTContext());
  --Depth;
  return Pure;
}

} // namespace

bool takesAndReturnsValues(const FunctionDecl *FD) {
  auto IsValue = [](QualType T) {
    return T->isArithmeticType() || T->isEnumeralType();
  };
  return IsValue(FD->getReturnType()) &&
         llvm::all_of(FD->parameters(), [&](const ParmVarDecl *P) {
           return IsValue(P->getType());
         });
}

bool isPureFunction(const FunctionDecl *FD) {
  if (FD->isConstexpr() || FD->hasAttr<ConstAttr>())
    return true;
  if (!FD->getIdentifier())
    return false;
  // CUDA's own min/max by name; a program's function of those names only
  // by what its body shows.
  const SourceManager &SM = FD->getASTContext().getSourceManager();
  StringRef N = FD->getName();
  bool CudaMinMax = N == "min" || N == "max" || N == "umin" || N == "umax" ||
                    N == "llmin" || N == "llmax";
  return (CudaMinMax &&
          SM.isInSystemHeader(SM.getExpansionLoc(FD->getLocation()))) ||
         returnsFunctionOfParameters(FD);
}

bool hasSideEffects(const Expr *E, const ASTContext &Ctx) {
  if (!E || matchBuiltin(E))
    return false;
  E = E->IgnoreParens();
  if (const auto *Call = dyn_cast<CallExpr>(E))
    if (const FunctionDecl *Callee = Call->getDirectCallee();
        Callee && isPureFunction(Callee))
      return llvm::any_of(Call->arguments(), [&](const Expr *A) {
        return hasSideEffects(A, Ctx);
      });
  if (const auto *B = dyn_cast<BinaryOperator>(E))
    if (B->isAssignmentOp())
      return true;
  if (const auto *U = dyn_cast<UnaryOperator>(E))
    if (U->isIncrementDecrementOp())
      return true;
  if (isa<CallExpr>(E) || isa<CXXConstructExpr>(E))
    return E->HasSideEffects(Ctx);
  for (const Stmt *C : E->children())
    if (const auto *CE = dyn_cast_or_null<Expr>(C))
      if (hasSideEffects(CE, Ctx))
        return true;
  return false;
}

const VarDecl *referencedVar(const Expr *E) {
  if (const auto *Ref = dyn_cast_or_null<DeclRefExpr>(stripCasts(E)))
    return dyn_cast<VarDecl>(Ref->getDecl());
  return nullptr;
}

namespace {

const Expr *localInit(const Expr *E, const Stmt *Scope) {
  const VarDecl *V = referencedVar(E);
  if (!V || !V->hasLocalStorage() || isa<ParmVarDecl>(V) || !V->getInit())
    return nullptr;
  if (Scope && isModifiedIn(V, Scope))
    return nullptr;
  return V->getInit();
}

/// If E is `A * S` or `S * A`, with S blockDim.x or (given Ctx) a
/// compile-time constant: how S names the block size.
std::optional<BlockTerm> blockTimes(const Expr *E, BuiltinVar A,
                                    const Stmt *Scope, const ASTContext *Ctx) {
  const auto *Mul = dyn_cast<BinaryOperator>(stripCasts(E));
  if (!Mul || Mul->getOpcode() != BO_Mul)
    return std::nullopt;
  for (auto [X, S] : {std::pair(Mul->getLHS(), Mul->getRHS()),
                      std::pair(Mul->getRHS(), Mul->getLHS())}) {
    if (!isBuiltin(X, A))
      continue;
    if (isBuiltin(S, BuiltinVar::BlockDim))
      return BlockTerm{};
    if (Ctx)
      if (std::optional<int64_t> C = evaluateInt(S, *Ctx, Scope))
        return BlockTerm{C};
  }
  return std::nullopt;
}

std::optional<BlockTerm> globalThreadIndex(const Expr *E, const Stmt *Scope,
                                           const ASTContext *Ctx) {
  E = stripCasts(followLocalInit(stripCasts(E), Scope));
  const auto *Add = dyn_cast<BinaryOperator>(E);
  if (!Add || Add->getOpcode() != BO_Add)
    return std::nullopt;
  for (auto [Base, Tid] : {std::pair(Add->getLHS(), Add->getRHS()),
                           std::pair(Add->getRHS(), Add->getLHS())})
    if (isBuiltin(Tid, BuiltinVar::ThreadIdx))
      if (std::optional<BlockTerm> T =
              blockTimes(Base, BuiltinVar::BlockIdx, Scope, Ctx))
        return T;
  return std::nullopt;
}

std::optional<BlockTerm> gridStride(const Expr *E, const Stmt *Scope,
                                    const ASTContext *Ctx) {
  return blockTimes(followLocalInit(stripCasts(E), Scope), BuiltinVar::GridDim,
                    Scope, Ctx);
}

} // namespace

const Expr *followLocalInit(const Expr *E, const Stmt *Scope) {
  for (unsigned Depth = 0; Depth < 16; ++Depth) {
    const Expr *Init = localInit(E, Scope);
    if (!Init)
      return E;
    E = Init;
  }
  return E;
}

bool isGlobalThreadIndex(const Expr *E, const Stmt *Scope) {
  return globalThreadIndex(E, Scope, nullptr).has_value();
}

bool isGridStride(const Expr *E, const Stmt *Scope) {
  return gridStride(E, Scope, nullptr).has_value();
}

std::optional<BlockTerm> matchGlobalThreadIndex(const Expr *E,
                                                const Stmt *Scope,
                                                const ASTContext &Ctx) {
  return globalThreadIndex(E, Scope, &Ctx);
}

std::optional<BlockTerm> matchGridStride(const Expr *E, const Stmt *Scope,
                                         const ASTContext &Ctx) {
  return gridStride(E, Scope, &Ctx);
}

std::optional<CountedLoop> matchCountedLoop(const ForStmt *For) {
  CountedLoop L;
  // Init: `T i = E` or `i = E`.
  if (const auto *DS = dyn_cast_or_null<DeclStmt>(For->getInit())) {
    if (!DS->isSingleDecl())
      return std::nullopt;
    const auto *V = dyn_cast<VarDecl>(DS->getSingleDecl());
    if (!V || !V->getInit())
      return std::nullopt;
    L.Var = V;
    L.Init = V->getInit();
  } else if (const auto *B = dyn_cast_or_null<BinaryOperator>(For->getInit())) {
    if (B->getOpcode() != BO_Assign || !referencedVar(B->getLHS()))
      return std::nullopt;
    L.Var = referencedVar(B->getLHS());
    L.Init = B->getRHS();
  } else {
    return std::nullopt;
  }
  // Condition: `i < N`, `i <= N`, `N > i`, `N >= i`.
  const auto *Cond = dyn_cast_or_null<BinaryOperator>(
      For->getCond() ? For->getCond()->IgnoreParenImpCasts() : nullptr);
  if (!Cond)
    return std::nullopt;
  BinaryOperatorKind Op = Cond->getOpcode();
  if ((Op == BO_LT || Op == BO_LE) && referencedVar(Cond->getLHS()) == L.Var) {
    L.Bound = Cond->getRHS();
    L.Inclusive = Op == BO_LE;
  } else if ((Op == BO_GT || Op == BO_GE) &&
             referencedVar(Cond->getRHS()) == L.Var) {
    L.Bound = Cond->getLHS();
    L.Inclusive = Op == BO_GE;
  } else {
    return std::nullopt;
  }
  // Increment: `++i`, `i++`, `i += S`, `i = i + S`.
  const Expr *Inc =
      For->getInc() ? For->getInc()->IgnoreParenImpCasts() : nullptr;
  if (const auto *U = dyn_cast_or_null<UnaryOperator>(Inc)) {
    if (!U->isIncrementOp() || referencedVar(U->getSubExpr()) != L.Var)
      return std::nullopt;
  } else if (const auto *B = dyn_cast_or_null<BinaryOperator>(Inc)) {
    if (referencedVar(B->getLHS()) != L.Var)
      return std::nullopt;
    if (B->getOpcode() == BO_AddAssign) {
      L.Step = B->getRHS();
    } else if (B->getOpcode() == BO_Assign) {
      const auto *Sum = dyn_cast<BinaryOperator>(stripCasts(B->getRHS()));
      if (!Sum || Sum->getOpcode() != BO_Add)
        return std::nullopt;
      if (referencedVar(Sum->getLHS()) == L.Var)
        L.Step = Sum->getRHS();
      else if (referencedVar(Sum->getRHS()) == L.Var)
        L.Step = Sum->getLHS();
      else
        return std::nullopt;
    } else {
      return std::nullopt;
    }
  } else {
    return std::nullopt;
  }
  // The body must not move the induction variable itself.
  if (isModifiedIn(L.Var, For->getBody()))
    return std::nullopt;
  return L;
}

std::optional<int64_t> evaluateInt(const Expr *E, const ASTContext &Ctx,
                                   const Stmt *Scope) {
  if (!E || E->isValueDependent() || E->isTypeDependent())
    return std::nullopt;
  Expr::EvalResult R;
  if (E->EvaluateAsInt(R, Ctx))
    return R.Val.getInt().getExtValue();
  if (const Expr *Init = localInit(E, Scope))
    return evaluateInt(Init, Ctx, Scope);
  return std::nullopt;
}

bool isDim3(QualType T) {
  T = T.getNonReferenceType().getCanonicalType();
  if (const auto *RD = T->getAsCXXRecordDecl())
    return RD->getName() == "dim3";
  return false;
}

namespace {

const CXXConstructExpr *dim3Construct(const Expr *E) {
  E = E->IgnoreImplicit();
  if (const auto *BT = dyn_cast<CXXBindTemporaryExpr>(E))
    E = BT->getSubExpr();
  if (const auto *FC = dyn_cast<CXXFunctionalCastExpr>(E))
    E = FC->getSubExpr()->IgnoreImplicit();
  return dyn_cast<CXXConstructExpr>(E);
}

} // namespace

const Stmt *enclosingStatement(const Stmt *S, const ASTContext &Ctx) {
  auto &Parents = const_cast<ASTContext &>(Ctx).getParentMapContext();
  for (unsigned Depth = 0; S && Depth < 64; ++Depth) {
    DynTypedNodeList Ps = Parents.getParents(*S);
    if (Ps.empty())
      return S;
    // A declaration's initializer: the declaration statement holds it.
    if (const auto *V = Ps[0].get<VarDecl>()) {
      DynTypedNodeList DPs = Parents.getParents(*V);
      const auto *DS = DPs.empty() ? nullptr : DPs[0].get<DeclStmt>();
      return DS ? DS : S;
    }
    // Climb through expressions only: a statement position ends the climb.
    const auto *P = Ps[0].get<Expr>();
    if (!P)
      return S;
    S = P;
  }
  return S;
}

std::string whyNotConstant(const Expr *E, const ASTContext &Ctx,
                           const Stmt *Scope) {
  for (unsigned Depth = 0; E && Depth < 16; ++Depth) {
    const VarDecl *V = referencedVar(E);
    if (!V)
      return "";
    std::string Name = "'" + V->getNameAsString() + "'";
    if (isa<ParmVarDecl>(V))
      return Name + " is a parameter of the launching function";
    if (!V->hasLocalStorage())
      return Name + " is not a local variable";
    if (!V->getInit())
      return Name + " has no initializer";
    if (Scope)
      if (const Stmt *M = findMutation(V, Scope))
        return Name + " may be changed at " +
               str(lineCol(M->getBeginLoc(), Ctx)) + " ('" +
               oneLine(sourceText(enclosingStatement(M, Ctx)->getSourceRange(),
                                  Ctx)) +
               "')";
    E = V->getInit();
    if (E->isValueDependent() || E->isTypeDependent())
      return Name + " depends on a template parameter";
    Expr::EvalResult R;
    if (!referencedVar(E) && !E->EvaluateAsInt(R, Ctx))
      return Name + " is initialized with '" +
             sourceText(E->getSourceRange(), Ctx) + "'";
  }
  return "";
}

DimValue evaluateDim(const Expr *E, const ASTContext &Ctx, const Stmt *Scope) {
  DimValue D;
  if (!E)
    return D;
  if (!isDim3(E->getType())) {
    D.X = evaluateInt(E, Ctx, Scope);
    D.Y = D.Z = 1;
    return D;
  }
  const CXXConstructExpr *C = dim3Construct(E);
  // A copy of a dim3 variable: look at its initializer.
  if (C && C->getNumArgs() == 1 && isDim3(C->getArg(0)->getType()))
    return evaluateDim(C->getArg(0), Ctx, Scope);
  if (!C) {
    if (const VarDecl *V = referencedVar(E)) {
      if (V->hasLocalStorage() && V->getInit() && !isModifiedIn(V, Scope) &&
          !isa<ParmVarDecl>(V)) {
        // `dim3 b(x.x, ...)` members assigned later count as modification
        // only through operator=; member stores are found here too.
        return evaluateDim(V->getInit(), Ctx, Scope);
      }
    }
    return D;
  }
  std::optional<int64_t> Vals[3] = {1, 1, 1};
  for (unsigned I = 0; I < C->getNumArgs() && I < 3; ++I) {
    const Expr *A = C->getArg(I);
    if (const auto *Def = dyn_cast<CXXDefaultArgExpr>(A))
      A = Def->getExpr();
    Vals[I] = evaluateInt(A, Ctx, Scope);
  }
  D.X = Vals[0];
  D.Y = Vals[1];
  D.Z = Vals[2];
  return D;
}

const Expr *userWrittenLaunchArg(const Expr *E) {
  if (!E || isa<CXXDefaultArgExpr>(E))
    return nullptr;
  const Expr *Inner = E->IgnoreImplicit();
  // An implicit int -> dim3 conversion or a copy of a dim3 variable: the user
  // wrote the constructor's argument. `dim3(16, 16)` has parentheses and stays.
  if (const auto *C = dyn_cast<CXXConstructExpr>(Inner))
    if (!isa<CXXTemporaryObjectExpr>(C) && C->getNumArgs() >= 1 &&
        C->getParenOrBraceRange().isInvalid())
      return C->getArg(0)->IgnoreImplicit();
  return Inner;
}

std::string sourceText(SourceRange R, const ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  CharSourceRange CR = Lexer::makeFileCharRange(
      CharSourceRange::getTokenRange(R), SM, Ctx.getLangOpts());
  if (CR.isInvalid())
    return std::string();
  return Lexer::getSourceText(CR, SM, Ctx.getLangOpts()).str();
}

std::string sourceOrPrinted(const Stmt *S, const ASTContext &Ctx) {
  std::string Text = sourceText(S->getSourceRange(), Ctx);
  if (!Text.empty())
    return Text;
  llvm::raw_string_ostream OS(Text);
  S->printPretty(OS, nullptr, PrintingPolicy(Ctx.getLangOpts()));
  return Text;
}

LineCol lineCol(SourceLocation L, const ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  PresumedLoc P = SM.getPresumedLoc(SM.getExpansionLoc(L));
  if (P.isInvalid())
    return {};
  return {P.getLine(), P.getColumn()};
}

std::string str(const LineCol &L) {
  return std::to_string(L.Line) + ":" + std::to_string(L.Col);
}

std::string oneLine(llvm::StringRef Text) {
  std::string S;
  bool Space = false;
  for (char C : Text.trim()) {
    if (llvm::isSpace(C)) {
      Space = true;
      continue;
    }
    if (Space && !S.empty())
      S.push_back(' ');
    Space = false;
    S.push_back(C);
  }
  return S;
}

std::string withoutSpaces(llvm::StringRef Text) {
  std::string S;
  for (char C : Text)
    if (!llvm::isSpace(C))
      S.push_back(C);
  return S;
}

bool isRewritable(SourceRange R, const ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  if (R.isInvalid() || R.getBegin().isMacroID() || R.getEnd().isMacroID())
    return false;
  return SM.isInMainFile(R.getBegin()) && SM.isInMainFile(R.getEnd());
}

std::optional<WriteOf> writeOf(const Stmt *S) {
  if (const auto *B = dyn_cast_or_null<BinaryOperator>(S)) {
    if (B->isAssignmentOp())
      return WriteOf{B->getLHS(), B->getOpcode() == BO_Assign};
    return std::nullopt;
  }
  if (const auto *U = dyn_cast_or_null<UnaryOperator>(S)) {
    if (U->isIncrementDecrementOp())
      return WriteOf{U->getSubExpr(), false};
    return std::nullopt;
  }
  if (const auto *C = dyn_cast_or_null<CXXOperatorCallExpr>(S)) {
    if (C->getNumArgs() == 0)
      return std::nullopt;
    OverloadedOperatorKind Op = C->getOperator();
    if (C->isAssignmentOp())
      return WriteOf{C->getArg(0), Op == OO_Equal};
    if (Op == OO_PlusPlus || Op == OO_MinusMinus)
      return WriteOf{C->getArg(0), false};
  }
  return std::nullopt;
}

const VarDecl *localWriteTarget(const Expr *Target) {
  const Expr *E = Target->IgnoreParenImpCasts();
  while (true) {
    if (const auto *A = dyn_cast<ArraySubscriptExpr>(E)) {
      if (A->getBase()->IgnoreParenImpCasts()->getType()->isPointerType())
        return nullptr; // memory, also through a local array of pointers
      E = A->getBase()->IgnoreParenImpCasts();
    } else if (const auto *M = dyn_cast<MemberExpr>(E)) {
      if (M->isArrow())
        return nullptr;
      E = M->getBase()->IgnoreParenImpCasts();
    } else {
      break;
    }
  }
  const VarDecl *V = referencedVar(E);
  return V && V->hasLocalStorage() && !V->getType()->isReferenceType()
             ? V
             : nullptr;
}

const Expr *writtenDereference(const Expr *Target) {
  const Expr *E = Target->IgnoreParens();
  while (true) {
    if (const auto *M = dyn_cast<MemberExpr>(E); M && !M->isArrow())
      E = M->getBase()->IgnoreParens();
    else if (const auto *A = dyn_cast<ArraySubscriptExpr>(E);
             A &&
             !A->getBase()->IgnoreParenImpCasts()->getType()->isPointerType())
      E = A->getBase()->IgnoreParenImpCasts();
    else
      break;
  }
  if (const auto *A = dyn_cast<ArraySubscriptExpr>(E))
    return A;
  if (const auto *U = dyn_cast<UnaryOperator>(E);
      U && U->getOpcode() == UO_Deref)
    return U;
  if (const auto *M = dyn_cast<MemberExpr>(E); M && M->isArrow())
    return M;
  return nullptr;
}

std::vector<const DeclRefExpr *> referencesTo(const Stmt *S, const ValueDecl *D,
                                              ASTContext &Ctx) {
  std::vector<const DeclRefExpr *> Out;
  if (!S)
    return Out;
  for (const ast_matchers::BoundNodes &N : ast_matchers::match(
           ast_matchers::findAll(
               ast_matchers::declRefExpr(ast_matchers::to(ast_matchers::decl(
                                             ast_matchers::equalsNode(D))))
                   .bind("r")),
           *S, Ctx))
    Out.push_back(N.getNodeAs<DeclRefExpr>("r"));
  return Out;
}

llvm::SmallPtrSet<const VarDecl *, 8> varsDeclaredIn(const Stmt *S) {
  llvm::SmallPtrSet<const VarDecl *, 8> Vars;
  forEachSubStmt(S, [&](const Stmt *X) {
    if (const auto *DS = dyn_cast<DeclStmt>(X))
      for (const Decl *D : DS->decls())
        if (const auto *V = dyn_cast<VarDecl>(D))
          Vars.insert(V);
  });
  return Vars;
}

size_t countReferences(const Stmt *S, const ValueDecl *D) {
  return S ? referencesTo(S, D, D->getASTContext()).size() : 0;
}

void forEachSubStmt(const Stmt *S, llvm::function_ref<void(const Stmt *)> Fn) {
  if (!S)
    return;
  Fn(S);
  if (const auto *PO = dyn_cast<PseudoObjectExpr>(S)) {
    if (!matchBuiltin(PO))
      forEachSubStmt(PO->getSyntacticForm(), Fn);
    return;
  }
  for (const Stmt *C : S->children())
    forEachSubStmt(C, Fn);
}

bool isBarrierCall(const Stmt *S) {
  const auto *C = dyn_cast_or_null<CallExpr>(S);
  if (!C)
    return false;
  const FunctionDecl *FD = C->getDirectCallee();
  if (!FD || !FD->getIdentifier())
    return false;
  return llvm::StringSwitch<bool>(FD->getName())
      .Cases({"__syncthreads", "__syncthreads_count", "__syncthreads_and",
              "__syncthreads_or", "__barrier_sync"},
             true)
      .Default(false);
}

} // namespace kopt
