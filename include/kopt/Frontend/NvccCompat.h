//===- NvccCompat.h - Declarations nvcc has and clang's CUDA lacks -*- C++
//-*-===//
//
// kopt parses CUDA with clang, but users (and kopt's own passes) write for
// nvcc. nvcc's sm_32_intrinsics.h declares cache-hinted stores that clang's
// CUDA wrapper headers do not (clang has only __stwt), so a kernel using
// __stcs would not parse. The frontend force-includes a small in-memory
// header declaring them; it is only ever parsed, never compiled to code.
//
//===----------------------------------------------------------------------===//

#ifndef KOPT_FRONTEND_NVCCCOMPAT_H
#define KOPT_FRONTEND_NVCCCOMPAT_H

#include "llvm/ADT/StringRef.h"

namespace kopt {

/// The virtual path the header is mapped at (it does not exist on disk).
llvm::StringRef nvccCompatHeaderPath();

/// The header's text.
llvm::StringRef nvccCompatHeader();

} // namespace kopt

#endif // KOPT_FRONTEND_NVCCCOMPAT_H
