//===- WarpReduce.cpp - Shared-memory trees to warp shuffles --------------===//
//
// The first block reduction most kernels are written with is a tree in
// shared memory:
//
//   A[t] = v;                      // t is threadIdx.x
//   __syncthreads();
//   for (int s = blockDim.x / 2; s > 0; s >>= 1) {
//     if (t < s)
//       A[t] = op(A[t], A[t + s]);   // or A[t] += A[t + s]
//     __syncthreads();
//   }
//   ... A[0] read afterwards
//
// It runs log2(blockDim.x) barriers and as many rounds of shared-memory
// traffic. This pass replaces it with a butterfly of __shfl_xor_sync inside
// each warp, one shared slot per warp, and a second butterfly in the first
// warp over the slots: two barriers, and A[0] holds the total afterwards, as
// before.
//
// A floating-point sum in another order rounds differently, so by default
// (reassociate=false) it keeps its order: the rounds s >= 32 stay as they
// are, and the last five run in warp 0 as
//
//   r = A[lane];
//   for (o = 16; o > 0; o >>= 1)
//     r += __shfl_down_sync(~0u, r, o);
//
// Exact, bit for bit: after the round 2o, lane t < 2o holds A[t] of the
// tree (true for o = 16 after the shared rounds' last barrier), so in the
// round o lane t < o adds the two values the tree adds (+ commutes
// exactly); lanes >= o compute values nobody reads. It saves five
// barriers. Where the estimator reports that the kernel needs more
// registers with it (layernorm's staged loops: 48 -> 58), the tail is not
// kept (check-resources=true, the default). Its text and that check are in
// InOrderTail.cpp; the shuffle trees' text in ShuffleTreeText.cpp.
//
// Legality (each failure is a missed remark):
//   * the operator is +, or fmaxf/fminf/fmax/fmin/max/min, on float, double
//     or a 32/64-bit integer: max/min select one of their operands, so any
//     order gives the same value, and integer + is exact (modulo 2^n).
//     Floating-point + takes the in-order tail above, or the whole
//     rewrite under reassociate=true;
//   * every launch of the kernel (or, for a tree in a __device__ helper, of
//     every kernel that calls it) is in the file and uses a constant 1-D
//     block of a power of two of at least 32 threads: the original tree is
//     only right for powers of two, and the shuffles need whole warps.
//     __launch_bounds__ only bounds the block size, so it is not enough.
//     Where a kernel's block sizes are not known in the file, or the tree
//     starts from a variable B (`for (int s = B / 2; ...)`, llm.c's
//     block_size), the rewrite runs under a run-time check of the same
//     conditions (and of B == blockDim.x), the original tree in the else
//     branch; the check reads only values the whole block shares, so the
//     block takes one branch and reaches each branch's barriers together.
//     A tree from a constant C (`BLOCK / 2`: a macro or a constexpr) is the
//     same tree where C == blockDim.x: no check where every launch runs C
//     threads, refused where none does, else checked;
//   * the tree runs in uniform control flow: only compound statements
//     enclose it, no return precedes it and the function has no goto, so all
//     threads of every warp reach the shuffles together;
//   * the array is a __shared__ array of the function (or, in a helper, a
//     pointer parameter every caller passes such an array to), used only by
//     trees of this shape and by reads of A[0]: the rewrite leaves the other
//     elements with other values.
//
// Why A[0] reads stay right: outside the trees, only A[0] is read, and after
// each rewritten tree A[0] holds the same total. Inside, the rewrite writes
// A[w] (w < blockDim.x / 32) and A[0], a subset of the elements the original
// writes, all after the tree starts and before its final barrier, as the
// original's writes are; element 0 is first written by thread 0 in both, so
// a read of A[0] that the original separates from the tree with a barrier is
// separated from the rewrite's writes too. It ends with a barrier, as the
// original does, so what follows the tree (a reuse of A by the next tree, or
// memory another thread wrote before the tree) sees the same ordering.
//
//===----------------------------------------------------------------------===//

#include "Options.h"
#include "kopt/Analysis/CallSites.h"
#include "kopt/Analysis/ControlFlow.h"
#include "kopt/Analysis/ReductionTree.h"
#include "kopt/Analysis/SelectionReduction.h"
#include "kopt/Pass/Pass.h"

