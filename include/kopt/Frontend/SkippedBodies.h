//===- SkippedBodies.h - Bodies the preamble did not keep -------*- C++ -*-===//
//
// kopt parses the headers a file includes in a preamble without function
// bodies (Clang's SkipFunctionBodiesScope::Preamble: CUDA's headers are
// large, and some headers' bodies do not compile in one of the two sides).
// A helper in a header (llm.c's `ceil_div` in dev/cuda/common.h) is then a
// declaration only, and an analysis that would read its `return` cannot.
//
// definitionOf gives such a helper's definition anyway: its text, from the
// header, parsed alone as C++ in a small translation unit of its own (the
// CUDA qualifiers `__host__`, `__device__`, `__forceinline__` defined
// away), a template specialization instantiated there with the call's
// template arguments. Only self-contained helpers come back: one that uses
// a name its text does not declare (another helper, a macro, a type of the
// header) fails to parse alone and is not given; nor is a function of a
// system header (CUDA's, the C library's). The small ASTs are kept for the
// life of the process, one per distinct text.
//
//===----------------------------------------------------------------------===//

#ifndef KOPT_FRONTEND_SKIPPEDBODIES_H
#define KOPT_FRONTEND_SKIPPEDBODIES_H

#include "clang/AST/Decl.h"

namespace kopt {

/// The definition of \p Callee: its own when the AST holds its body; when
/// the preamble skipped the body, the definition parsed again from its
/// text (in another ASTContext: use the result's getASTContext()); null
/// when it has no definition or its text does not parse alone.
const clang::FunctionDecl *definitionOf(const clang::FunctionDecl *Callee);

} // namespace kopt

#endif // KOPT_FRONTEND_SKIPPEDBODIES_H
