//===- LaunchBounds.cpp - Add __launch_bounds__ to kernels ----------------===//
//
// __launch_bounds__(N) lets ptxas budget registers for N threads per block
// instead of the 1024 it must otherwise assume. Declaring fewer threads than
// a launch uses makes that launch fail, so the pass only declares a value no
// smaller than every launch site's block size, which it must be able to see:
// with max-threads=auto all launch sites must use one constant block size.
//
//===----------------------------------------------------------------------===//

#include "kopt/Pipeline/Pass.h"

#include "clang/AST/Attr.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/STLExtras.h"

#include <map>

using namespace clang;
using namespace llvm;

namespace kopt {

namespace {

/// CUDA's limit on threads per block.
constexpr int64_t MaxThreadsPerBlock = 1024;

class LaunchBoundsPass : public Pass {
public:
  void run(PassContext &Ctx) override {
    for (const KernelInfo &K : Ctx.info().Kernels)
      runOnKernel(Ctx, K);
  }

private:
  /// The block size to declare, or std::nullopt after a missed remark.
  std::optional<int64_t> chooseMaxThreads(PassContext &Ctx,
                                          const KernelInfo &K) {
    std::optional<uint64_t> Requested = Ctx.params().getAutoUInt("max-threads");
    if (Requested && (*Requested == 0 || *Requested > MaxThreadsPerBlock)) {
      Ctx.missed(K.Name, K.Loc,
                 "max-threads=" + Twine(*Requested) +
                     " is outside 1..1024 threads per block");
      return std::nullopt;
    }
    if (Ctx.info().hasUnknownLaunches(K.Name)) {
      Ctx.missed(K.Name, K.Loc,
                 "'" + K.Name +
                     "' is referenced other than by a <<<...>>> launch "
                     "(function pointer or launch API): its block sizes are "
                     "unknown");
      return std::nullopt;
    }
    std::vector<const LaunchSite *> Launches = Ctx.info().launchesOf(K.Name);
    if (Launches.empty() && !Requested) {
      Ctx.missed(K.Name, K.Loc,
                 "no launch site of '" + K.Name +
                     "' in this file: give max-threads=N to declare a bound");
      return std::nullopt;
    }
    std::map<int64_t, const LaunchSite *> Sizes;
    for (const LaunchSite *L : Launches) {
      std::optional<int64_t> Threads = L->Block.Value.total();
      if (!Threads) {
        Ctx.missed(K.Name, K.Loc,
                   "the launch at " + str(L->Loc) + " uses block size '" +
                       L->Block.Text +
                       "', which is not a compile-time constant");
        return std::nullopt;
      }
      Sizes.emplace(*Threads, L);
    }
    if (Requested) {
      for (const auto &[Threads, L] : Sizes)
        if (Threads > int64_t(*Requested)) {
          Ctx.missed(K.Name, K.Loc,
                     "the launch at " + str(L->Loc) + " uses " +
                         Twine(Threads) +
                         " threads per block, more than max-threads=" +
                         Twine(*Requested));
          return std::nullopt;
        }
      return int64_t(*Requested);
    }
    if (Sizes.size() > 1) {
      std::string List;
      for (const auto &[Threads, L] : Sizes)
        List += (List.empty() ? "" : ", ") + std::to_string(Threads) + " at " +
                str(L->Loc);
      Ctx.missed(K.Name, K.Loc,
                 "launch sites use different block sizes (" + List +
                     "): give max-threads=N");
      return std::nullopt;
    }
    int64_t Threads = Sizes.begin()->first;
    if (Threads < 1 || Threads > MaxThreadsPerBlock) {
      Ctx.missed(K.Name, K.Loc,
                 "launch block size " + Twine(Threads) +
                     " is outside 1..1024 threads per block");
      return std::nullopt;
    }
    return Threads;
  }

  void runOnKernel(PassContext &Ctx, const KernelInfo &K) {
    ASTContext &AC = Ctx.deviceContext();
    const SourceManager &SM = AC.getSourceManager();
    const auto *Existing = K.Decl->getAttr<CUDALaunchBoundsAttr>();
    bool Replace = Ctx.params().getBool("replace");
    if (Existing && !Replace) {
      Ctx.missed(
          K.Name, K.Loc,
          "'" + K.Name +
              "' already has __launch_bounds__; replace=true overrides it");
      return;
    }
    std::optional<int64_t> Threads = chooseMaxThreads(Ctx, K);
    if (!Threads)
      return;
    uint64_t MinBlocks = Ctx.params().getUInt("min-blocks");
    std::string Attr = "__launch_bounds__(" + std::to_string(*Threads) +
                       (MinBlocks ? ", " + std::to_string(MinBlocks) : "") +
                       ")";

    Error E = Error::success();
    if (Existing) {
      // The attribute is spelled through the __launch_bounds__ macro: replace
      // the macro invocation.
      CharSourceRange R = SM.getExpansionRange(Existing->getRange());
      E = Ctx.edits().replace(R.getAsRange(), Attr, AC);
    } else {
      E = Ctx.edits().insertBefore(K.Decl->getLocation(), Attr + " ", AC);
    }
    if (E) {
      Ctx.missed(K.Name, K.Loc,
                 "cannot edit the declaration of '" + K.Name +
                     "': " + toString(std::move(E)));
      return;
    }
    Ctx.applied(K.Name, K.Loc,
                Twine(Existing ? "replaced __launch_bounds__ of '"
                               : "added __launch_bounds__ to '") +
                    K.Name + "': " + Attr +
                    (Ctx.params().getAutoUInt("max-threads")
                         ? ""
                         : " (every launch site uses " +
                               std::to_string(*Threads) +
                               (*Threads == 1 ? " thread" : " threads") +
                               " per block)"));
  }
};

} // namespace

std::unique_ptr<Pass> createLaunchBoundsPass() {
  return std::make_unique<LaunchBoundsPass>();
}

} // namespace kopt