#include "InOrderTail.h"
#include "ShuffleTreeText.h"
#include "SourceLayout.h"
#include "TreeGuard.h"

#include "clang/AST/Attr.h"
#include "clang/AST/ParentMap.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <map>
#include <set>
#include <variant>

using namespace clang;
using namespace llvm;

namespace kopt {

namespace {

class WarpReducePass : public FilePass<WarpReduceOptions> {
  void runOnFile(PassContext &Ctx) override {
    ASTContext &AC = Ctx.deviceContext();
    KernelOf.clear();
    Tails.clear();
    for (const KernelInfo &K : Ctx.info().Kernels)
      KernelOf[K.Decl] = &K;
    Functions = findFunctionUses(AC);
    for (const FunctionDecl *F : Functions.Definitions) {
      auto KIt = KernelOf.find(F);
      if (KIt != KernelOf.end() && KIt->second->IsTemplate)
        runOnTemplate(Ctx, *KIt->second);
      else
        runOnFunction(Ctx, F);
    }
    keepTails(Ctx);
  }

  /// A template kernel with a tree is decided instantiation by instantiation
  /// (runOnInstances): each has the types and block sizes of its launches,
  /// and the template's text is rewritten only where every instantiation
  /// asks for the same text (which then names the template's parameters, as
  /// written, not their arguments). An in-order tail is checked against the
  /// resource estimate of its own instantiation at once.
  void runOnTemplate(PassContext &Ctx, const KernelInfo &K) {
    ASTContext &AC = Ctx.deviceContext();
    std::vector<ReductionTree> Trees;
    std::vector<Refusal> Refusals;
    findReductionTrees(K.Decl, AC, Trees, Refusals);
    std::vector<SelectionTree> Pairs;
    findSelectionTrees(K.Decl, AC, Pairs, Refusals);
    if (Trees.empty() && Pairs.empty() && Refusals.empty())
      return;
    std::vector<PlannedTail> Outer = std::move(Tails);
    runOnInstances(Ctx, K, [&](KernelContext &KC) {
      KernelOf[KC.kernel().Decl] = &KC.kernel();
      Tails.clear();
      runOnFunction(KC.pass(), KC.kernel().Decl);
      keepTails(KC.pass());
      KernelOf.erase(KC.kernel().Decl);
    });
    Tails = std::move(Outer);
  }

  /// The context of a tree in a kernel: its block sizes, and the array a
  /// local __shared__ one.
  std::variant<std::set<int64_t>, Refusal>
  checkKernelContext(PassContext &Ctx, const KernelInfo &K, const ValueDecl *A,
                     LineCol Loc) {
    const auto *V = dyn_cast<VarDecl>(A);
    if (!V || !V->isLocalVarDecl() || !V->hasAttr<CUDASharedAttr>())
      return Refusal{"'" + A->getNameAsString() +
                         "' is not a __shared__ array declared in '" + K.Name +
                         "'",
                     Loc};
    auto Sizes = warpMultipleBlockSizes(Ctx.info(), K);
    if (auto *Why = std::get_if<std::string>(&Sizes)) {
      // Sizes known only at run time: the rewrite checks them there (an
      // empty set); a launch known to misfit is refused.
      if (std::optional<std::string> Misfit = misfitLaunch(Ctx.info(), K))
        return Refusal{*Misfit, Loc};
      return std::set<int64_t>();
    }
    return std::get<std::set<int64_t>>(Sizes);
  }

