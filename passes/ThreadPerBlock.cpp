//===- ThreadPerBlock.cpp - Each block of a kernel in one thread ----------===//
//
// A kernel that gives each output a block (`pos = blockIdx.x`) and lets the
// block's threads walk a short axis with a large stride (the channels of an
// NCHW tensor, h*w elements apart) reads neighbouring addresses from
// neighbouring *blocks*, not threads: every warp load touches 32 distant
// lines, and most of a 256-thread block idles when the axis is 64 long.
// This pass adds a copy, `<kernel>_kopt_threads`, that runs each block of
// the original as one thread, P consecutive blocks in the P threads of a new
// block, so neighbouring threads read neighbouring addresses:
//
//   __global__ void __launch_bounds__(P) k_kopt_threads(..., unsigned
//   kopt_blocks) {
//     const unsigned kopt_block = blockIdx.x * blockDim.x + threadIdx.x;
//     if (kopt_block >= kopt_blocks)
//       return;
//     ... the body with threadIdx.x -> 0u, blockDim.x -> 1u,
//         blockIdx.x -> kopt_block, gridDim.x -> kopt_blocks,
//         __syncthreads() -> (void)0, __shared__ variables the thread's own
//         (an array of one slot a thread shrinks to one element) ...
//   }
//
// and each launch `k<<<grid, block, 0, s>>>(a)` runs it when the grid fits:
// `k_kopt_threads<<<(grid + P - 1) / P, P, 0, s>>>(a, grid)`.
//
// Legality: the block's code must compute the same with one thread as with
// its B (BlockSizeLegality.h: written in terms of blockDim.x, floating-point
// sums split by the block size only with reassociate=true), blockIdx.x read
// on its own (a block an output), and, since one thread now plays the whole
// block: no warp collectives, no barrier other than __syncthreads (its
// variants count or vote across the block), no comparison of threadIdx.x
// with a constant above 1 and no shared-memory subscript of threadIdx.x plus
// a constant (warp-synchronous code that reads another thread's slot), no
// atomics on shared memory (the variables become the thread's own), shared
// variables of at most 256 bytes a thread besides the per-thread arrays, no
// dynamic shared memory, every builtin and barrier in the kernel's own body
// (not in functions it calls). Profitability: some global access is strided
// across the block's threads (IndexClassifier), else nothing is gained.
//
//===----------------------------------------------------------------------===//

#include "BlockSizeChange.h"
#include "BlockSizeLegality.h"
#include "Options.h"
#include "ScaledLaunch.h"
#include "SourceLayout.h"
#include "kopt/Analysis/BlockGuard.h"
#include "kopt/Analysis/BodyHazards.h"
#include "kopt/Pass/Pass.h"

#include "clang/AST/Attr.h"
#include "clang/AST/TypeLoc.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/DenseSet.h"

using namespace clang;
using namespace llvm;

namespace kopt {

namespace {

using Replacement = std::tuple<unsigned, unsigned, std::string>;

const char *const ThreadsSuffix = "_kopt_threads";

/// Shared variables a thread may copy, besides one-slot-a-thread arrays.
constexpr uint64_t MaxPrivateSharedBytes = 256;

class ThreadPerBlockPass : public KernelPass<ThreadPerBlockOptions> {
  bool rewritesInstances() const override { return true; }

