//===- Unroll.cpp - #pragma unroll on loops with known trip counts -------===//
//
// ptxas unrolls small constant loops by itself, but not loops whose trip
// count it cannot see, and it does not know how many elements a block-stride
// loop gives each thread. A `#pragma unroll N` is only a hint: it never
// changes what the loop computes, so the legality question is only where the
// count is known. The pass annotates:
//   * counted loops with a constant trip count (fully when it is at most the
//     factor, else by the factor);
//   * block-stride and grid-stride loops whose per-thread element count is
//     known: a constant bound, the block size from __launch_bounds__ or from
//     the launch sites, and for grid-stride loops the constant grid.
//
//===----------------------------------------------------------------------===//

#include "Options.h"
#include "kopt/Pass/Pass.h"

#include "clang/AST/Attr.h"
#include "clang/AST/ParentMap.h"
#include "clang/Basic/SourceManager.h"

#include <set>

using namespace clang;
using namespace llvm;

namespace kopt {

namespace {

class UnrollPass : public KernelPass<UnrollOptions> {
  static std::optional<int64_t> gridSize(PassContext &Ctx,
                                         const KernelInfo &K) {
    if (Ctx.info().hasUnknownLaunches(K.Name))
      return std::nullopt;
    std::set<int64_t> Sizes;
    for (const LaunchSite *L : Ctx.info().launchesOf(K.Name)) {
      std::optional<int64_t> G = L->Grid.Value.total();
      if (!G)
        return std::nullopt;
      Sizes.insert(*G);
    }
    if (Sizes.size() != 1)
      return std::nullopt;
    return *Sizes.begin();
  }

  /// Iterations each thread runs, or a reason it is not known.
  static std::variant<int64_t, std::string>
  iterations(PassContext &Ctx, const KernelInfo &K, const LoopInfo &L) {
    if (L.K == LoopInfo::Counted) {
      if (L.TripCount)
        return *L.TripCount;
      return std::string("its trip count is not a compile-time constant");
    }
    if (L.K != LoopInfo::BlockStride && L.K != LoopInfo::GridStride)
      return std::string("it is not a counted, block-stride or grid-stride "
                         "loop");
    std::optional<CountedLoop> CL = matchCountedLoop(L.For);
    std::optional<int64_t> Bound =
        CL ? evaluateInt(CL->Bound, Ctx.deviceContext(), K.Decl->getBody())
           : std::nullopt;
    if (!Bound)
      return "its bound '" + L.Bound + "' is not a compile-time constant";
    std::optional<int64_t> Threads = Ctx.info().knownBlockSize(K);
    if (!Threads)
      return std::string("the block size is not one known constant");
    if (L.K == LoopInfo::GridStride) {
      std::optional<int64_t> Blocks = gridSize(Ctx, K);
      if (!Blocks)
        return std::string("the grid size is not one known constant");
      *Threads *= *Blocks;
    }
    return (*Bound + *Threads - 1) / *Threads;
  }

  void runOnKernel(KernelContext &KC) override {
    PassContext &Ctx = KC.pass();
    const KernelInfo &K = KC.kernel();
    ASTContext &AC = Ctx.deviceContext();
    const SourceManager &SM = AC.getSourceManager();
    ParentMap Parents(K.Decl->getBody());
    uint64_t Factor = options().Factor;
    for (const LoopInfo &L : K.Loops) {
      if (!L.For) {
        Ctx.missed(K.Name, L.Loc,
                   "loop not unrolled: it is not a counted, block-stride or "
                   "grid-stride loop");
        continue;
      }
      const Stmt *Parent = Parents.getParent(const_cast<ForStmt *>(L.For));
      if (const auto *AS = dyn_cast_or_null<AttributedStmt>(Parent)) {
        bool HasHint = false;
        for (const Attr *A : AS->getAttrs())
          HasHint |= isa<LoopHintAttr>(A);
        if (HasHint) {
          Ctx.missed(K.Name, L.Loc, "the loop already has a loop pragma");
          continue;
        }
      }
      std::variant<int64_t, std::string> Count = iterations(Ctx, K, L);
      if (auto *Why = std::get_if<std::string>(&Count)) {
        Ctx.missed(K.Name, L.Loc, "loop not unrolled: " + *Why);
        continue;
      }
      int64_t Trips = std::get<int64_t>(Count);
      if (Trips <= 1) {
        Ctx.missed(K.Name, L.Loc,
                   "loop not unrolled: each thread runs it at most once");
        continue;
      }
      SourceLocation Begin = L.For->getBeginLoc();
      if (!isRewritable(L.For->getSourceRange(), AC)) {
        Ctx.missed(K.Name, L.Loc,
                   "loop not unrolled: it is written in a macro");
        continue;
      }
      // Full unrolling when the count fits in the factor (factor=0: always
      // full, for constant counts).
      bool Full = Factor == 0 || uint64_t(Trips) <= Factor;
      std::string Pragma =
          Full ? "#pragma unroll" : "#pragma unroll " + std::to_string(Factor);
      // The pragma needs a line of its own, at the loop's indentation.
      StringRef Code = Ctx.source().Code;
      unsigned Offset = SM.getFileOffset(Begin);
      size_t LineStart = Code.rfind('\n', Offset);
      LineStart = LineStart == StringRef::npos ? 0 : LineStart + 1;
      StringRef Before = Code.slice(LineStart, Offset);
      bool OwnLine = Before.trim().empty();
      std::string Text =
          OwnLine ? Pragma + "\n" + Before.str() : "\n" + Pragma + "\n";
      if (Error E = Ctx.edits().insertBefore(Begin, Text, AC)) {
        Ctx.missed(K.Name, L.Loc,
                   "loop not unrolled: " + toString(std::move(E)));
        continue;
      }
      Ctx.applied(K.Name, L.Loc,
                  Pragma + " on a " + LoopInfo::kindName(L.K) + " loop of " +
                      Twine(Trips) + " iterations per thread");
    }
  }
};

} // namespace

std::unique_ptr<Pass> createUnrollPass() {
  return std::make_unique<UnrollPass>();
}

} // namespace kopt
