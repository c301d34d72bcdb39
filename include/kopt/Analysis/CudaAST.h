//===- CudaAST.h - Recognizers for CUDA idioms in Clang's AST ---*- C++ -*-===//
//
// Small, side-effect-free queries shared by the analysis and the passes:
// which expression is threadIdx.x, which loop is grid-stride, what constant a
// launch dimension has, and the source text of a node in the main file.
//
//===----------------------------------------------------------------------===//

#ifndef KOPT_ANALYSIS_CUDAAST_H
#define KOPT_ANALYSIS_CUDAAST_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/Stmt.h"

#include "kopt/Analysis/Mutation.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kopt {

/// T as a template's text writes it: in an instantiation, a type that
/// stands for a template parameter is printed as the parameter (`T`,
/// `const T`, `T *`); any other type as Clang prints it.
std::string typeAsWritten(clang::QualType T, const clang::PrintingPolicy &PP);

/// CUDA's built-in index variables.
enum class BuiltinVar { ThreadIdx, BlockIdx, BlockDim, GridDim };

struct BuiltinRef {
  BuiltinVar Var;
  unsigned Dim; ///< 0 = x, 1 = y, 2 = z
};

/// Matches `threadIdx.x` and friends (through casts and parentheses).
std::optional<BuiltinRef> matchBuiltin(const clang::Expr *E);
bool isBuiltin(const clang::Expr *E, BuiltinVar Var, unsigned Dim = 0);

/// Whether calls of FD are treated as functions of their arguments alone:
/// constexpr functions, `__attribute__((const))` ones, CUDA's integer
/// min/max helpers (min, max, umin, umax, llmin, llmax, declared in a
/// system header), and helpers of
/// arithmetic values whose body is one `return` of their parameters
/// without side effects (also in a header, whose bodies the preamble
/// skipped: SkippedBodies.h).
bool isPureFunction(const clang::FunctionDecl *FD);

/// Whether FD takes and returns arithmetic or enum values only (no pointer
/// or reference through which a call could read or write memory).
bool takesAndReturnsValues(const clang::FunctionDecl *FD);

/// Like Expr::HasSideEffects, but reads of threadIdx/blockIdx/blockDim/
/// gridDim (calls to their getters in Clang's AST) and calls of pure
/// functions (isPureFunction) on arguments without side effects have none.
bool hasSideEffects(const clang::Expr *E, const clang::ASTContext &Ctx);

/// Strips parentheses, implicit casts and explicit integral casts.
const clang::Expr *stripCasts(const clang::Expr *E);

/// The variable E names, if E is a plain reference to one.
const clang::VarDecl *referencedVar(const clang::Expr *E);

/// The initializer of E if E names a local variable that is initialized and
/// never modified in Scope (followed through chains of such variables);
/// otherwise E itself.
const clang::Expr *followLocalInit(const clang::Expr *E,
                                   const clang::Stmt *Scope);

/// `blockIdx.x * blockDim.x + threadIdx.x` in any operand order. Follows a
/// local variable initialized to it and never modified in Scope.
bool isGlobalThreadIndex(const clang::Expr *E, const clang::Stmt *Scope);

/// `blockDim.x * gridDim.x` in either order, or a local variable initialized
/// to it and never modified in Scope.
bool isGridStride(const clang::Expr *E, const clang::Stmt *Scope);

/// How an index or a stride writes the block's x extent: blockDim.x
/// (Constant empty), or a compile-time constant (a macro, a constexpr, a
/// template argument), which is blockDim.x only where every launch runs
/// blocks of that many threads in x (KernelInfo::LaunchedBlockX).
struct BlockTerm {
  std::optional<int64_t> Constant;
};

/// isGlobalThreadIndex, also with the block size written as a constant
/// (`blockIdx.x * BLOCK + threadIdx.x`).
std::optional<BlockTerm> matchGlobalThreadIndex(const clang::Expr *E,
                                                const clang::Stmt *Scope,
                                                const clang::ASTContext &Ctx);

/// isGridStride, also with the block size written as a constant (`BLOCK *
/// gridDim.x`).
std::optional<BlockTerm> matchGridStride(const clang::Expr *E,
                                         const clang::Stmt *Scope,
                                         const clang::ASTContext &Ctx);

/// The canonical shape of a counted for-loop: `for (T i = Init; i < Bound;
/// i += Step)` (also `++i`, `i++`, `i = i + Step`, `<=`, `Bound > i`).
struct CountedLoop {
  const clang::VarDecl *Var = nullptr;
  const clang::Expr *Init = nullptr;
  const clang::Expr *Bound = nullptr;
  const clang::Expr *Step = nullptr; ///< nullptr means 1
  bool Inclusive = false;            ///< `<=` instead of `<`
};
std::optional<CountedLoop> matchCountedLoop(const clang::ForStmt *For);

