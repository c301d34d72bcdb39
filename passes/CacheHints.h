//===- CacheHints.h - Types the cache-hint intrinsics take ------*- C++ -*-===//
//
// `__stcs` and `__ldcs` (streaming-stores, streaming-loads) are declared for
// the same element types (sm_32_intrinsics.h, cuda_fp16.h, cuda_bf16.h).
//
//===----------------------------------------------------------------------===//

#ifndef KOPT_PASSES_CACHEHINTS_H
#define KOPT_PASSES_CACHEHINTS_H

#include "clang/AST/Type.h"

namespace kopt {

/// True if CUDA 12/13 declare `__stcs` and `__ldcs` for elements of T.
bool hasCacheHintOverload(clang::QualType T);

} // namespace kopt

#endif // KOPT_PASSES_CACHEHINTS_H
