//===- ElementwiseLoop.h - One element per iteration ------------*- C++ -*-===//
//
// The analysis behind vectorize-loads: a region run once per element (the
// body of a grid- or block-stride loop, or of a one-element-per-thread
// guard), the pointers it reads and writes element-wise, and whether giving
// each thread W consecutive elements keeps what it computes (legality rules
// in passes/VectorizeLoads.cpp and docs/passes/vectorize-loads.md).
//
//===----------------------------------------------------------------------===//

#ifndef KOPT_ANALYSIS_ELEMENTWISELOOP_H
#define KOPT_ANALYSIS_ELEMENTWISELOOP_H

#include "kopt/Analysis/KernelInfo.h"
#include "kopt/Analysis/Refusal.h"

#include "clang/AST/ParentMap.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <optional>
#include <set>
#include <string>
#include <vector>

namespace kopt {

/// The widest vector access: 16 bytes (float4, uint4).
constexpr unsigned VectorBytes = 16;

/// The statement run once per element, and what names the element.
struct ElementRegion {
  const clang::VarDecl *Var = nullptr; ///< element index
  const clang::Stmt *Body = nullptr;   ///< run once per element
  const clang::Expr *Bound = nullptr;  ///< elements are Var < Bound
  bool OnePerThread = false;
  /// Only the threads of one block share the region (a block-stride
  /// loop): a value every thread of a block shares (a row pointer set from
  /// blockIdx) is the same for all of them.
  bool PerBlock = false;
};

/// Orders the variables accesses go through, so remarks and code are
/// deterministic: parameters as declared, then local pointers as declared.
struct BaseOrder {
  bool operator()(const clang::VarDecl *A, const clang::VarDecl *B) const {
    const auto *PA = llvm::dyn_cast<clang::ParmVarDecl>(A);
    const auto *PB = llvm::dyn_cast<clang::ParmVarDecl>(B);
    if (PA && PB)
      return PA->getFunctionScopeIndex() < PB->getFunctionScopeIndex();
    if (PA || PB)
      return PA != nullptr;
    return A->getLocation().getRawEncoding() <
           B->getLocation().getRawEncoding();
  }
};

/// One pointer (or `__shared__` array) whose `p[i]` accesses become vector
/// accesses.
struct VectorPointer {
  /// The kernel parameter (the one a local pointer is fixed to); null for
  /// a `__shared__` array.
  const ParamInfo *Param = nullptr;
  /// The parameter's, the local pointer's or the array's name.
  std::string Name;
  std::string Element;
  unsigned ElementBytes = 0;
  bool Reads = false;
  bool Writes = false;
  /// Set when some store writes every element unconditionally, so the
  /// carrier needs no initial load.
  bool FullyWritten = false;
  std::vector<const clang::ArraySubscriptExpr *> Accesses;
  /// The uniform offset of `p[off + i]` (empty for `p[i]`), as written.
  std::string Offset;

  /// Set for a `__shared__` array declared aligned to the vector and read
  /// at `a[i]`: no run-time alignment check is needed.
  bool StaticallyAligned = false;

