//===- BlockSize.cpp - Launch kernels with another constant block size ---===//
//
// The block size is the main knob a search turns: it trades occupancy,
// registers per thread and the work each block carries. This pass sets it
// to `threads` at every launch of a kernel, keeping what the kernel
// computes: grids are recomputed so the data stays covered, shared arrays
// of one element a thread are resized, __launch_bounds__ follows. The rules
// are in BlockSizeChange.cpp; any doubt is a missed remark.
//
//===----------------------------------------------------------------------===//

#include "BlockSizeChange.h"

#include "llvm/ADT/StringExtras.h"

using namespace llvm;

namespace kopt {

namespace {

class BlockSizePass : public Pass {
public:
  void run(PassContext &Ctx) override {
    int64_t Threads = Ctx.params().getUInt("threads");
    StringRef Only = Ctx.params().getString("kernel");
    bool Found = false;
    for (const KernelInfo &K : Ctx.info().Kernels) {
      if (!Only.empty() && K.Name != Only)
        continue;
      Found = true;
      runOnKernel(Ctx, K, Threads);
    }
    if (!Found && !Only.empty())
      Ctx.missed("", LineCol(),
                 "no kernel named '" + Only + "' is defined in this file");
  }

private:
  static void runOnKernel(PassContext &Ctx, const KernelInfo &K,
                          int64_t Threads) {
    auto Missed = [&](const Twine &Why) {
      Ctx.missed(K.Name, K.Loc,
                 "block size of '" + K.Name + "' not changed: " + Why);
    };
    std::variant<int64_t, std::string> Old = launchBlockSize(Ctx, K);
    if (auto *Why = std::get_if<std::string>(&Old))
      return Missed(*Why);
    std::variant<BlockSizeChange, std::string> Plan =
        planBlockSizeChange(Ctx, K, std::get<int64_t>(Old), Threads,
                            Ctx.params().getBool("reassociate"));
    if (auto *Why = std::get_if<std::string>(&Plan))
      return Missed(*Why);
    BlockSizeChange &Change = std::get<BlockSizeChange>(Plan);
    if (Error E = Ctx.edits().merge(Change.Edits))
      return Missed(toString(std::move(E)));
    Ctx.applied(
        K.Name, K.Loc,
        "'" + K.Name + "' launched with " + Twine(Threads) +
            " threads per block instead of " + Twine(std::get<int64_t>(Old)) +
            (Change.Notes.empty() ? "" : "; " + join(Change.Notes, "; ")));
  }
};

} // namespace

std::unique_ptr<Pass> createBlockSizePass() {
  return std::make_unique<BlockSizePass>();
}

} // namespace kopt
