//===- IndexClassifier.cpp - How an index varies across threads -----------===//

#include "kopt/Analysis/IndexClassifier.h"
#include "kopt/Analysis/CudaAST.h"

#include "clang/AST/Attr.h"
#include "clang/AST/ParentMap.h"
#include "clang/AST/StmtCXX.h"

using namespace clang;

namespace kopt {

llvm::StringRef IndexClass::kindName() const {
  switch (K) {
  case Uniform:
    return "uniform";
  case Contiguous:
    return "contiguous";
  case Strided:
    return "strided";
  case Unknown:
    return "unknown";
  }
  llvm_unreachable("bad index class");
}

namespace {

/// An index as an affine function of threadIdx.x: Coef * threadIdx.x + rest,
/// where rest is the same for all threads. Coef is unset when it is a
/// run-time (but uniform) value; Varying means not affine at all.
struct Affine {
  bool Varying = false;
  bool SymbolicCoef = false;
  int64_t Coef = 0;

  static Affine uniform() { return {}; }
  static Affine tid() { return {false, false, 1}; }
  static Affine varying() { return {true, false, 0}; }
  bool isUniform() const { return !Varying && !SymbolicCoef && Coef == 0; }
};

class Classifier {
public:
  Classifier(const FunctionDecl *F, const ASTContext &Ctx)
      : F(F), Ctx(Ctx), Body(F->getBody()), Parents(F->getBody()) {}

  Affine classify(const Expr *E, unsigned Depth = 0) {
    if (!E || Depth > 32)
      return Affine::varying();
    E = stripCasts(E);
    if (std::optional<BuiltinRef> B = matchBuiltin(E)) {
      if (B->Var == BuiltinVar::ThreadIdx)
        return B->Dim == 0 ? Affine::tid() : Affine::varying();
      return Affine::uniform();
    }
    if (E->isValueDependent())
      return Affine::varying();
    Expr::EvalResult R;
    if (E->EvaluateAsInt(R, Ctx))
      return Affine::uniform();
    if (const auto *Ref = dyn_cast<DeclRefExpr>(E))
      return classifyVar(Ref->getDecl(), Depth);
    if (const auto *B = dyn_cast<BinaryOperator>(E))
      return classifyBinary(B, Depth);
    if (const auto *C = dyn_cast<ConditionalOperator>(E)) {
      Affine A = classify(C->getCond(), Depth + 1);
      Affine T = classify(C->getTrueExpr(), Depth + 1);
      Affine Fa = classify(C->getFalseExpr(), Depth + 1);
      return A.isUniform() && T.isUniform() && Fa.isUniform()
                 ? Affine::uniform()
                 : Affine::varying();
    }
    if (const auto *Call = dyn_cast<CallExpr>(E)) {
      // A pure function of uniform values (min, max, ...) is uniform.
      const FunctionDecl *Callee = Call->getDirectCallee();
      if (!Callee || !Callee->isConstexpr() && !isMathHelper(Callee))
        return Affine::varying();
      for (const Expr *A : Call->arguments())
        if (!classify(A, Depth + 1).isUniform())
          return Affine::varying();
      return Affine::uniform();
    }
    return Affine::varying();
  }

private:
  static bool isMathHelper(const FunctionDecl *FD) {
    if (!FD->getIdentifier())
      return false;
    llvm::StringRef N = FD->getName();
    return N == "min" || N == "max" || N == "umin" || N == "umax" ||
           N == "llmin" || N == "llmax";
  }

  Affine classifyVar(const ValueDecl *D, unsigned Depth) {
    const auto *V = dyn_cast<VarDecl>(D);
    if (!V)
      return Affine::varying();
    // Kernel parameters are the same for all threads.
    if (isa<ParmVarDecl>(V))
      return V->getDeclContext() == F ? Affine::uniform() : Affine::varying();
    if (!V->hasLocalStorage() || V->hasAttr<CUDASharedAttr>()) {
      // __constant__ and other globals read the same value everywhere,
      // unless written; shared variables are written by threads.
      return V->getType().isConstQualified() || V->hasAttr<CUDAConstantAttr>()
                 ? Affine::uniform()
                 : Affine::varying();
    }
    if (!V->getInit())
      return Affine::varying();
    // A counted loop's variable: its own increment is allowed when the step
    // is uniform; nothing else in the loop may change it.
    if (const ForStmt *For = loopDeclaring(V)) {
      std::optional<CountedLoop> L = matchCountedLoop(For);
      if (!L || L->Var != V)
        return Affine::varying();
      if (L->Step && !classify(L->Step, Depth + 1).isUniform())
        return Affine::varying();
      if (isModifiedIn(V, For->getCond()) || isModifiedIn(V, For->getBody()))
        return Affine::varying();
    } else if (isModifiedIn(V, Body)) {
      return Affine::varying();
    }
    return classify(V->getInit(), Depth + 1);
  }