  /// The context of a tree in a helper: every caller is a kernel of this
  /// file that calls it in uniform control flow, with a block size that
  /// fits, and passes a __shared__ array used only by calls to the helper
  /// and reads of element 0. Returns the block sizes of all callers.
  std::variant<std::set<int64_t>, Refusal>
  checkHelperContext(PassContext &Ctx, const FunctionDecl *F,
                     const ValueDecl *A, LineCol Loc) {
    ASTContext &AC = Ctx.deviceContext();
    const std::string Name = F->getNameAsString();
    if (F->hasAttr<CUDAHostAttr>() || !F->hasAttr<CUDADeviceAttr>())
      return Refusal{"'" + Name + "' is not a __device__-only function", Loc};
    const auto *Param = dyn_cast<ParmVarDecl>(A);
    const auto *Shared = dyn_cast<VarDecl>(A);
    bool SharedLocal = Shared && !Param && Shared->isLocalVarDecl() &&
                       Shared->hasAttr<CUDASharedAttr>();
    if (!SharedLocal && !(Param && Param->getType()->isPointerType()))
      return Refusal{"'" + A->getNameAsString() +
                         "' is neither a __shared__ array of '" + Name +
                         "' nor a pointer parameter",
                     Loc};
    auto It = Functions.Uses.find(F->getCanonicalDecl());
    if (It == Functions.Uses.end() || It->second.empty())
      return Refusal{"'" + Name +
                         "' is never called in this file: the "
                         "block size is unknown",
                     Loc};
    std::set<int64_t> Sizes;
    // Calls per kernel, to check the kernels' arrays once each.
    std::map<const FunctionDecl *, std::vector<const CallExpr *>> CallsIn;
    for (const FunctionUse &U : It->second) {
      LineCol At = lineCol(U.Ref->getBeginLoc(), AC);
      auto KIt = U.Caller ? KernelOf.find(U.Caller) : KernelOf.end();
      if (!U.Call || KIt == KernelOf.end())
        return Refusal{"'" + Name + "' is referenced at " + str(At) +
                           " other than by a call from a kernel of this file",
                       Loc};
      const KernelInfo &K = *KIt->second;
      if (K.IsTemplate)
        return Refusal{"'" + Name + "' is called from the template kernel '" +
                           K.Name + "'",
                       Loc};
      if (std::optional<Refusal> R =
              checkUniformControl(K.Decl, U.Call, "the call", AC))
        return Refusal{"in '" + K.Name + "', " + R->Message, Loc};
      auto KSizes = warpMultipleBlockSizes(Ctx.info(), K);
      if (auto *Why = std::get_if<std::string>(&KSizes))
        return Refusal{
            "'" + Name + "' is called from '" + K.Name + "': " + *Why, Loc};
      auto &S = std::get<std::set<int64_t>>(KSizes);
      Sizes.insert(S.begin(), S.end());
      CallsIn[K.Decl].push_back(U.Call);
    }
    if (SharedLocal)
      return Sizes;
    unsigned Index = Param->getFunctionScopeIndex();
    for (auto &[KDecl, Calls] : CallsIn) {
      std::set<std::pair<const CallExpr *, unsigned>> Allowed;
      for (const CallExpr *C : Calls) {
        const auto *Ref =
            Index < C->getNumArgs()
                ? dyn_cast<DeclRefExpr>(C->getArg(Index)->IgnoreParenImpCasts())
                : nullptr;
        const auto *V = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
        if (!V || !V->isLocalVarDecl() || !V->hasAttr<CUDASharedAttr>())
          return Refusal{"the call at " + str(lineCol(C->getBeginLoc(), AC)) +
                             " does not pass a __shared__ array of its "
                             "kernel as '" +
                             Param->getNameAsString() + "'",
                         Loc};
        Allowed.insert({C, Index});
      }
      // The kernel may use the array otherwise only to read element 0.
      for (const CallExpr *C : Calls) {
        const auto *V = cast<VarDecl>(
            cast<DeclRefExpr>(C->getArg(Index)->IgnoreParenImpCasts())
                ->getDecl());
        if (std::optional<Refusal> R =
                checkArrayUses(KDecl, V, {}, Allowed, AC))
          return Refusal{"in '" + KDecl->getNameAsString() + "', " + R->Message,
                         Loc};
      }
    }
    return Sizes;
  }

