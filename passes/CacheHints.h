//===- CacheHints.h - Types the cache-hint intrinsics take ------*- C++ -*-===//
//
// What streaming-stores and streaming-loads share: the element types `__stcs`
// and `__ldcs` are declared for (sm_32_intrinsics.h, cuda_fp16.h,
// cuda_bf16.h), and where a use of a pointer parameter leads.
//
//===----------------------------------------------------------------------===//

#ifndef KOPT_PASSES_CACHEHINTS_H
#define KOPT_PASSES_CACHEHINTS_H

#include "clang/AST/Expr.h"
#include "clang/AST/ParentMap.h"
#include "clang/AST/Type.h"

namespace kopt {

/// True if CUDA 12/13 declare `__stcs` and `__ldcs` for elements of T.
bool hasCacheHintOverload(clang::QualType T);

/// Where one reference to a pointer parameter leads, through casts,
/// parentheses and offsets (`reinterpret_cast<const float4 *>(x + row *
/// n)[i]`): an element read or written through it (`p[i]`, `*p`), the
/// address as a number (an alignment check: no memory access), or anything
/// else (the pointer escapes: passed on, stored, offset into another one).
struct PointerUse {
  enum Kind { Access, Number, Escape };
  Kind K = Escape;
  const clang::Expr *Element = nullptr; ///< p[i] or *p, for Access
  const clang::Expr *Pointer = nullptr; ///< what is subscripted, for Access
};
PointerUse followPointerUse(const clang::DeclRefExpr *Ref,
                            clang::ParentMap &Parents);

} // namespace kopt

#endif // KOPT_PASSES_CACHEHINTS_H
