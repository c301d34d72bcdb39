//===- LocalPointers.h - Row pointers fixed to a parameter ------*- C++ -*-===//
//
// Real kernels rarely index their parameters directly inside a row loop:
// they name the row first (`const float *row = x + (long long)r * n;` or
// `float *out = &y[r * n];`) and write `row[i]`. Such a local is the
// parameter plus an integer offset fixed at its declaration; when it is
// never changed afterwards, an access `row[i]` is the parameter's element
// `offset + i`, and the analyses that reason about parameters' elements can
// reason about it (vectorize-loads' element-wise accesses).
//
//===----------------------------------------------------------------------===//

#ifndef KOPT_ANALYSIS_LOCALPOINTERS_H
#define KOPT_ANALYSIS_LOCALPOINTERS_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"

#include <optional>
#include <vector>

namespace kopt {

/// A local pointer variable whose value is a pointer parameter plus an
/// offset, fixed at its declaration.
struct LocalPointer {
  const clang::VarDecl *Var = nullptr;
  const clang::ParmVarDecl *Param = nullptr;
  /// The integer offsets in elements whose sum V adds to Param (none for
  /// `T *p = param;`).
  std::vector<const clang::Expr *> Offsets;
};

/// V as a LocalPointer: a local variable of Kernel's body (not a
/// parameter, not a reference) declared `T *V = P`, `P + off`, `off + P`,
/// `P + off1 + off2` or `&P[off]`, with P a pointer parameter of the same
/// element type (const may be added) or such a local itself, each off an
/// integer expression without side effects, and V never changed in the
/// body (ExprMutationAnalyzer: no assignment, no increment, no non-const
/// reference or address taken). The offsets' values are the ones they had
/// at the declaration; whether they are the same for every thread is the
/// caller's question.
std::optional<LocalPointer>
matchLocalPointer(const clang::VarDecl *V, const clang::FunctionDecl *Kernel);

/// V as a LocalPointer where Use reads it: matchLocalPointer's, or, for a
/// local assigned again (`x = out + row * C;`, as llm.c's softmax kernels
/// reuse their row pointer), the value it holds there when the kernel
/// body's outermost block declares it and assigns it only in whole
/// statements `V = ...;` of that block: the last one before the statement
/// holding Use, which does not change V. That value is again P + offsets
/// of a parameter P.
std::optional<LocalPointer>
matchLocalPointerAt(const clang::VarDecl *V, const clang::Stmt *Use,
                    const clang::FunctionDecl *Kernel);

/// The variable a pointer expression starts from: through casts, pointer
/// arithmetic (`p + i`, `p - i`), `&A[i]` and local pointers initialized
/// once and never changed in Body (`in = x + blockIdx.x * n`): a
/// parameter, an array (shared, local or global), or a pointer variable
/// kopt cannot follow; null for anything else.
const clang::ValueDecl *pointerRoot(const clang::Expr *E,
                                    const clang::Stmt *Body);

/// Whether E, following the local variables it names to their
/// initializers, may differ between blocks: it names blockIdx (or
/// threadIdx: callers ask about values already uniform to a block), a
/// parameter changed in Scope, or a local kopt cannot follow (changed after
/// its declaration, or without one).
/// Values that differ only between blocks are uniform to a block-stride
/// loop but not to a grid-stride one.
bool mayDifferBetweenBlocks(const clang::Expr *E, const clang::Stmt *Scope);

} // namespace kopt

#endif // KOPT_ANALYSIS_LOCALPOINTERS_H
