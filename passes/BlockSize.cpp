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
#include "Options.h"

#include "llvm/ADT/StringExtras.h"

using namespace llvm;

namespace kopt {

namespace {

class BlockSizePass : public KernelPass<BlockSizeOptions> {
  bool Found = false;

  void beginFile(PassContext &) override { Found = false; }

  void endFile(PassContext &Ctx) override {
    if (!Found && !options().Kernel.empty())
      Ctx.missed("", LineCol(),
                 "no kernel named '" + options().Kernel +
                     "' is defined in this file");
  }

  void runOnKernel(KernelContext &KC) override {
    const KernelInfo &K = KC.kernel();
    if (!options().Kernel.empty() && K.Name != options().Kernel)
      return;
    Found = true;
    int64_t Threads = options().Threads;
    auto Missed = [&](const Twine &Why) {
      KC.missed("block size of '" + K.Name + "' not changed: " + Why);
    };
    std::variant<int64_t, std::string> Old = launchBlockSize(KC.pass(), K);
    if (auto *Why = std::get_if<std::string>(&Old))
      return Missed(*Why);
    std::variant<BlockSizeChange, std::string> Plan = planBlockSizeChange(
        KC.pass(), K, std::get<int64_t>(Old), Threads, options().Reassociate);
    if (auto *Why = std::get_if<std::string>(&Plan))
      return Missed(*Why);
    BlockSizeChange &Change = std::get<BlockSizeChange>(Plan);
    if (Error E = KC.edits().merge(Change.Edits))
      return Missed(toString(std::move(E)));
    KC.applied("'" + K.Name + "' launched with " + Twine(Threads) +
               " threads per block instead of " +
               Twine(std::get<int64_t>(Old)) +
               (Change.Notes.empty() ? "" : "; " + join(Change.Notes, "; ")));
  }
};

} // namespace

std::unique_ptr<Pass> createBlockSizePass() {
  return std::make_unique<BlockSizePass>();
}

} // namespace kopt
