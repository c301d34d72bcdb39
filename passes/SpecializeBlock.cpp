//===- SpecializeBlock.cpp - blockDim as the launches' constant block -----===//
//
// A kernel that reads blockDim is compiled for any block: a block-stride
// loop's stride, a tree's first level and every index computed from them are
// run-time values, so nvcc cannot unroll the loop with a remainder (its
// unrolled copies each test the bound and their loads cannot be issued
// together) nor fold the tree. Where every launch of the kernel in this file
// runs one constant block, the pass writes that block's extents in place of
// the kernel's blockDim reads (as `256u`, blockDim's type), so each value is
// the same and nvcc sees it.
//
// The launches the pass sees are those of this file; a launch it cannot see
// (another file's, through the host stub) could run another block, and the
// constants would then be wrong without a sign. So the kernel's first
// statement becomes a guard that traps unless the block is the one the
// constants assume (a failed launch, as a too-small __launch_bounds__ makes
// one), and passes that change a kernel's block refuse a guarded kernel
// (kopt/Analysis/BlockGuard.h). Reads inside device functions the kernel
// calls are left: other kernels may call them.
//
//===----------------------------------------------------------------------===//

#include "Options.h"
#include "SourceLayout.h"
#include "kopt/Analysis/BlockGuard.h"
#include "kopt/Analysis/CudaAST.h"
#include "kopt/Pass/Pass.h"

#include "clang/AST/ExprCXX.h"

using namespace clang;
using namespace llvm;

namespace kopt {

namespace {

class SpecializeBlockPass : public KernelPass<SpecializeBlockOptions> {
  void runOnKernel(KernelContext &KC) override {
    const KernelInfo &K = KC.kernel();
    ASTContext &AC = KC.deviceContext();
    const auto *Body = dyn_cast<CompoundStmt>(K.Decl->getBody());
    if (!Body)
      return;
    if (std::optional<BlockExtents> G = findBlockGuard(K.Decl))
      return KC.missed("'" + K.Name + "' is already specialized to its " +
                       G->str() + " block");
    std::variant<BlockExtents, std::string> Chosen =
        KC.info().constantBlock(K.Name);
    if (auto *Why = std::get_if<std::string>(&Chosen))
      return KC.missed("blockDim not specialized: " + *Why);
    const BlockExtents &B = std::get<BlockExtents>(Chosen);
    const int64_t Extent[3] = {B.X, B.Y, B.Z};

    EditSet Edits(KC.pass().source().Path);
    unsigned Reads = 0, InMacros = 0;
    for (const BuiltinUse &U : builtinUses(Body, AC)) {
      if (U.Ref.Var != BuiltinVar::BlockDim)
        continue;
      if (U.InMacro) {
        ++InMacros;
        continue;
      }
      if (Error E = Edits.replaceChars(U.Begin, U.End - U.Begin,
                                       std::to_string(Extent[U.Ref.Dim]) + "u"))
        return KC.missed("blockDim not specialized: " + toString(std::move(E)));
      ++Reads;
    }
    if (Reads == 0)
      return KC.missed(InMacros ? "blockDim not specialized: it is read only "
                                  "in macros"
                                : "the kernel does not read blockDim");
    std::string Indent = Body->body_empty()
                             ? "  "
                             : indentOf(Body->body_front()->getBeginLoc(), AC);
    std::string Guard = "\n" + Indent +
                        "// kopt specialize-block: every launch in this file " +
                        "runs " + B.str() + " threads\n" + Indent +
                        "if (blockDim.x != " + std::to_string(B.X) +
                        "u || blockDim.y != " + std::to_string(B.Y) +
                        "u || blockDim.z != " + std::to_string(B.Z) + "u)\n" +
                        Indent + "  __trap();";
    if (Error E = Edits.insertAfterToken(Body->getLBracLoc(), Guard, AC))
      return KC.missed("blockDim not specialized: " + toString(std::move(E)));
    if (Error E = KC.edits().merge(Edits))
      return KC.missed("blockDim not specialized: " + toString(std::move(E)));
    std::string Msg =
        std::to_string(Reads) + (Reads == 1 ? " read" : " reads") +
        " of blockDim written as the " + B.str() + " block every launch runs";
    if (InMacros)
      Msg += " (" + std::to_string(InMacros) + " in macros left)";
    KC.applied(Msg + "; the kernel traps if a launch runs another block");
  }
};

} // namespace

std::unique_ptr<Pass> createSpecializeBlockPass() {
  return std::make_unique<SpecializeBlockPass>();
}

} // namespace kopt
