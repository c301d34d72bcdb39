//===- LaunchBounds.cpp - Add __launch_bounds__ to kernels ----------------===//
//
// __launch_bounds__(N) lets ptxas budget registers for N threads per block
// instead of the 1024 it must otherwise assume. Declaring fewer threads than
// a launch uses makes that launch fail, so the pass only declares a value no
// smaller than every launch site's block size, which it must be able to see:
// with max-threads=auto all launch sites must use one constant block size.
//
//===----------------------------------------------------------------------===//

#include "Options.h"
#include "kopt/Pass/Pass.h"

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

class LaunchBoundsPass : public KernelPass<LaunchBoundsOptions> {
  /// The block size to declare, or why there is none.
  Decision<int64_t> chooseMaxThreads(KernelContext &KC) {
    const KernelInfo &K = KC.kernel();
    std::optional<uint64_t> Requested = options().MaxThreads;
    auto Refuse = [&](const Twine &Why) -> Decision<int64_t> {
      return Refusal{Why.str(), K.Loc};
    };
    if (Requested && (*Requested == 0 || *Requested > MaxThreadsPerBlock))
      return Refuse("max-threads=" + Twine(*Requested) +
                    " is outside 1..1024 threads per block");
    if (KC.info().hasUnknownLaunches(K.Name))
      return Refuse("'" + K.Name +
                    "' is referenced other than by a <<<...>>> launch "
                    "(function pointer or launch API): its block sizes are "
                    "unknown");
    std::vector<const LaunchSite *> Launches = KC.info().launchesOf(K.Name);
    if (Launches.empty() && !Requested)
      return Refuse("no launch site of '" + K.Name +
                    "' in this file: give max-threads=N to declare a bound");
    std::map<int64_t, const LaunchSite *> Sizes;
    for (const LaunchSite *L : Launches) {
      std::optional<int64_t> Threads = L->Block.Value.total();
      if (!Threads)
        return Refuse(
            "the launch at " + str(L->Loc) + " uses block size '" +
            L->Block.Text + "', which is not a compile-time constant" +
            (L->Block.WhyUnknown.empty() ? ""
                                         : " (" + L->Block.WhyUnknown + ")"));
      Sizes.emplace(*Threads, L);
    }
    if (Requested) {
      for (const auto &[Threads, L] : Sizes)
        if (Threads > int64_t(*Requested))
          return Refuse(
              "the launch at " + str(L->Loc) + " uses " + Twine(Threads) +
              " threads per block, more than max-threads=" + Twine(*Requested));
      return int64_t(*Requested);
    }
    if (Sizes.size() > 1) {
      std::string List;
      for (const auto &[Threads, L] : Sizes)
        List += (List.empty() ? "" : ", ") + std::to_string(Threads) + " at " +
                str(L->Loc);
      return Refuse("launch sites use different block sizes (" + List +
                    "): give max-threads=N");
    }
    int64_t Threads = Sizes.begin()->first;
    if (Threads < 1 || Threads > MaxThreadsPerBlock)
      return Refuse("launch block size " + Twine(Threads) +
                    " is outside 1..1024 threads per block");
    return Threads;
  }

  void runOnKernel(KernelContext &KC) override {
    const KernelInfo &K = KC.kernel();
    ASTContext &AC = KC.deviceContext();
    const SourceManager &SM = AC.getSourceManager();
    const auto *Existing = K.Decl->getAttr<CUDALaunchBoundsAttr>();
    if (Existing && !options().Replace)
      return KC.missed("'" + K.Name +
                       "' already has __launch_bounds__; "
                       "replace=true overrides it");
    Decision<int64_t> Chosen = chooseMaxThreads(KC);
    if (auto *Why = std::get_if<Refusal>(&Chosen))
      return KC.refused(*Why);
    int64_t *Threads = std::get_if<int64_t>(&Chosen);
    uint64_t MinBlocks = options().MinBlocks;
    std::string Attr = "__launch_bounds__(" + std::to_string(*Threads) +
                       (MinBlocks ? ", " + std::to_string(MinBlocks) : "") +
                       ")";

    Error E = Error::success();
    if (Existing) {
      // The attribute is spelled through the __launch_bounds__ macro: replace
      // the macro invocation.
      CharSourceRange R = SM.getExpansionRange(Existing->getRange());
      E = KC.edits().replace(R.getAsRange(), Attr, AC);
    } else {
      E = KC.edits().insertBefore(K.Decl->getLocation(), Attr + " ", AC);
    }
    if (E)
      return KC.missed("cannot edit the declaration of '" + K.Name +
                       "': " + toString(std::move(E)));
    KC.applied(Twine(Existing ? "replaced __launch_bounds__ of '"
                              : "added __launch_bounds__ to '") +
               K.Name + "': " + Attr +
               (options().MaxThreads
                    ? ""
                    : " (every launch site uses " + std::to_string(*Threads) +
                          (*Threads == 1 ? " thread" : " threads") +
                          " per block)"));
  }
};

} // namespace

std::unique_ptr<Pass> createLaunchBoundsPass() {
  return std::make_unique<LaunchBoundsPass>();
}

} // namespace kopt
