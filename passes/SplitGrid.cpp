//===- SplitGrid.cpp - A grid-stride kernel on a larger grid --------------===//
//
// A grid-stride kernel launched on a small grid (`<<<32, 256>>>`, one block
// per SM) runs few threads, each walking a long loop: most of the GPU
// waits. planGridSplit (lib/Analysis/GridSplit.cpp) proves that the kernel
// computes the same bits on any grid; this pass leaves the kernel as it is
// and makes each launch start S times the blocks when the launch holds
// fewer threads than the device can run at once:
//
//   {
//     // kopt split-grid: 8x the blocks when the launch leaves the GPU idle
//     const auto kopt_grid = (grid);
//     if (kopt_grid >= 1 && kopt_grid <= 2147483647 / 8 &&
//         kopt_split_grid_fits(kopt_grid, 8, block, n, 2147483647LL))
//       k<<<kopt_grid * 8, block, ...>>>(args);
//     else
//       k<<<kopt_grid, block, ...>>>(args);
//   }
//
// kopt_split_grid_fits, a file-scope helper added once, is true when the
// larger grid keeps the loop's index in range (its start and stride are
// computed in 32 bits and may pass through 32-bit signed locals: the
// thread count stays within 31 bits; `i + stride` must stay in the index's
// type for every i < n), and the launch as written starts fewer threads than
// the device's multiprocessors hold (cudaDevAttrMultiProcessorCount x
// cudaDevAttrMaxThreadsPerMultiProcessor): a launch that already fills the
// device keeps its grid.
//
//===----------------------------------------------------------------------===//

#include "FileHelper.h"
#include "Options.h"
#include "ScaledLaunch.h"
#include "SourceLayout.h"
#include "kopt/Analysis/GridSplit.h"
#include "kopt/Pass/Pass.h"

using namespace clang;
using namespace llvm;

namespace kopt {

namespace {

const char *const HelperName = "kopt_split_grid_fits";

std::string helperText() {
  return std::string(
             "// kopt split-grid: true when Factor times a grid of Grid "
             "blocks of Block threads\n"
             "// keeps a grid-stride index below N within Limit (its start "
             "and stride in 31 bits,\n"
             "// i + stride in the index's type) and the grid as written "
             "starts fewer threads\n"
             "// than the device's multiprocessors hold at once.\n"
             "static inline bool ") +
         HelperName +
         "(long long kopt_grid, long long kopt_factor,\n"
         "                                        long long kopt_block, long "
         "long kopt_n,\n"
         "                                        long long kopt_limit) {\n"
         "  if (kopt_grid < 1 || kopt_block < 1 || kopt_block > 1024)\n"
         "    return false;\n"
         "  const long long kopt_threads = kopt_grid * kopt_factor * "
         "kopt_block;\n"
         "  if (kopt_threads > 2147483647LL || kopt_threads > kopt_limit ||\n"
         "      kopt_n > kopt_limit - kopt_threads)\n"
         "    return false;\n"
         "  int kopt_dev = 0, kopt_sms = 0, kopt_per_sm = 0;\n"
         "  if (cudaGetDevice(&kopt_dev) != cudaSuccess ||\n"
         "      cudaDeviceGetAttribute(&kopt_sms, "
         "cudaDevAttrMultiProcessorCount,\n"
         "                             kopt_dev) != cudaSuccess ||\n"
         "      cudaDeviceGetAttribute(&kopt_per_sm,\n"
         "                             "
         "cudaDevAttrMaxThreadsPerMultiProcessor,\n"
         "                             kopt_dev) != cudaSuccess)\n"
         "    return false;\n"
         "  return kopt_grid * kopt_block < static_cast<long long>(kopt_sms) "
         "* kopt_per_sm;\n"
         "}\n\n";
}

/// The launches' check, once a file.
struct SplitGridState {
  FileHelper Helper{HelperName};
};

class SplitGridPass : public KernelPass<SplitGridOptions, SplitGridState> {
  bool rewritesInstances() const override { return true; }

  void beginFile(PassContext &Ctx) override {
    State.Helper.beginFile(Ctx.hostContext());
  }

  void runOnKernel(KernelContext &KC) override {
    const KernelInfo &K = KC.kernel();
    unsigned S = options().Factor;
    auto Missed = [&](LineCol At, const Twine &Why) {
      KC.missed(At, "grid-stride kernel not given a larger grid: " + Why);
    };
    if (S < 2 || S > 64)
      return Missed(K.Loc, "factor=" + Twine(S) + " is not from 2 to 64");
    std::vector<const LaunchSite *> Launches = KC.info().launchesOf(K.Name);
    // Launches kopt already scaled (this pass's, or row-reduce's fallback).
    llvm::erase_if(Launches,
                   [](const LaunchSite *L) { return isScaledLaunch(*L); });
    if (Launches.empty())
      return;
    Decision<GridSplitPlan> D = planGridSplit(K, KC.deviceContext());
    if (auto *Why = std::get_if<Refusal>(&D))
      return Missed(Why->Loc.Line ? Why->Loc : K.Loc, Why->Message);
    const GridSplitPlan &P = std::get<GridSplitPlan>(D);
    if (KC.info().hasUnknownLaunches(K.Name))
      return Missed(K.Loc,
                    "'" + K.Name + "' is referenced other than by a launch");

    ASTContext &HC = KC.hostContext();
    EditSet Edits(KC.pass().source().Path);
    unsigned BoundIndex = P.Bound->getFunctionScopeIndex();
    std::string Limit =
        P.IndexBits >= 64 ? "9223372036854775807LL" : "2147483647LL";
    std::string Ss = std::to_string(S);
    PrintingPolicy PP(HC.getLangOpts());
    std::string BoundType =
        P.Bound->getType().getUnqualifiedType().getAsString(PP);
    ScaledLaunchSpec Spec;
    Spec.Factor = S;
    Spec.Comment = "kopt split-grid: " + Ss +
                   "x the blocks when the launch leaves the GPU idle";
    // launchPieces gives every argument's text (none is defaulted).
    Spec.Extra = [&](const LaunchPieces &Pieces) {
      return std::string(HelperName) + "(" + ScaledGridName + ", " + Ss + ", " +
             Pieces.Config[1] + ", static_cast<" + BoundType + ">(" +
             Pieces.Args[BoundIndex] + "), " + Limit + ")";
    };
    for (const LaunchSite *L : Launches) {
      if (!L->Call || L->Call->getNumArgs() <= BoundIndex)
        return Missed(L->Loc, "the launch at " + str(L->Loc) +
                                  " does not show the bound '" +
                                  P.Bound->getName() + "'");
      if (std::optional<std::string> Why =
              replaceWithScaledLaunch(*L, Spec, HC, Edits))
        return Missed(L->Loc, *Why);
    }
    Expected<bool> Added =
        State.Helper.addBefore(KC.info(), helperText(), Edits, HC);
    if (!Added)
      return Missed(K.Loc, toString(Added.takeError()));
    if (Error E = KC.edits().merge(Edits))
      return Missed(K.Loc, toString(std::move(E)));
    State.Helper.committed(*Added);
    KC.applied(K.Loc, Twine(Launches.size()) + " launch" +
                          (Launches.size() == 1 ? "" : "es") + " of '" +
                          K.Name + "' start " + Ss +
                          "x the blocks when they hold fewer threads than "
                          "the device: its grid-stride loop over '" +
                          P.Index->getName() +
                          "' runs each index once, the same way, on any "
                          "grid");
  }
};

} // namespace

std::unique_ptr<Pass> createSplitGridPass() {
  return std::make_unique<SplitGridPass>();
}

} // namespace kopt