  void runOnKernel(KernelContext &KC) override {
    const KernelInfo &K = KC.kernel();
    unsigned P = options().Block;
    auto Missed = [&](LineCol At, const Twine &Why) {
      KC.missed(At, "block-per-output kernel not run a thread a block: " + Why);
    };
    if (P < 32 || P > 1024 || P % 32)
      return Missed(K.Loc, "block=" + Twine(P) +
                               " is not a multiple of 32 from 32 to 1024");
    if (StringRef(K.Name).contains(ThreadsSuffix))
      return;
    std::string NewName = K.Name + ThreadsSuffix;
    if (KC.info().kernel(NewName))
      return Missed(K.Loc, "'" + NewName + "' exists already");
    if (std::optional<BlockExtents> G = findBlockGuard(K.Decl))
      return Missed(K.Loc, "the kernel is specialized to its " + G->str() +
                               " block (specialize-block's guard): run "
                               "thread-per-block before specialize-block");
    std::variant<int64_t, std::string> B = launchBlockSize(KC.pass(), K);
    if (auto *Why = std::get_if<std::string>(&B))
      return Missed(K.Loc, *Why);
    if (std::optional<std::string> Why = blockPassedToParameter(KC.info(), K))
      return Missed(K.Loc, *Why);
    ASTContext &DC = KC.deviceContext();
    std::variant<BlockSizeFacts, std::string> Facts =
        blockSizeFacts(DC, K, std::get<int64_t>(B), options().Reassociate,
                       /*LiteralSizes=*/false);
    if (auto *Why = std::get_if<std::string>(&Facts))
      return Missed(K.Loc, *Why);
    const BlockSizeFacts &F = std::get<BlockSizeFacts>(Facts);
    if (F.Grid != GridUse::PerBlock)
      return Missed(K.Loc, F.Grid == GridUse::None
                               ? "the kernel does not read blockIdx.x"
                               : "blockIdx.x is combined with blockDim.x "
                                 "(a thread an element, not a block an "
                                 "output)");
    if (std::optional<Refusal> Why = checkOneThread(K, F, DC))
      return KC.refused(*Why, "block-per-output kernel not run a thread a "
                              "block: ");
    if (!hasStridedAccess(K))
      return Missed(K.Loc, "no global access is strided across the block's "
                           "threads: they read neighbouring addresses "
                           "already");
    std::vector<const LaunchSite *> Launches = KC.info().launchesOf(K.Name);
    for (const LaunchSite *L : Launches)
      if (L->SharedBytes.Expr && L->SharedBytes.Value.X.value_or(1) != 0)
        return Missed(L->Loc, "the launch at " + str(L->Loc) +
                                  " passes dynamic shared memory");
    for (const BuiltinUse &U : builtinUses(K.Decl->getBody(), DC))
      if (U.Ref.Dim != 0)
        return Missed(K.Loc, "it reads " +
                                 std::string(U.Ref.Var == BuiltinVar::BlockIdx
                                                 ? "blockIdx"
                                                 : "gridDim") +
                                 "." + (U.Ref.Dim == 1 ? "y" : "z") +
                                 " (a grid of more than one dimension): the "
                                 "copy runs the original's blocks along x "
                                 "alone");
    std::optional<std::string> Copy = copyText(K, F, P, DC, KC.code());
    if (!Copy)
      return Missed(K.Loc, "part of the kernel is written in a macro");
    EditSet Edits(KC.pass().source().Path);
    SourceLocation End =
        DC.getSourceManager().getExpansionLoc(K.Decl->getBody()->getEndLoc());
    if (Error E = Edits.insertAfterToken(End, "\n\n" + *Copy, DC))
      return Missed(K.Loc, toString(std::move(E)));
    ScaledLaunchSpec Spec;
    Spec.PackThreads = P;
    Spec.FastSuffix = ThreadsSuffix;
    Spec.Comment = "kopt thread-per-block: each block in one thread, " +
                   std::to_string(P) + " blocks a block, when the grid fits";
    for (const LaunchSite *L : Launches)
      if (std::optional<std::string> Why =
              replaceWithScaledLaunch(*L, Spec, KC.hostContext(), Edits))
        return Missed(L->Loc, *Why);
    if (Error E = KC.edits().merge(Edits))
      return Missed(K.Loc, toString(std::move(E)));
    KC.applied(K.Loc,
               "'" + NewName + "' runs each " + Twine(std::get<int64_t>(B)) +
                   "-thread block of '" + K.Name + "' in one thread, " +
                   Twine(P) + " blocks a block: neighbouring threads take " +
                   "neighbouring blocks; " + Twine(Launches.size()) +
                   " launch" + (Launches.size() == 1 ? "" : "es") +
                   " run it when the grid fits" +
                   (options().Reassociate
                        ? " (floating-point sums split by the block size "
                          "are added in one thread's order)"
                        : ""));
  }