  void runOnFunction(PassContext &Ctx, const FunctionDecl *F) {
    ASTContext &AC = Ctx.deviceContext();
    std::string Name = F->getNameAsString();
    std::vector<ReductionTree> Trees;
    std::vector<Refusal> Shapeless;
    findReductionTrees(F, AC, Trees, Shapeless);
    // (value, index) trees: their own refusals replace the shape's.
    std::vector<SelectionTree> Pairs;
    std::vector<Refusal> PairRefusals;
    findSelectionTrees(F, AC, Pairs, PairRefusals);
    std::set<unsigned> PairLines;
    for (const SelectionTree &T : Pairs)
      PairLines.insert(T.Loc.Line);
    for (const Refusal &R : PairRefusals)
      PairLines.insert(R.Loc.Line);
    for (const Refusal &R : Shapeless)
      if (!PairLines.count(R.Loc.Line))
        Ctx.missed(Name, R.Loc, "tree not rewritten: " + R.Message);
    for (const Refusal &R : PairRefusals)
      Ctx.missed(Name, R.Loc, "tree not rewritten: " + R.Message);
    if (Trees.empty() && Pairs.empty())
      return;
    auto KIt = KernelOf.find(F);
    const KernelInfo *K = KIt == KernelOf.end() ? nullptr : KIt->second;
    if (F->isTemplated()) {
      for (const ReductionTree &T : Trees)
        Ctx.missed(Name, T.Loc,
                   "tree not rewritten: template functions are not handled");
      for (const SelectionTree &T : Pairs)
        Ctx.missed(Name, T.Loc,
                   "tree not rewritten: template functions are not handled");
      return;
    }
    for (const SelectionTree &T : Pairs)
      rewritePairIfLegal(Ctx, F, K, T);
    std::map<const ValueDecl *, std::variant<std::set<int64_t>, Refusal>>
        Contexts;
    for (const ReductionTree &T : Trees) {
      auto Refuse = [&](const Refusal &R) {
        Ctx.missed(Name, T.Loc, "tree not rewritten: " + R.Message);
      };
      if (std::optional<Refusal> R = checkTreeOperation(T, AC)) {
        Refuse(*R);
        continue;
      }
      if (std::optional<Refusal> R =
              checkUniformControl(F, T.Store, "the tree", AC)) {
        Refuse(*R);
        continue;
      }
      if (std::optional<Refusal> R =
              checkArrayUses(F, T.Array, Trees, {}, AC)) {
        Refuse(*R);
        continue;
      }
      auto CIt = Contexts.find(T.Array);
      if (CIt == Contexts.end())
        CIt = Contexts
                  .emplace(T.Array,
                           K ? checkKernelContext(Ctx, *K, T.Array, T.Loc)
                             : checkHelperContext(Ctx, F, T.Array, T.Loc))
                  .first;
      if (auto *R = std::get_if<Refusal>(&CIt->second)) {
        Refuse(*R);
        continue;
      }
      const auto &Sizes = std::get<std::set<int64_t>>(CIt->second);
      if (T.BlockSize &&
          (!K || (!isa<ParmVarDecl>(T.BlockSize) &&
                  !(T.BlockSize->getInit() &&
                    isBlockUniform(T.BlockSize->getInit(), F))))) {
        Refuse(Refusal{"the tree starts from '" +
                           T.BlockSize->getNameAsString() +
                           " / 2', which is not a kernel parameter or a local "
                           "the same in every thread of a block",
                       T.Loc});
        continue;
      }
      if (std::optional<Refusal> R = checkConstSize(T, Sizes)) {
        Refuse(*R);
        continue;
      }
      if (T.Add && T.Element->isFloatingType() && !options().Reassociate &&
          !T.Interleaved)
        planInOrderTail(Ctx, F, K, T, Sizes);
      else
        rewrite(Ctx, Name, T, Sizes);
    }
  }

