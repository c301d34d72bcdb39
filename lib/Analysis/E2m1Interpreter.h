//===- E2m1Interpreter.h - Run a float->e2m1 helper symbolically -*- C++ -*-=//
//
// Private to the analysis library: the interpreter E2m1Proof.cpp runs a
// helper with, on one float of each cell of a partition of the floats. Its
// member functions are split between E2m1Values.cpp (values, conversions,
// arithmetic, calls) and E2m1Interpreter.cpp (expressions and statements).
//
//===----------------------------------------------------------------------===//

#ifndef KOPT_LIB_ANALYSIS_E2M1INTERPRETER_H
#define KOPT_LIB_ANALYSIS_E2M1INTERPRETER_H

#include "kopt/Analysis/CudaAST.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "clang/AST/Stmt.h"
#include "llvm/ADT/Twine.h"

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace kopt {
namespace e2m1 {

// A private header of three files that all work in Clang's terms.
using namespace clang;
using llvm::StringRef;
using llvm::Twine;

/// A value of the helper's computation. Int and Float are ordinary values.
/// X is the argument, AbsX its magnitude and Bits its bit pattern: each
/// carries the concrete value of the float being run, but may only be used
/// in ways that are constant on a cell of the partition (comparisons with
/// constants, which are recorded, and the sign bit).
struct Value {
  enum Kind { Unset, Int, Float, X, AbsX, Bits } K = Unset;
  int64_t I = 0;  ///< Int
  double F = 0;   ///< Float, X, AbsX
  uint32_t B = 0; ///< Bits

  static Value makeInt(int64_t I) {
    Value V;
    V.K = Int;
    V.I = I;
    return V;
  }
  static Value makeFloat(Kind K, double F) {
    Value V;
    V.K = K;
    V.F = F;
    return V;
  }
  bool tainted() const { return K == X || K == AbsX || K == Bits; }
};
class Interpreter {
public:
  Interpreter(const FunctionDecl *FD, ASTContext &AC)
      : FD(FD), Param(FD->getParamDecl(0)), AC(AC) {}

  /// Runs the helper on XValue, adding the constants its argument is
  /// compared with to Thresholds. std::nullopt (with why()) when the helper
  /// does something the proof does not cover.
  std::optional<int64_t> run(float XValue, std::set<double> &Thresholds);

  const std::string &why() const { return Why; }

private:
  enum class Flow { Normal, Return, Break, Continue, Error };

  std::string text(const Stmt *S) const;

  std::nullopt_t fail(const Stmt *S, const Twine &Msg);

  std::nullopt_t unsupported(const Stmt *S);

  std::nullopt_t usesArgument(const Stmt *S);

  /// V truncated to the width and signedness of the integer type T.
  int64_t truncate(QualType T, int64_t V) const;

  static double roundTo(QualType T, double V);

  std::optional<Value> convert(const Value &V, QualType T, const Stmt *At);

  bool step(const Stmt *S);

  static bool isLibraryFunction(const FunctionDecl *Callee,
                                const SourceManager &SM);

  /// The local variable (or parameter) E names, if any.
  static const VarDecl *namedVar(const Expr *E);

  std::optional<Value> evalCall(const CallExpr *C);

  uint32_t bitsOfX() const;

  std::optional<Value> compare(const BinaryOperator *E, const Value &L,
                               const Value &R);

  std::optional<Value> arithmetic(const BinaryOperator *E,
                                  BinaryOperatorKind Op, const Value &L,
                                  const Value &R, QualType T);

  /// The value of a global constant (a `const` or `constexpr` variable).
  std::optional<Value> fromAPValue(const APValue &V, QualType T,
                                   const Stmt *At);

  static bool isConstGlobal(const VarDecl *VD);

  std::optional<Value> evalSubscript(const ArraySubscriptExpr *E);

  std::optional<Value> eval(const Expr *E);

  std::optional<Value> evalUnary(const UnaryOperator *U);

  std::optional<Value> assign(const Expr *LHS, const Value &V, const Stmt *At);

  std::optional<Value> evalBinary(const BinaryOperator *B);

  Flow declare(const VarDecl *VD);

  /// Evaluates a condition to true or false.
  std::optional<bool> condition(const Expr *E);

  Flow loop(const Expr *Cond, const Stmt *Body, const Expr *Inc,
            bool TestFirst);

  Flow exec(const Stmt *S);

  const FunctionDecl *FD;
  const ParmVarDecl *Param;
  ASTContext &AC;
  float XValue = 0;
  std::set<double> *Thresholds = nullptr;
  std::map<const VarDecl *, Value> Vars;
  std::map<const VarDecl *, std::vector<Value>> Arrays;
  std::optional<Value> Returned;
  unsigned Steps = 0;
  std::string Why;
};

} // namespace e2m1
} // namespace kopt

#endif // KOPT_LIB_ANALYSIS_E2M1INTERPRETER_H
