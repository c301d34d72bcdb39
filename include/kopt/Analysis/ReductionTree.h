//===- ReductionTree.h - Shared-memory tree reductions ----------*- C++ -*-===//
//
// The analysis behind warp-reduce: the first block reduction most kernels
// are written with, a tree in shared memory,
//
//   A[t] = v;  __syncthreads();
//   for (int s = blockDim.x / 2; s > 0; s >>= 1) {
//     if (t < s) A[t] = op(A[t], A[t + s]);
//     __syncthreads();
//   }
//
// its operation and type, whether all threads reach it, and what else
// touches the array. The legality rules are in passes/WarpReduce.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef KOPT_ANALYSIS_REDUCTIONTREE_H
#define KOPT_ANALYSIS_REDUCTIONTREE_H

#include "kopt/Analysis/KernelInfo.h"
#include "kopt/Analysis/Refusal.h"

#include <optional>
#include <set>
#include <string>
#include <variant>
#include <vector>

namespace kopt {

/// A tree whose shape matched: the store, the barrier and the loop lie
/// consecutively in Block.
struct ReductionTree {
  const clang::CompoundStmt *Block = nullptr;
  const clang::BinaryOperator *Store = nullptr; ///< A[t] = v
  const clang::Stmt *Sync = nullptr;
  const clang::ForStmt *Loop = nullptr;
  const clang::ValueDecl *Array = nullptr;
  const clang::Expr *Value = nullptr;          ///< v
  const clang::Expr *Combine = nullptr;        ///< the update in the loop
  const clang::FunctionDecl *Callee = nullptr; ///< fmaxf & co; null for +
  std::string CalleeText;
  bool Add = false;
  clang::QualType Element;
  LineCol Loc;
  /// The loop starts at `B / 2` with B this variable (a parameter or a
  /// local, never changed) rather than blockDim.x: the tree is the same
  /// only where B == blockDim.x, which the rewrite checks at run time
  /// (llm.c's `for (int stride = block_size / 2; ...)`).
  const clang::VarDecl *BlockSize = nullptr;
  /// The loop starts at `C / 2` with C an integer constant expression (a
  /// macro, a constexpr: `BLOCK / 2`), or at a constant S written whole
  /// (`for (int s = 128; ...)`, C = 2 * S): C's value, C as the source
  /// writes it (`BLOCK`, `2 * 128`) and the start as it reads in remarks
  /// (`BLOCK / 2`, `128`). The tree is the same only where C == blockDim.x,
  /// which the rewrite checks at run time unless every launch is known to
  /// run C threads.
  std::optional<int64_t> ConstSize;
  std::string ConstSizeText;
  std::string ConstStartText;
  /// The loop body is `{ __syncthreads(); if (t < s) ...; }`, the barrier
  /// before the step: the same rounds, without the barrier after the last
  /// (which the rewrite adds, as it adds one after the canonical form).
  bool SyncFirst = false;
  /// The loop stops above K (`s > 32`) and the statement after it does the
  /// rounds K, K/2, ..., 1 in the threads t < K, warp-synchronously
  /// (NVIDIA's reduction #5: `if (t < 32) warpReduce(A, t);`, a helper or
  /// inline over a volatile pointer, with or without __syncwarp between
  /// rounds): 0 when the loop goes down to 1.
  int64_t TailRounds = 0;
  /// The tree pairs neighbours first, NVIDIA's reductions #1 and #2:
  /// `for (s = 1; s < blockDim.x; s *= 2) { if (t % (2 * s) == 0) A[t] =
  /// op(A[t], A[t + s]); __syncthreads(); }`, or with `i = 2 * s * t; if
  /// (i < blockDim.x) A[i] = op(A[i], A[i + s]);`. A[0] ends with the
  /// values combined in adjacent pairs, then pairs of pairs, ...: the
  /// order of __shfl_down_sync with offsets 1, 2, ..., 16 in a warp and
  /// then over the warps, so the rewrite is exact in any type.
  bool Interleaved = false;
  /// That statement; the tree then ends there rather than at Loop.
  const clang::IfStmt *Tail = nullptr;
  LineCol TailLoc;
  /// The last statement the tree spans: Tail, else Loop.
  const clang::Stmt *end() const {
    return Tail ? static_cast<const clang::Stmt *>(Tail) : Loop;
  }
};

// Pieces of the tree's shape (TreeShape.cpp), shared with
// SelectionReduction. Scope is the function body that locals like `t =
// threadIdx.x` are looked up in.

/// An integer expression whose value is V (after casts).
bool isIntLiteral(const clang::Expr *E, int64_t V,
                  const clang::ASTContext &Ctx);
/// threadIdx.x, directly or through a local initialized with it.
bool isThreadIdxX(const clang::Expr *E, const clang::Stmt *Scope);
/// A call of __syncthreads().
bool isSyncthreads(const clang::Stmt *S);
/// `A[...]` with A a plain reference to a variable or parameter: A, or null.
const clang::ValueDecl *subscriptBase(const clang::Expr *E);
/// `A[t]` with t threadIdx.x.
bool isOwnSlot(const clang::Expr *E, const clang::ValueDecl *A,
               const clang::Stmt *Scope);
/// `A[t + s]` or `A[s + t]`.
bool isPartnerSlot(const clang::Expr *E, const clang::ValueDecl *A,
                   const clang::VarDecl *Step, const clang::Stmt *Scope);
/// The head `for (T s = blockDim.x / 2; s > 0; s >>= 1)`: its variable.
/// With SizeVar, the start may also be `B / 2` with B an integer parameter
/// or local never changed in Scope: *SizeVar is then B, or null when B is
/// a local initialized with blockDim.x. With SizeConst, the start may be
/// `C / 2` with C an integer constant expression that names no local:
/// *SizeConst is then C; or, with StartIsConst too, the start may be such
/// a constant itself (`s = 128`): *SizeConst is then the start and
/// *StartIsConst true. With StopAbove, the loop may also stop above a
/// power of two K <= 32 (`s > 32`, the loop of a tree whose last rounds
/// are a warp-synchronous tail): *StopAbove is then K, else 0.
const clang::VarDecl *matchTreeHead(const clang::ForStmt *For,
                                    const clang::ASTContext &Ctx,
                                    const clang::VarDecl **SizeVar = nullptr,
                                    const clang::Stmt *Scope = nullptr,
                                    const clang::Expr **SizeConst = nullptr,
                                    bool *StartIsConst = nullptr,
                                    int64_t *StopAbove = nullptr);
/// `2 * s`, `s * 2`, `s << 1` or `s + s`.
bool isTwice(const clang::Expr *E, const clang::VarDecl *S,
             const clang::ASTContext &Ctx);
/// The head of an interleaved tree, `for (T s = 1; s < N; s *= 2)` (also
/// `s <<= 1`, `s += s`, `s = 2 * s`), with N blockDim.x (or a local in
/// Scope initialized with it) or an integer constant expression that names
/// no local (*SizeConst is then N, else null): its variable, or null.
const clang::VarDecl *matchDoublingHead(const clang::ForStmt *For,
                                        const clang::ASTContext &Ctx,
                                        const clang::Stmt *Scope,
                                        const clang::Expr **SizeConst);
/// The statement \p After a tree loop that stops above \p K: the rounds
/// K, ..., 1 in the threads t < K, warp-synchronously (WarpTail.cpp), or a
/// Refusal that says what it should be.
Decision<const clang::IfStmt *> matchWarpTail(const clang::Stmt *After,
                                              const ReductionTree &T, int64_t K,
                                              const clang::Stmt *Body,
                                              clang::ASTContext &AC);
/// A loop that halves its variable and contains a barrier: what a tree
/// looks like, whether or not it has a shape a pass handles.
bool looksLikeTree(const clang::ForStmt *For, clang::ASTContext &AC);
/// Types __shfl_xor_sync moves as one value (float, double, 32/64-bit
/// integers).
bool isShuffleType(clang::QualType T);
/// S without enclosing one-statement compound statements (`{ X; }` is X).
const clang::Stmt *single(const clang::Stmt *S);

/// The trees of F whose shape matched, and refusals for the loops that
/// look like trees but are not of the shape.
void findReductionTrees(const clang::FunctionDecl *F, clang::ASTContext &AC,
                        std::vector<ReductionTree> &Trees,
                        std::vector<Refusal> &Shapeless);

/// What does not depend on the tree's context: type, names, macros. (Which
/// rewrite a floating-point sum may take is the pass's choice.)
std::optional<Refusal> checkTreeOperation(const ReductionTree &T,
                                          clang::ASTContext &AC);

/// Whether the statement holding E lies in uniform control flow of F: only
/// compound statements enclose it, nothing in its own expression evaluates
/// it conditionally, no return precedes it and F has no goto. What names E
/// in the refusal ("the tree", "the call").
/// With UniformBranches, an if whose condition every thread of the block
/// shares (isBlockUniform), and a return under such ifs, do not count.
std::optional<Refusal> checkUniformControl(const clang::FunctionDecl *F,
                                           const clang::Stmt *E,
                                           const char *What,
                                           clang::ASTContext &AC,
                                           bool UniformBranches = false);

/// Why the uses of A in F are not all inside Trees or reads of A[0];
/// AllowedCalls are (call, argument index) pairs that may pass A.
std::optional<Refusal> checkArrayUses(
    const clang::FunctionDecl *F, const clang::ValueDecl *A,
    const std::vector<ReductionTree> &Trees,
    const std::set<std::pair<const clang::CallExpr *, unsigned>> &AllowedCalls,
    clang::ASTContext &AC);

/// The block sizes of every launch of K, when each is a constant 1-D power
/// of two of at least 32 threads; else why not.
std::variant<std::set<int64_t>, std::string>
warpMultipleBlockSizes(const ProgramInfo &Info, const KernelInfo &K);

/// Why a launch of K has a block that a tree rewrite can never take, as far
/// as its constant dimensions tell (not 1-D, or not a power of two of 32 to
/// 1024 threads); none if no launch is known to misfit (a block not known
/// in the file may still fit, and is checked at run time).
std::optional<std::string> misfitLaunch(const ProgramInfo &Info,
                                        const KernelInfo &K);

} // namespace kopt

#endif // KOPT_ANALYSIS_REDUCTIONTREE_H