  std::string carrierName() const { return "kopt_vec_" + Name; }
  /// The address of element 0 of the vectorized range.
  std::string base() const {
    return Offset.empty() ? Name : Name + " + (" + Offset + ")";
  }
};

struct VectorPlan {
  unsigned Width = 0;
  /// Global pointer parameters, in declaration order.
  std::vector<VectorPointer> Pointers;
  /// `__shared__` arrays of constant size the region only reads, at `a[i]`
  /// or `a[off + i]` in every element (unconditionally in one access at
  /// least), whose declared alignment holds a vector. Reading them as
  /// vectors keeps the region's results; read one element a lane, W apart,
  /// they cost W-way bank conflicts. Arrays that do not qualify stay scalar
  /// (shared memory needs no coalescing, so this is not a refusal).
  std::vector<VectorPointer> SharedReads;
  /// Pairs of Pointers, by index, the first one stored, the second
  /// loaded or stored, neither `__restrict__`, in a loop (not one element
  /// per thread). The rewrite moves a thread's loads before its stores and
  /// its stores after one another, which is right only where the two
  /// ranges [base, base + bound) do not overlap: it checks that at run
  /// time and runs the original loop where they do, as LLVM's loop
  /// versioning does. Every access of both is element-wise, so the ranges
  /// are known; a plain pointer loaded otherwise is refused instead.
  std::vector<std::pair<unsigned, unsigned>> Disjoint;
  /// The pairs of Disjoint whose ranges may also start at the same address
  /// (in place): the second pointer is only loaded, its elements are as
  /// wide as the first's, and every load of it comes in a statement of the
  /// element computation before every store to the first. Each element is
  /// then loaded and stored by its own iteration only, loads first, as
  /// through one pointer.
  std::set<std::pair<unsigned, unsigned>> InPlace;
};

/// The one-element-per-thread shape `T i = gid; if (i < n) STMT` as the
/// whole kernel body, or with an early return, `T i = gid; if (i >= n)
/// return; STMT` (one statement after it). gid may name the block size as a
/// constant equal to blockDim.x of every launch (`blockIdx.x * BLOCK +
/// threadIdx.x`, KernelInfo::LaunchedBlockX).
std::optional<ElementRegion> matchOnePerThread(const KernelInfo &K);

/// Whether Index is element-wise in Var: `i`, `off + i` or `i + off`, where
/// off is the same for all threads and loop iterations and its variables
/// are declared before Body and not modified in it, or a local integer of
/// Body initialized with such an index and not modified in it. Sets Offset
/// to off, or nullptr for `i`.
bool matchElementIndex(const clang::Expr *Index, const clang::VarDecl *Var,
                       const clang::Stmt *Body,
                       const clang::FunctionDecl *Kernel,
                       clang::ASTContext &Ctx, const clang::Expr *&Offset);

/// Whether R can be vectorized and how: the element-wise pointers, their
/// element types and the vector width (Width, or 16 bytes' worth), or why
/// not. AllowCarried allows state carried from element to element (the
/// caller vouches that the kernel combines it in any order).
Decision<VectorPlan> planVectorAccesses(const KernelInfo &K,
                                        const ElementRegion &R,
                                        clang::ASTContext &AC,
                                        std::optional<uint64_t> Width,
                                        bool AllowCarried);

/// The `__shared__` arrays R reads element-wise that can be read Width
/// elements at a time (VectorPlan::SharedReads); Subscripts are R's array
/// subscripts, Parents the kernel body's parent map.
std::vector<VectorPointer>
sharedVectorReads(const KernelInfo &K, const ElementRegion &R, unsigned Width,
                  llvm::ArrayRef<const clang::ArraySubscriptExpr *> Subscripts,
                  clang::ParentMap &Parents, clang::ASTContext &AC);

/// Why loading P's elements before R's body runs for them (staged-loads'
/// chunks) may give a read of the body another value than the original
/// read: a read of P's element that may follow a write of it in the same
/// body. Reads are safe in a top-level statement of the body before every
/// one that writes P, or inside the right-hand side of a plain `=` to the
/// element (or as a compound assignment's own read) that runs at most once
/// for the element: no loop between it and the body.
std::optional<Refusal> whyReadMayFollowWrite(const KernelInfo &K,
                                             const ElementRegion &R,
                                             const VectorPointer &P,
                                             clang::ASTContext &AC);

/// The first write in Body to memory a plan cannot place: not a local
/// variable, not a `__shared__` array, not an access Known accepts (a
/// store through a pointer loaded from memory, or through a local pointer
/// whose value is not fixed to a parameter).
std::optional<Refusal> untrackedStore(
    const clang::Stmt *Body,
    llvm::function_ref<bool(const clang::ArraySubscriptExpr *)> Known,
    clang::ASTContext &AC);

/// Why handing R's elements to other threads than the original's (W
/// consecutive elements a thread) may change what the kernel computes: an
/// access outside R to memory R writes, or a write outside R to memory R
/// reads, with no barrier between (the same phase; anywhere for a region
/// all blocks share), not in the other branch of an if, was the same
/// thread's own element in the original and would be another thread's,
/// unordered: llm.c's softmax_forward_kernel4 stores its row in one loop
/// and sums it back in the next. Accesses are compared by the parameter
/// they are fixed to (one allocation); an access through another plain
/// pointer that happens to reach R's elements is not seen. staged-loads
/// does not ask: its stores keep their threads and its barriers order the
/// staged loads after every earlier write of the block.
std::optional<Refusal> readBackElsewhere(const KernelInfo &K,
                                         const ElementRegion &R,
                                         clang::ASTContext &AC);

/// Whether the access E to an element-wise pointer of a plan only reads.
bool isPlainLoad(const KernelInfo &K, const clang::ArraySubscriptExpr *E);

/// Why launch L of a one-element-per-thread kernel may start fewer threads
/// than R's bound has elements (a Presburger question about its grid), or
/// nothing when it provably starts enough.
std::optional<std::string> whyNotCovering(const LaunchSite &L,
                                          const ElementRegion &R,
                                          clang::ASTContext &HC);

/// Our own output: a variable named like the carriers vectorize-loads
/// declares.
bool declaresVectorCarrier(const clang::Stmt *S, clang::ASTContext &Ctx);

} // namespace kopt

#endif // KOPT_ANALYSIS_ELEMENTWISELOOP_H
