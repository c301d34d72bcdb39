//===- ReReadLoops.h - Elements a later loop reads again --------*- C++ -*-===//
//
// The analysis behind register-cache, shared-cache and one-pass-variance:
// sibling block-stride loops (or, on request, loops each thread runs whole,
// or any loops with the same iterations: ReReadShapes) of one compound
// statement where a later loop (B) reads global elements an earlier one
// (A) read, at the same index for the same loop variable, from a pointer
// whose elements hold one value for the kernel (CachedPointers.h). Such
// elements can be kept in registers or shared memory between the loops. The
// legality rules are in passes/RegisterCache.cpp, passes/SharedCache.cpp,
// passes/OnePassVariance.cpp and docs/passes/one-pass-variance.md.
//
//===----------------------------------------------------------------------===//

#ifndef KOPT_ANALYSIS_REREADLOOPS_H
#define KOPT_ANALYSIS_REREADLOOPS_H

#include "kopt/Analysis/KernelInfo.h"
#include "kopt/Analysis/Refusal.h"

#include <optional>
#include <string>
#include <vector>

namespace kopt {

/// A global element read in a loop: the pointer and the index as written.
struct ReReadKey {
  /// The pointer parameter, or the local row pointer fixed to one, that
  /// the element is read through.
  const clang::VarDecl *Base = nullptr;
  std::string Index; ///< without spaces
  bool operator<(const ReReadKey &O) const {
    return std::tie(Base, Index) < std::tie(O.Base, O.Index);
  }
};

/// One element to keep: where A loads it on every iteration.
struct CachedLoad {
  ReReadKey K;
  /// The pointer parameter K.Base is (or is fixed to).
  const clang::ParmVarDecl *Root = nullptr;
  std::string BaseName;
  const clang::ArraySubscriptExpr *Load = nullptr;
  std::string ElementType; ///< unqualified pointee
  bool Const = false;
  unsigned Registers = 1; ///< 32-bit registers per element
};

/// Loop A, the loops B that re-read its elements, and what they re-read (in
/// the order A loads it).
struct ReReadGroup {
  const clang::ForStmt *A = nullptr;
  std::vector<const clang::ForStmt *> Bs;
  std::vector<CachedLoad> Loads;
  const clang::Expr *Bound = nullptr;
  /// The loops run every iteration in each thread (`for (T j = 0; j < n;
  /// ++j)`, a thread a group); else they are block-stride loops.
  bool Serial = false;
};

struct ReReadLoops {
  std::vector<ReReadGroup> Groups;
  /// Re-reads found and why each cannot be cached, in source order.
  std::vector<Refusal> Refusals;
  /// Some later loop reads an element an earlier loop read.
  bool SawReRead = false;
};

/// Which loops form groups.
enum class ReReadShapes {
  /// Block-stride loops, from threadIdx.x by blockDim.x (the caches'
  /// rewrites index their cached loops so).
  BlockStride,
  /// Also loops each thread runs from 0 in steps of 1.
  BlockStrideOrSerial,
  /// Any counted loops with the same start, step and bound, each one value
  /// for the whole kernel (`for (int i = lane; i < n; i += 32)`), pragmas
  /// allowed: for a caller that keeps the loops' headers as they are.
  SameIterations,
};

/// The groups of K's body (every compound statement of it).
ReReadLoops findReReadLoops(const KernelInfo &K, clang::ASTContext &AC,
                            ReReadShapes Shapes = ReReadShapes::BlockStride);

/// The largest value Loop's bound can have when Loop runs: a constant
/// bound, or a guard `if (n > C) return;` (or `n >= C`, `C < n`, `C <= n`,
/// also as one operand of `||`) among the kernel's top-level statements
/// before Loop.
std::optional<int64_t> staticLoopBound(const clang::ForStmt *Loop,
                                       const KernelInfo &K,
                                       clang::ASTContext &AC);

} // namespace kopt

#endif // KOPT_ANALYSIS_REREADLOOPS_H