  /// A first-index argmax/argmin tree (SelectionReduction.h): exact in
  /// any order, so no reassociate is needed.
  void rewritePairIfLegal(PassContext &Ctx, const FunctionDecl *F,
                          const KernelInfo *K, const SelectionTree &T) {
    ASTContext &AC = Ctx.deviceContext();
    std::string Name = F->getNameAsString();
    auto Refuse = [&](const Twine &Msg) {
      Ctx.missed(Name, T.Loc, "tree not rewritten: " + Msg.str());
    };
    if (!K)
      return Refuse("(value, index) trees are handled in kernels only, not "
                    "in the helper '" +
                    Name + "'");
    for (QualType Ty : {T.ValueType, T.IndexType})
      if (Ty.isVolatileQualified() || !isShuffleType(Ty.getUnqualifiedType()))
        return Refuse("the type '" + Ty.getAsString() +
                      "' is not one __shfl_xor_sync moves as a single value");
    for (const ValueDecl *D : {T.ValueArray, T.IndexArray})
      if (D->getName().starts_with("kopt_"))
        return Refuse("the tree uses names starting with 'kopt_', which the "
                      "rewrite declares");
    if (!isRewritable(T.FirstStore->getSourceRange(), AC) ||
        !isRewritable(T.Loop->getSourceRange(), AC))
      return Refuse("the tree is written in a macro");
    // Without one block-stride loop, two threads may hold +0.0 and -0.0 at
    // the same index; the index is right in any order, that value is not.
    if (!T.Feed && T.ValueRead && !T.ValueType->isIntegerType())
      return Refuse("'" + T.ValueArray->getNameAsString() +
                    "' is read after the tree and its pairs are not selected "
                    "by one block-stride loop: two threads could hold +0.0 "
                    "and -0.0 at one index, which shuffles may combine the "
                    "other way round");
    if (std::optional<Refusal> R =
            checkUniformControl(F, T.FirstStore, "the tree", AC))
      return Refuse(R->Message);
    auto Sizes = checkKernelContext(Ctx, *K, T.ValueArray, T.Loc);
    if (auto *R = std::get_if<Refusal>(&Sizes))
      return Refuse(R->Message);
    // (value, index) trees are rewritten for block sizes known here only.
    if (std::get<std::set<int64_t>>(Sizes).empty())
      return Refuse(
          std::get<std::string>(warpMultipleBlockSizes(Ctx.info(), *K)));
    rewritePair(Ctx, Name, T, std::get<std::set<int64_t>>(Sizes));
  }

  void rewritePair(PassContext &Ctx, StringRef Name, const SelectionTree &T,
                   const std::set<int64_t> &Sizes) {
    ASTContext &AC = Ctx.deviceContext();
    StringRef Code = Ctx.source().Code;
    auto StoreAt = stmtOffsets(T.FirstStore, AC);
    auto LoopAt = stmtOffsets(T.Loop, AC);
    if (!StoreAt || !LoopAt)
      return Ctx.missed(Name, T.Loc,
                        "tree not rewritten: it is written in a macro");
    std::string Out = selectionTreeText(T, AC, indentAt(Code, StoreAt->first));
    const PrintingPolicy &PP = AC.getPrintingPolicy();
    std::string V = T.ValueArray->getNameAsString();
    std::string I = T.IndexArray->getNameAsString();
    std::string Kind = T.Max ? "first-index max" : "first-index min";
    if (!replaceTree(Ctx, Name, T.Loc, StoreAt->first, LoopAt->second, Out))
      return;
    Ctx.applied(Name, T.Loc,
                "replaced the (value, index) tree over '" + V + "', '" + I +
                    "' (" + Kind + ", " +
                    T.ValueType.getUnqualifiedType().getAsString(PP) + ", " +
                    T.IndexType.getUnqualifiedType().getAsString(PP) +
                    ") with __shfl_xor_sync warp reductions and one slot per "
                    "warp, for blocks of " +
                    sizeList(Sizes) +
                    " threads; exact: only first-index selection updates "
                    "set the pairs, so any order keeps the same one");
  }

  /// Replaces the file's [Begin, End) (a tree) with Out; a missed remark
  /// and false when the edit conflicts with another.
  static bool replaceTree(PassContext &Ctx, StringRef Name, LineCol Loc,
                          unsigned Begin, unsigned End,
                          const std::string &Out) {
    if (Error E = Ctx.edits().replaceChars(Begin, End - Begin, Out)) {
      Ctx.missed(Name, Loc, "tree not rewritten: " + toString(std::move(E)));
      return false;
    }
    return true;
  }