  /// What one thread cannot do in place of a block (see the file comment).
  static std::optional<Refusal>
  checkOneThread(const KernelInfo &K, const BlockSizeFacts &F, ASTContext &DC) {
    auto Refuse = [&](const Stmt *At, const Twine &Why) {
      return Refusal{Why.str(), lineCol(At->getBeginLoc(), DC)};
    };
    for (const FunctionDecl *Fn : F.Code) {
      const Stmt *Body = Fn->getBody();
      bool Kernel = Fn == K.Decl;
      if (std::optional<BodyHazard> H = firstHazard(
              Body, DC, {BodyHazard::WarpCollective, BodyHazard::ReservedName},
              "kopt_"))
        return Refuse(H->At, "'" + H->Name + "' works across threads");
      if (!Kernel)
        if (std::optional<BodyHazard> H = firstHazard(
                Body, DC, {BodyHazard::Barrier, BodyHazard::ThreadIndex}))
          return Refuse(H->At, "'" + Fn->getNameAsString() +
                                   "', which the kernel calls, reads '" +
                                   H->Name + "'");
    }
    DenseSet<const VarDecl *> PerThread;
    for (const PerThreadArray &A : F.PerThreadArrays)
      PerThread.insert(A.Var);
    std::optional<Refusal> Why;
    uint64_t PrivateBytes = 0;
    forEachSubStmt(K.Decl->getBody(), [&](const Stmt *S) {
      if (Why)
        return;
      if (const auto *C = dyn_cast<CallExpr>(S)) {
        const FunctionDecl *Callee = C->getDirectCallee();
        StringRef Name =
            Callee && Callee->getIdentifier() ? Callee->getName() : StringRef();
        if (isBarrierCall(S) && Name != "__syncthreads")
          Why = Refuse(S, "'" + Name + "' counts or votes across the block");
        else if (Name.starts_with("atomic") && C->getNumArgs() > 0 &&
                 readsShared(C->getArg(0)))
          Why = Refuse(S, "'" + Name + "' works on shared memory");
      } else if (const auto *Cmp = dyn_cast<BinaryOperator>(S);
                 Cmp && Cmp->isComparisonOp()) {
        for (auto [Side, Other] : {std::pair(Cmp->getLHS(), Cmp->getRHS()),
                                   std::pair(Cmp->getRHS(), Cmp->getLHS())})
          if (std::optional<int64_t> C =
                  evaluateInt(Other, DC, K.Decl->getBody());
              C && *C > 1 && isBuiltin(stripCasts(Side), BuiltinVar::ThreadIdx))
            Why = Refuse(S, "it compares threadIdx.x with the constant " +
                                Twine(*C) + ", which one thread never reaches");
      } else if (const auto *Sub = dyn_cast<ArraySubscriptExpr>(S)) {
        if (readsShared(Sub->getBase()) &&
            offsetFromThread(Sub->getIdx(), DC, K.Decl->getBody()))
          Why = Refuse(S, "'" + oneLine(sourceText(S->getSourceRange(), DC)) +
                              "' reads another thread's slot at a fixed "
                              "distance");
      } else if (const auto *DS = dyn_cast<DeclStmt>(S)) {
        for (const Decl *D : DS->decls())
          if (const auto *V = dyn_cast<VarDecl>(D);
              V && V->hasAttr<CUDASharedAttr>() && !PerThread.count(V))
            PrivateBytes += DC.getTypeSizeInChars(V->getType()).getQuantity();
        if (PrivateBytes > MaxPrivateSharedBytes)
          Why = Refuse(S, "its shared variables besides the per-thread "
                          "arrays hold " +
                              Twine(PrivateBytes) +
                              " bytes, each thread's own copy would be "
                              "too large");
      }
    });
    return Why;
  }

  /// E names a __shared__ variable (through subscripts and casts).
  static bool readsShared(const Expr *E) {
    E = E->IgnoreParenImpCasts();
    while (true) {
      if (const auto *A = dyn_cast<ArraySubscriptExpr>(E))
        E = A->getBase()->IgnoreParenImpCasts();
      else if (const auto *U = dyn_cast<UnaryOperator>(E);
               U && U->getOpcode() == UO_AddrOf)
        E = U->getSubExpr()->IgnoreParenImpCasts();
      else
        break;
    }
    const VarDecl *V = referencedVar(E);
    return V && V->hasAttr<CUDASharedAttr>();
  }

  /// `threadIdx.x + C` or `threadIdx.x - C` (either order), C a non-zero
  /// constant.
  static bool offsetFromThread(const Expr *Index, ASTContext &DC,
                               const Stmt *Scope) {
    const auto *B = dyn_cast<BinaryOperator>(stripCasts(Index));
    if (!B || !B->isAdditiveOp())
      return false;
    for (auto [T, C] : {std::pair(B->getLHS(), B->getRHS()),
                        std::pair(B->getRHS(), B->getLHS())}) {
      std::optional<int64_t> V = evaluateInt(C, DC, Scope);
      if (V && *V != 0 && isBuiltin(stripCasts(T), BuiltinVar::ThreadIdx))
        return true;
    }
    return false;
  }

