//===- ThreadUtilization.cpp - Find threads that block-stride loops idle -===//
//
// A block-stride loop `for (j = threadIdx.x; j < n; j += blockDim.x)` over
// fewer elements than the block has threads leaves the rest idle: a row of
// 64 elements under 256 threads keeps three warps out of four waiting at
// every barrier. The pass reports such loops when n is known: a constant,
// or a kernel parameter every launch passes a constant for. With fix=true
// it launches the kernel with the fewest threads that still cover every
// block-stride loop of the kernel (a multiple of 32; a power of two when the
// block size was one), through the same rewrite as block-size.
//
//===----------------------------------------------------------------------===//

#include "BlockSizeChange.h"
#include "Options.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"

using namespace clang;
using namespace llvm;

namespace kopt {

namespace {

class ThreadUtilizationPass : public KernelPass<ThreadUtilizationOptions> {
  /// Elements a block-stride loop covers, or why it is not known.
  static std::variant<int64_t, std::string>
  loopBound(PassContext &Ctx, const KernelInfo &K, const LoopInfo &L) {
    std::optional<CountedLoop> CL = matchCountedLoop(L.For);
    if (!CL)
      return std::string("its bound is not recognized");
    const Stmt *Body = K.Decl->getBody();
    int64_t Extra = CL->Inclusive ? 1 : 0;
    if (std::optional<int64_t> C =
            evaluateInt(CL->Bound, Ctx.deviceContext(), Body))
      return *C + Extra;
    // A parameter: the largest constant the launches pass for it.
    const auto *Ref = dyn_cast<DeclRefExpr>(stripCasts(CL->Bound));
    const auto *P = Ref ? dyn_cast<ParmVarDecl>(Ref->getDecl()) : nullptr;
    std::string Unknown = "its bound '" + L.Bound + "' is not known";
    if (!P || isModifiedIn(P, Body) || Ctx.info().hasUnknownLaunches(K.Name))
      return Unknown;
    std::optional<int64_t> Max;
    for (const LaunchSite *Site : Ctx.info().launchesOf(K.Name)) {
      unsigned Index = P->getFunctionScopeIndex();
      const Stmt *Scope =
          Site->CallerDecl ? Site->CallerDecl->getBody() : nullptr;
      std::optional<int64_t> Arg =
          Site->Call && Index < Site->Call->getNumArgs()
              ? evaluateInt(Site->Call->getArg(Index), Ctx.hostContext(), Scope)
              : std::nullopt;
      if (!Arg)
        return Unknown + " at the launch at " + str(Site->Loc);
      Max = std::max(Max.value_or(*Arg), *Arg);
    }
    if (!Max)
      return Unknown + " (no launch in this file)";
    return *Max + Extra;
  }

  void runOnKernel(KernelContext &KC) override {
    PassContext &Ctx = KC.pass();
    const KernelInfo &K = KC.kernel();
    std::vector<const LoopInfo *> Loops;
    for (const LoopInfo &L : K.Loops)
      if (L.K == LoopInfo::BlockStride && L.For)
        Loops.push_back(&L);
    if (Loops.empty() || !K.Decl)
      return;
    bool Fix = options().Fix;
    std::variant<int64_t, std::string> Block = launchBlockSize(Ctx, K);
    if (auto *Why = std::get_if<std::string>(&Block)) {
      Ctx.missed(K.Name, K.Loc,
                 "thread utilization of '" + K.Name + "' not checked: " + *Why);
      return;
    }
    int64_t Threads = std::get<int64_t>(Block);
    int64_t Needed = 0;
    bool Idle = false;
    std::optional<std::string> Unknown;
    for (const LoopInfo *L : Loops) {
      std::variant<int64_t, std::string> Bound = loopBound(Ctx, K, *L);
      if (auto *Why = std::get_if<std::string>(&Bound)) {
        Ctx.missed(K.Name, L->Loc,
                   "thread utilization of the block-stride loop not "
                   "checked: " +
                       *Why);
        Unknown = "the block-stride loop at " + str(L->Loc) + ": " + *Why;
        continue;
      }
      int64_t N = std::get<int64_t>(Bound);
      Needed = std::max(Needed, N);
      if (N >= Threads)
        continue;
      Idle = true;
      Ctx.missed(K.Name, L->Loc,
                 "block-stride loop over " + Twine(N) + " elements keeps " +
                     Twine(std::max<int64_t>(N, 0)) + " of " + Twine(Threads) +
                     " threads busy (" +
                     Twine(Threads - std::max<int64_t>(N, 0)) + " idle)" +
                     (Fix ? "" : "; fix=true lowers the block size"));
    }
    if (!Fix || !Idle)
      return;
    auto NotFixed = [&](const Twine &Why) {
      Ctx.missed(K.Name, K.Loc,
                 "idle threads of '" + K.Name + "' not fixed: " + Why);
    };
    if (Unknown)
      return NotFixed(*Unknown);
    int64_t NewThreads = alignTo(std::max<int64_t>(Needed, 1), 32);
    if (isPowerOf2_64(Threads))
      NewThreads = PowerOf2Ceil(NewThreads);
    if (NewThreads >= Threads)
      return NotFixed("covering " + Twine(Needed) + " elements takes " +
                      Twine(NewThreads) + " threads, no fewer than " +
                      Twine(Threads));
    std::variant<BlockSizeChange, std::string> Plan =
        planBlockSizeChange(Ctx, K, Threads, NewThreads, options().Reassociate);
    if (auto *Why = std::get_if<std::string>(&Plan))
      return NotFixed(*Why);
    BlockSizeChange &Change = std::get<BlockSizeChange>(Plan);
    if (Error E = Ctx.edits().merge(Change.Edits))
      return NotFixed(toString(std::move(E)));
    Ctx.applied(
        K.Name, K.Loc,
        "'" + K.Name + "' launched with " + Twine(NewThreads) +
            " threads per block instead of " + Twine(Threads) +
            " (its block-stride loops cover at most " + Twine(Needed) +
            " elements)" +
            (Change.Notes.empty() ? "" : "; " + join(Change.Notes, "; ")));
  }
};

} // namespace

std::unique_ptr<Pass> createThreadUtilizationPass() {
  return std::make_unique<ThreadUtilizationPass>();
}

} // namespace kopt