  void rewrite(PassContext &Ctx, StringRef Name, const ReductionTree &T,
               const std::set<int64_t> &Sizes) {
    ASTContext &AC = Ctx.deviceContext();
    StringRef Code = Ctx.source().Code;
    auto StoreAt = stmtOffsets(T.Store, AC);
    auto LoopAt = stmtOffsets(T.end(), AC);
    if (!StoreAt || !LoopAt) {
      Ctx.missed(Name, T.Loc, "tree not rewritten: it is written in a macro");
      return;
    }
    std::string In = indentAt(Code, StoreAt->first);
    std::string A = T.Array->getNameAsString();
    std::string Elem =
        T.Element.getUnqualifiedType().getAsString(AC.getPrintingPolicy());
    bool Down = T.Interleaved;
    std::string Op = T.Add ? "+" : T.CalleeText;
    std::string Out = shuffleTreeText(T, AC, In);
    Out = guardedTree(T, Sizes, Out, Code, StoreAt->first, LoopAt->second, In);
    if (!replaceTree(Ctx, Name, T.Loc, StoreAt->first, LoopAt->second, Out))
      return;
    if (Down)
      return Ctx.applied(
          Name, T.Loc,
          "replaced the interleaved shared-memory tree over '" + A + "' (" +
              Op + ", " + Elem +
              ") with __shfl_down_sync warp reductions and one slot per "
              "warp, for blocks of " +
              sizeList(Sizes, T) +
              ": offsets 1, 2, 4, ... combine the pairs the tree combines, "
              "in its order (exact)");
    Ctx.applied(Name, T.Loc,
                "replaced the shared-memory tree over '" + A + "' (" + Op +
                    ", " + Elem +
                    ") with __shfl_xor_sync warp reductions "
                    "and one slot per warp, for blocks of " +
                    sizeList(Sizes, T) +
                    (T.Add && T.Element->isFloatingType()
                         ? "; the floating-point sum is reassociated"
                         : ""));
  }

  //===--------------------------------------------------------------------===//
  // In-order tails of floating-point sums (InOrderTail.h)
  //===--------------------------------------------------------------------===//

  void planInOrderTail(PassContext &Ctx, const FunctionDecl *F,
                       const KernelInfo *K, const ReductionTree &T,
                       const std::set<int64_t> &Sizes) {
    ASTContext &AC = Ctx.deviceContext();
    std::string Name = F->getNameAsString();
    auto StoreAt = stmtOffsets(T.Store, AC);
    auto LoopAt = stmtOffsets(T.end(), AC);
    if (!StoreAt || !LoopAt)
      return Ctx.missed(Name, T.Loc,
                        "tree not rewritten: it is written in a macro");
    std::string In = indentAt(Ctx.source().Code, StoreAt->first);
    std::string Out =
        guardedTree(T, Sizes, inOrderTailText(T, AC, In), Ctx.source().Code,
                    StoreAt->first, LoopAt->second, In);
    PlannedTail Planned(Ctx.source().Path);
    Planned.Function = Name;
    Planned.Loc = T.Loc;
    if (Error E = Planned.Edit.replaceChars(
            StoreAt->first, LoopAt->second - StoreAt->first, Out))
      return Ctx.missed(Name, T.Loc,
                        "tree not rewritten: " + toString(std::move(E)));
    if (K) {
      Planned.Kernels.insert(K->Name);
    } else {
      // checkHelperContext made sure every use is a call from a kernel.
      for (const FunctionUse &U : Functions.Uses[F->getCanonicalDecl()])
        Planned.Kernels.insert(KernelOf.at(U.Caller)->Name);
    }
    std::string Elem =
        T.Element.getUnqualifiedType().getAsString(AC.getPrintingPolicy());
    Planned.Message = "moved the last five rounds of the shared-memory tree "
                      "over '" +
                      T.Array->getNameAsString() + "' (+, " + Elem +
                      ") into warp 0 as __shfl_down_sync, for blocks of " +
                      sizeList(Sizes, T) +
                      ": each lane adds the pair the tree adds, in "
                      "the same order (exact; reassociate=true rewrites the "
                      "whole tree)";
    Tails.push_back(std::move(Planned));
  }

  /// Merges the tails the resource check kept; missed remarks for the
  /// others.
  void keepTails(PassContext &Ctx) {
    if (Tails.empty())
      return;
    if (options().CheckResources)
      checkTailResources(Ctx, Tails);
    for (PlannedTail &T : Tails) {
      if (!T.Refused)
        if (Error E = Ctx.edits().merge(T.Edit))
          T.Refused = toString(std::move(E));
      if (T.Refused)
        Ctx.missed(T.Function, T.Loc, "tree not rewritten: " + *T.Refused);
      else
        Ctx.applied(T.Function, T.Loc, T.Message + T.Note);
    }
  }

  FunctionUses Functions;
  std::map<const FunctionDecl *, const KernelInfo *> KernelOf;
  std::vector<PlannedTail> Tails;
};

} // namespace

std::unique_ptr<Pass> createWarpReducePass() {
  return std::make_unique<WarpReducePass>();
}

} // namespace kopt