  static bool hasStridedAccess(const KernelInfo &K) {
    return any_of(K.Accesses, [](const AccessInfo &A) {
      return A.Class.K == IndexClass::Strided &&
             A.Class.Stride.value_or(2) != 1;
    });
  }

  /// The kernel's definition renamed and rewritten for one thread a block.
  static std::optional<std::string> copyText(const KernelInfo &K,
                                             const BlockSizeFacts &F,
                                             unsigned P, ASTContext &Ctx,
                                             StringRef Code) {
    const SourceManager &SM = Ctx.getSourceManager();
    const FunctionDecl *Fn = K.Decl;
    FunctionTypeLoc FTL = Fn->getFunctionTypeLoc();
    std::optional<DefinitionLayout> D = definitionLayout(Fn, Ctx);
    if (!FTL || !D)
      return std::nullopt;
    const CompoundStmt *Body = D->Body;
    unsigned Begin = D->Begin, End = D->End;
    const std::string &In = D->Indent;
    std::vector<Replacement> Edits = {
        {D->NameEnd, 0, ThreadsSuffix},
        {SM.getFileOffset(FTL.getRParenLoc()), 0,
         Fn->param_empty() ? "unsigned kopt_blocks" : ", unsigned kopt_blocks"},
        {D->BodyStart, 0,
         "\n" + In +
             "// kopt thread-per-block: this thread runs block kopt_block "
             "of the original alone.\n" +
             In +
             "const unsigned kopt_block = blockIdx.x * blockDim.x + "
             "threadIdx.x;\n" +
             In + "if (kopt_block >= kopt_blocks)\n" + In + "  return;"}};
    auto Bounds = launchBoundsReplacement(Fn, P, Ctx);
    if (!Bounds)
      return std::nullopt;
    Edits.push_back(*Bounds);
    std::vector<BuiltinUse> Uses = builtinUses(Body, Ctx);
    if (anyInMacro(Uses))
      return std::nullopt;
    for (const BuiltinUse &U : Uses) {
      const char *Text = U.Ref.Var == BuiltinVar::ThreadIdx  ? "0u"
                         : U.Ref.Var == BuiltinVar::BlockDim ? "1u"
                         : U.Ref.Var == BuiltinVar::BlockIdx ? "kopt_block"
                                                             : "kopt_blocks";
      if (U.Ref.Dim != 0)
        return std::nullopt; // blockSizeFacts refuses y and z of a block
      Edits.emplace_back(U.Begin, U.End - U.Begin, Text);
    }
    DenseSet<const VarDecl *> PerThread;
    for (const PerThreadArray &A : F.PerThreadArrays) {
      PerThread.insert(A.Var);
      // Between the brackets: the size may be a macro (`[N_THREADS]`).
      unsigned L = SM.getFileOffset(SM.getExpansionLoc(A.Brackets.getBegin()));
      unsigned R = SM.getFileOffset(SM.getExpansionLoc(A.Brackets.getEnd()));
      if (R <= L)
        return std::nullopt;
      Edits.emplace_back(L + 1, R - L - 1, "1");
    }
    bool Ok = true;
    DenseSet<unsigned> Unshared; // one edit for `__shared__ T a, b;`
    forEachSubStmt(Body, [&](const Stmt *S) {
      if (!Ok)
        return;
      if (isBarrierCall(S)) {
        auto At = exprOffsets(cast<Expr>(S), Ctx);
        Ok = At.has_value();
        if (Ok)
          Edits.emplace_back(At->first, At->second - At->first, "(void)0");
      } else if (const auto *DS = dyn_cast<DeclStmt>(S)) {
        for (const Decl *D : DS->decls())
          if (const auto *A = D->getAttr<CUDASharedAttr>()) {
            auto At = attrOffsets(A, Ctx);
            Ok &= At.has_value();
            if (!At)
              continue;
            auto [From, To] = *At;
            // Also the space after the attribute.
            if (To < Code.size() && Code[To] == ' ')
              ++To;
            if (Unshared.insert(From).second)
              Edits.emplace_back(From, To - From, "");
          }
      }
    });
    if (!Ok)
      return std::nullopt;
    for (const auto &[Offset, Length, Text] : Edits)
      if (Offset < Begin || Offset + Length > End)
        return std::nullopt;
    return splice(Code, Begin, End, std::move(Edits));
  }
};

} // namespace

std::unique_ptr<Pass> createThreadPerBlockPass() {
  return std::make_unique<ThreadPerBlockPass>();
}

} // namespace kopt
