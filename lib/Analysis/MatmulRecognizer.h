//===- MatmulRecognizer.h - MatmulNest's recognizer (private) --*- C++ -*-===//
//
// The recognizer behind findMatmulNest, shared by MatmulNest.cpp (the
// accumulation, the loops, the store and its guard, the structure) and
// MatmulFactors.cpp (the factors of the product and their masks).
//
//===----------------------------------------------------------------------===//
#ifndef KOPT_ANALYSIS_MATMULRECOGNIZER_H
#define KOPT_ANALYSIS_MATMULRECOGNIZER_H

#include "kopt/Analysis/MatmulNest.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace kopt::matmul {

using namespace clang;
using Step = Decision<bool>;

Refusal refuse(const llvm::Twine &Why, const Stmt *At, const ASTContext &Ctx);
bool isZeroConstant(const Expr *E, const ASTContext &Ctx);
/// The statements of S: its children if it is a compound, else S alone.
llvm::SmallVector<const Stmt *, 8> statementsOf(const Stmt *S);
/// An integer parameter read directly, never modified in \p Scope.
const ParmVarDecl *paramRef(const Expr *E, const Stmt *Scope);
/// A pointer parameter subscripted directly, never reassigned.
const ParmVarDecl *pointerBase(const ArraySubscriptExpr *A, const Stmt *Scope);

/// `acc += x * y` or `acc = acc + x * y` (x * y on either side).
struct Accumulation {
  const Stmt *S = nullptr;
  const VarDecl *Acc = nullptr;
  const BinaryOperator *Product = nullptr;
};

class Recognizer {
public:
  Recognizer(const FunctionDecl *Kernel, ASTContext &Ctx)
      : Kernel(Kernel), Body(Kernel->getBody()), Ctx(Ctx) {}

  Decision<MatmulNest> run();

private:
  std::optional<Refusal> findAccumulation();
  std::optional<Refusal> findLoops();
  std::optional<Refusal> findStoreAndGuard();
  std::optional<Refusal> checkStructure();
  std::optional<Refusal> checkGuarded(
      ArrayRef<const Stmt *> Top, const Stmt *Nest,
      llvm::function_ref<std::optional<Refusal>(const Stmt *)> CheckDecls);
  std::optional<Refusal> checkCarriedOver();
  std::optional<Refusal> checkAxis(MatmulAxis &Axis, const char *What);
  std::optional<Refusal> checkAccUses();
  /// Global index and masks of one factor of the product.
  struct Factor {
    const ParmVarDecl *Base = nullptr;
    Polynomial Index;
    bool MaskedByK = false;
    QualType Type;
  };
  Decision<Factor> resolveFactor(const Expr *E);
  Decision<Factor> resolveShared(const ArraySubscriptExpr *Read,
                                 const VarDecl *Array);
  std::optional<Refusal> checkMask(const Expr *Cond, PolyBuilder &PB,
                                   Factor &F);
  std::optional<Refusal> classify(const Factor &F, const Expr *At);
  std::optional<Polynomial> reduceIndex() const;
  bool isSizeSymbol(const PolySymbol &S) const;

  const FunctionDecl *Kernel;
  const Stmt *Body;
  ASTContext &Ctx;
  MatmulNest N;
  Accumulation Acc;
  const ForStmt *Inner = nullptr, *Outer = nullptr;
  CountedLoop InnerLoop, OuterLoop;
  bool HaveA = false, HaveB = false;
};

} // namespace kopt::matmul

#endif // KOPT_ANALYSIS_MATMULRECOGNIZER_H
