//===- IndexClassifier.h - How an index varies across threads ---*- C++ -*-===//
//
// Classifies an index expression by how it changes from one thread to the
// next along threadIdx.x, which is what decides coalescing and whether
// neighbouring threads' accesses can be merged into vectors:
//
//   uniform     the same for every thread of a block (row * n + k)
//   contiguous  thread t+1 accesses the element after thread t's
//   strided     thread t+1 accesses Stride elements further (or a run-time
//               stride, e.g. threadIdx.x * n)
//   unknown     anything else (threadIdx.y, data-dependent indices, ...)
//
//===----------------------------------------------------------------------===//

#ifndef KOPT_ANALYSIS_INDEXCLASSIFIER_H
#define KOPT_ANALYSIS_INDEXCLASSIFIER_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>

namespace kopt {

struct IndexClass {
  enum Kind { Uniform, Contiguous, Strided, Unknown };
  Kind K = Unknown;
  /// Elements between neighbouring threads; set for Strided with a constant
  /// stride (and 1 for Contiguous, 0 for Uniform).
  std::optional<int64_t> Stride;

  llvm::StringRef kindName() const;
  bool operator==(const IndexClass &O) const {
    return K == O.K && Stride == O.Stride;
  }
};

/// Classifies an index used inside Function's body. Local variables are
/// followed to their initializers when they are never modified, and counted
/// loop variables advanced by a thread-uniform step keep their initial
/// class (every thread advances by the same amount).
IndexClass classifyIndex(const clang::Expr *Index,
                         const clang::FunctionDecl *Function,
                         const clang::ASTContext &Ctx);

} // namespace kopt

#endif // KOPT_ANALYSIS_INDEXCLASSIFIER_H