/// Integer value of E: a constant expression, or a local variable that is
/// initialized to one and never modified in Scope (`int block = 256;`).
std::optional<int64_t> evaluateInt(const clang::Expr *E,
                                   const clang::ASTContext &Ctx,
                                   const clang::Stmt *Scope);

/// The statement S is part of: the nearest ancestor directly inside a
/// compound statement (or the declaration statement of an initializer).
const clang::Stmt *enclosingStatement(const clang::Stmt *S,
                                      const clang::ASTContext &Ctx);

/// Why evaluateInt(E, Ctx, Scope) found no value, following E through the
/// local variables it names ("'threads' may be changed at 5:3 ('alias =
/// 512')"); empty when there is nothing more to say than E itself.
std::string whyNotConstant(const clang::Expr *E, const clang::ASTContext &Ctx,
                           const clang::Stmt *Scope);

/// The constant x/y/z of a launch dimension (an integer or a dim3).
struct DimValue {
  std::optional<int64_t> X, Y, Z;
  std::optional<int64_t> total() const {
    if (X && Y && Z)
      return *X * *Y * *Z;
    return std::nullopt;
  }
};
DimValue evaluateDim(const clang::Expr *E, const clang::ASTContext &Ctx,
                     const clang::Stmt *Scope);

/// The expression the user wrote for a launch-configuration argument, with
/// the implicit int -> dim3 conversion removed. nullptr for an omitted
/// (defaulted) argument.
const clang::Expr *userWrittenLaunchArg(const clang::Expr *E);

/// True if the record type is CUDA's dim3.
bool isDim3(clang::QualType T);

/// Source text of a node; empty if it does not lie in one file range.
std::string sourceText(clang::SourceRange R, const clang::ASTContext &Ctx);

/// S's source text; where S is written in a macro (no text of its own), S
/// printed from the AST (valid code where the macro's names are in scope).
std::string sourceOrPrinted(const clang::Stmt *S, const clang::ASTContext &Ctx);

/// 1-based line and column of L's expansion in the main file.
struct LineCol {
  unsigned Line = 0, Col = 0;
};
LineCol lineCol(clang::SourceLocation L, const clang::ASTContext &Ctx);
/// "line:col", as remarks print a second location.
std::string str(const LineCol &L);

/// Text with each run of whitespace (newlines too) folded into one space.
std::string oneLine(llvm::StringRef Text);

/// Text with whitespace removed, to compare expressions as written
/// (`row*n + j` and `row * n+j`).
std::string withoutSpaces(llvm::StringRef Text);

/// True if the whole range is written in the main file, outside macros.
bool isRewritable(clang::SourceRange R, const clang::ASTContext &Ctx);

/// What S writes, if S is an assignment, a compound assignment or an
/// increment/decrement, built-in or overloaded (`__half` has operator=).
/// Plain is set for `=` (the old value is not read).
struct WriteOf {
  const clang::Expr *Target = nullptr;
  bool Plain = false;
};
std::optional<WriteOf> writeOf(const clang::Stmt *S);

/// The local variable a write to Target lands in, through subscripts and
/// members of a local array or struct (`v[2].x`); null when the write is to
/// memory (through a pointer, also one held in a local array of pointers)
/// or to a reference.
const clang::VarDecl *localWriteTarget(const clang::Expr *Target);

/// The dereference a write to Target lands in (`B[i]`, `*p`, `p->m`),
/// through members and array members of the element; null if none.
const clang::Expr *writtenDereference(const clang::Expr *Target);

/// Every reference to D in S, in source order.
std::vector<const clang::DeclRefExpr *> referencesTo(const clang::Stmt *S,
                                                     const clang::ValueDecl *D,
                                                     clang::ASTContext &Ctx);

/// The variables declared in S (its own declarations and its
/// sub-statements').
llvm::SmallPtrSet<const clang::VarDecl *, 8>
varsDeclaredIn(const clang::Stmt *S);

/// How many times S refers to D.
size_t countReferences(const clang::Stmt *S, const clang::ValueDecl *D);

/// Calls to __syncthreads and its variants.
bool isBarrierCall(const clang::Stmt *S);

/// Calls Fn on S and each of its sub-statements, in source order. A CUDA
/// builtin (`threadIdx.x`, a pseudo-object expression) is one node whose
/// inside is not visited; other pseudo-objects are visited through their
/// syntactic form only (clang's children() would also give the semantic
/// form, so the same code would be seen twice).
void forEachSubStmt(const clang::Stmt *S,
                    llvm::function_ref<void(const clang::Stmt *)> Fn);

} // namespace kopt

#endif // KOPT_ANALYSIS_CUDAAST_H