  const ForStmt *loopDeclaring(const VarDecl *V) {
    for (const Stmt *S = Parents.getParent(findDeclStmt(V)); S;
         S = Parents.getParent(S)) {
      if (const auto *For = dyn_cast<ForStmt>(S))
        return For->getInit() && findDeclStmt(V) == For->getInit() ? For
                                                                   : nullptr;
      return nullptr;
    }
    return nullptr;
  }

  const Stmt *findDeclStmt(const VarDecl *V) {
    auto It = DeclStmts.find(V);
    if (It != DeclStmts.end())
      return It->second;
    const Stmt *Found = nullptr;
    std::function<void(const Stmt *)> Walk = [&](const Stmt *S) {
      if (!S || Found)
        return;
      if (const auto *DS = dyn_cast<DeclStmt>(S))
        for (const Decl *D : DS->decls())
          if (D == V)
            Found = DS;
      for (const Stmt *C : S->children())
        Walk(C);
    };
    Walk(Body);
    DeclStmts[V] = Found;
    return Found;
  }

  Affine classifyBinary(const BinaryOperator *B, unsigned Depth) {
    Affine L = classify(B->getLHS(), Depth + 1);
    Affine R = classify(B->getRHS(), Depth + 1);
    if (L.Varying || R.Varying)
      return Affine::varying();
    switch (B->getOpcode()) {
    case BO_Add:
    case BO_Sub: {
      Affine A;
      A.SymbolicCoef = L.SymbolicCoef || R.SymbolicCoef;
      A.Coef = B->getOpcode() == BO_Add ? L.Coef + R.Coef : L.Coef - R.Coef;
      return A;
    }
    case BO_Mul: {
      if (L.isUniform() && R.isUniform())
        return Affine::uniform();
      const Affine &Var = L.isUniform() ? R : L;
      const Expr *Factor = L.isUniform() ? B->getLHS() : B->getRHS();
      if (!(L.isUniform() || R.isUniform()))
        return Affine::varying();
      Affine A = Var;
      if (std::optional<int64_t> K = constant(Factor))
        A.Coef *= *K;
      else
        A.SymbolicCoef = true;
      return A;
    }
    case BO_Shl: {
      std::optional<int64_t> K = constant(B->getRHS());
      if (!R.isUniform() || !K || *K < 0 || *K > 30)
        return Affine::varying();
      Affine A = L;
      A.Coef *= int64_t(1) << *K;
      return A;
    }
    default:
      // Division, modulo, bit operations: uniform stays uniform.
      if (L.isUniform() && R.isUniform())
        return Affine::uniform();
      return Affine::varying();
    }
  }

  std::optional<int64_t> constant(const Expr *E) {
    Expr::EvalResult R;
    if (!E->isValueDependent() && E->EvaluateAsInt(R, Ctx))
      return R.Val.getInt().getExtValue();
    return std::nullopt;
  }

  const FunctionDecl *F;
  const ASTContext &Ctx;
  const Stmt *Body;
  ParentMap Parents;
  llvm::DenseMap<const VarDecl *, const Stmt *> DeclStmts;
};

} // namespace

IndexClass classifyIndex(const Expr *Index, const FunctionDecl *Function,
                         const ASTContext &Ctx) {
  if (!Function || !Function->getBody())
    return {};
  Classifier C(Function, Ctx);
  Affine A = C.classify(Index);
  IndexClass Result;
  if (A.Varying)
    return Result;
  if (A.SymbolicCoef) {
    Result.K = IndexClass::Strided;
    return Result;
  }
  if (A.Coef == 0) {
    Result.K = IndexClass::Uniform;
    Result.Stride = 0;
  } else if (A.Coef == 1) {
    Result.K = IndexClass::Contiguous;
    Result.Stride = 1;
  } else {
    Result.K = IndexClass::Strided;
    Result.Stride = A.Coef;
  }
  return Result;
}

} // namespace kopt
