//===- BlockSizeLegality.h - Code that runs with any block size -*- C++ -*-===//
//
// A kernel written in terms of blockDim.x computes the same result with any
// block size its launch covers the data with, unless its code ties itself
// to the block size B it is launched with. block-size,
// thread-utilization{fix=true} and thread-per-block change the block size
// only where none of this is seen:
//
//   Kernel (with the device functions of the file it calls): no threadIdx.y/z
//   or blockDim.y/z; no integer constant equal to B (`partial[threadIdx.x +
//   128]` hides the block size in arithmetic: 128 is caught when B is 128,
//   and comparisons of threadIdx.x with a constant above a warp are refused;
//   nor a tree that starts from a constant, `for (s = 64; s > 0; s >>= 1)`
//   around a barrier, which combines as many slots whatever the block size);
//   a __shared__ array of exactly B elements (one slot a thread) follows the
//   block size (the caller resizes it), any other shared array indexed by
//   threadIdx.x or blockDim.x is refused, and dynamic shared memory is
//   refused.
//
//   Rounding: a floating-point accumulation in a loop whose header mentions
//   blockDim.x (a block-stride partial sum, a tree over blockDim.x / 2) adds
//   the elements in an order that depends on the block size; it is refused
//   unless the caller allows reassociation (results may differ in rounding).
//
//   blockIdx.x is read either on its own (a block per row: GridUse::PerBlock)
//   or combined with blockDim.x in an index compared with a bound
//   (GridUse::PerThread), never both.
//
//===----------------------------------------------------------------------===//

#ifndef KOPT_PASSES_BLOCKSIZELEGALITY_H
#define KOPT_PASSES_BLOCKSIZELEGALITY_H

#include "kopt/Analysis/CudaAST.h"
#include "kopt/Analysis/KernelInfo.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"

#include <string>
#include <variant>
#include <vector>

namespace kopt {

/// How a kernel uses blockIdx.x.
enum class GridUse { None, PerBlock, PerThread };

/// A __shared__ array of exactly B elements (one slot a thread), the
/// expression that sizes it and its brackets.
struct PerThreadArray {
  const clang::VarDecl *Var = nullptr;
  const clang::Expr *Size = nullptr;
  clang::SourceRange Brackets;
};

struct BlockSizeFacts {
  GridUse Grid = GridUse::None;
  std::vector<PerThreadArray> PerThreadArrays;
  /// The kernel and the device functions of the file it calls.
  std::vector<const clang::FunctionDecl *> Code;
};

/// How K's code depends on its block size B, or why another size could
/// change what it computes. Reassociate allows floating-point sums whose
/// order depends on the block size. LiteralSizes requires the per-thread
/// arrays' sizes written as literals (the caller rewrites the literal);
/// without it a size may be any expression (`[N_THREADS]`).
std::variant<BlockSizeFacts, std::string>
blockSizeFacts(clang::ASTContext &DC, const KernelInfo &K, int64_t B,
               bool Reassociate, bool LiteralSizes = true);

/// "threadIdx.x", "blockDim.y", ...
std::string builtinName(BuiltinRef R);

} // namespace kopt

#endif // KOPT_PASSES_BLOCKSIZELEGALITY_H
