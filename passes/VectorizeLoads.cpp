//===- VectorizeLoads.cpp - 16-byte global loads and stores ---------------===//
//
// Element-wise kernels that load and store one 4-byte or 2-byte element per
// access issue four to eight times more memory instructions than needed.
// This pass gives each thread W consecutive elements and moves them with one
// 16-byte access per pointer (float4, or uint4 carrying 8 halves).
//
// Two shapes are recognized:
//   * a grid-stride loop `for (T i = gid; i < n; i += blockDim.x * gridDim.x)`
//     (its trip count adapts to the grid, so the launch is unchanged);
//   * one element per thread, `T i = gid; if (i < n) { ... }`: the kernel
//     then covers W elements per thread and every launch site's grid is
//     divided by W (rounded up), so all elements are still covered.
// Both get a scalar tail for sizes that are not multiples of W and fall back
// to the original scalar code when a pointer is not aligned to the vector.
// A `__shared__` array the region only reads at `a[i]` is read as vectors
// too when it is declared aligned to them (VectorPlan::SharedReads):
// shared-cache's row in rmsnorm_bf16 went from 82% to 85% of the copy
// bandwidth with it, on an H100 (bank conflicts of the 2-byte reads gone).
//
// Legality (each failure is a missed remark):
//   * every access to a vectorized pointer is exactly `p[i]` with the
//     element index i; other pointers are only read;
//   * the element computation has no barrier, warp collective, return,
//     break/continue of the loop, or use of thread/block indices (the
//     element-to-thread mapping changes);
//   * a store may not alias another access through another pointer: both
//     shapes accept __restrict__ pointers. Loops also accept plain pointers
//     accessed only element-wise: the rewritten loop runs where each stored
//     range [base, base + n) overlaps no other one, checked at run time
//     beside the alignment (DisjointRanges.h), the original loop otherwise.
//     One-element-per-thread kernels accept plain pointers when, in each
//     element, all loads precede the stores: exact aliasing (in-place) then
//     reads the same values, and any partial overlap would already be a
//     data race between threads in the original kernel;
//   * a loop's condition is `i < n` (not `<=`);
//   * the index type is at least 32 bits and as wide as the bound's type,
//     so `v * W + e` stays below the bound and cannot overflow.
//
//===----------------------------------------------------------------------===//

#include "Options.h"
#include "kopt/Pass/Pass.h"

#include "DisjointRanges.h"
#include "SourceLayout.h"
#include "VectorCarrier.h"
#include "VectorCode.h"
#include "kopt/Analysis/BlockParams.h"
#include "kopt/Analysis/ElementwiseLoop.h"
#include "kopt/Analysis/PartialCombine.h"
#include "kopt/Analysis/ReductionTree.h"
#include "kopt/Analysis/SelectionReduction.h"

#include "clang/AST/ParentMap.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <map>

using namespace clang;
using namespace llvm;

namespace kopt {

namespace {

/// Loops of at most this many iterations may sit in a one-element-per-thread
/// region that is vectorized (a 3 x 3 stencil, a 2 x 2 x 2 pool window).
constexpr int64_t MaxInnerTrips = 16;

class VectorizeLoadsPass : public KernelPass<VectorizeLoadsOptions> {
  bool rewritesInstances() const override { return true; }

  void runOnKernel(KernelContext &KC) override {
    PassContext &Ctx = KC.pass();
    const KernelInfo &K = KC.kernel();
    if (!K.Decl->getBody())
      return;
    if (declaresVectorCarrier(K.Decl->getBody(), Ctx.deviceContext())) {
      Ctx.missed(K.Name, K.Loc,
                 "'" + K.Name + "' was already vectorized by kopt");
      return;
    }
    bool Found = false;
    for (const LoopInfo &L : K.Loops) {
      if ((L.K != LoopInfo::GridStride && L.K != LoopInfo::BlockStride) ||
          !L.For)
        continue;
      Found = true;
      vectorizeStridedLoop(Ctx, K, L);
    }
    if (Found)
      return;
    for (const LoopInfo &L : K.Loops)
      if (L.K == LoopInfo::Counted &&
          (L.ThreadStartConstStep.value_or(0) >= 32 || L.ThreadStartParamStep ||
           L.GridStartConstBlock)) {
        // `i += BLOCK`, `i += block_size`, `i += BLOCK * gridDim.x`:
        // block- and grid-stride loops only where that is blockDim.x.
        Ctx.missed(K.Name, L.Loc,
                   "loop not vectorized: " +
                       whyStepIsNotBlockSize(Ctx.info(), K, L));
        Found = true;
      }
    if (std::optional<ElementRegion> R = matchOnePerThread(K)) {
      vectorizeOnePerThread(Ctx, K, *R);
      return;
    }
    if (!Found)
      Ctx.missed(K.Name, K.Loc,
                 "no grid-stride or block-stride loop and no "
                 "one-element-per-thread guard "
                 "'T i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) "
                 "{...}' (or 'if (i >= n) return;' and one statement) in '" +
                     K.Name + "'");
  }

  void vectorizeStridedLoop(PassContext &Ctx, const KernelInfo &K,
                            const LoopInfo &L) {
    ASTContext &AC = Ctx.deviceContext();
    StringRef Code = Ctx.source().Code;
    std::string What =
        (LoopInfo::kindName(L.K) + " loop not vectorized: ").str();
    std::optional<CountedLoop> CL = matchCountedLoop(L.For);
    if (!CL || !isa<DeclStmt>(L.For->getInit())) {
      Ctx.missed(K.Name, L.Loc,
                 What + "it does not declare its index in its init statement");
      return;
    }
    if (CL->Inclusive) {
      Ctx.missed(K.Name, L.Loc,
                 What + "its condition includes the bound ('<='); only "
                        "'i < n' is handled");
      return;
    }
    // Threads must start at S, S+1, ..., S+STEP-1 so that they partition the
    // range: vector v then covers elements [S+v*W, S+v*W+W) exactly once.
    // S is 0, or a block's start `S + threadIdx.x` written in the init
    // (cluster-split's parts, a chunk of a row).
    const Expr *ThreadStart = CL->Init, *Start = nullptr;
    if (L.K == LoopInfo::BlockStride &&
        !isBuiltin(stripCasts(followLocalInit(stripCasts(CL->Init),
                                              K.Decl->getBody())),
                   BuiltinVar::ThreadIdx)) {
      const auto *Add = dyn_cast<BinaryOperator>(stripCasts(CL->Init));
      if (Add && Add->getOpcode() == BO_Add)
        for (auto [Tid, Rest] : {std::pair(Add->getRHS(), Add->getLHS()),
                                 std::pair(Add->getLHS(), Add->getRHS())})
          if (isBuiltin(Tid, BuiltinVar::ThreadIdx) &&
              !hasSideEffects(Rest, AC) &&
              classifyIndex(Rest, K.Decl, AC).K == IndexClass::Uniform &&
              Rest->getType()->isIntegerType()) {
            ThreadStart = Tid;
            Start = Rest;
          }
      if (!Start) {
        Ctx.missed(K.Name, L.Loc,
                   What + "it starts at an offset from threadIdx.x that is "
                          "not written in its init as 'start + "
                          "threadIdx.x'");
        return;
      }
      if (isTailStart(Start, CL->Bound, AC)) {
        Ctx.missed(K.Name, L.Loc,
                   What + "it starts at '" + sourceOrPrinted(Start, AC) +
                       "', the scalar tail of a vector loop: fewer elements "
                       "than a vector");
        return;
      }
    }
    ElementRegion R;
    R.Var = CL->Var;
    R.Body = L.For->getBody();
    R.Bound = CL->Bound;
    R.PerBlock = L.K == LoopInfo::BlockStride;
    // A first-index argmax/argmin carries (v, idx) exactly: what the block
    // computes does not depend on which thread visits which element.
    std::string Exact;
    if (L.K == LoopInfo::BlockStride) {
      std::vector<SelectionTree> Trees;
      std::vector<Refusal> Ignored;
      findSelectionTrees(K.Decl, AC, Trees, Ignored);
      for (const SelectionTree &T : Trees) {
        if (T.Feed != L.For)
          continue;
        auto Sizes = warpMultipleBlockSizes(Ctx.info(), K);
        if (auto *Why = std::get_if<std::string>(&Sizes)) {
          if (options().Reassociate)
            break; // the partials' rule below decides
          Ctx.missed(K.Name, L.Loc,
                     What + "it selects a first-index " +
                         (T.Max ? "maximum" : "minimum") +
                         ", which only a tree over a power-of-two block "
                         "combines the same way whatever thread saw which "
                         "element: " +
                         *Why);
          return;
        }
        Exact = "; the first-index " +
                std::string(T.Max ? "maximum" : "minimum") + " ('" +
                T.Value->getNameAsString() + "', '" +
                T.Index->getNameAsString() +
                "') is exact whatever thread "
                "visits which element";
      }
    }
    Decision<VectorPlan> Plan =
        planVectorAccesses(K, R, Ctx.deviceContext(), options().Width,
                           options().Reassociate || !Exact.empty());
    if (auto *Why = std::get_if<Refusal>(&Plan)) {
      Ctx.missed(K.Name, Why->Loc, What + Why->Message);
      return;
    }
    if (std::optional<Refusal> Why = readBackElsewhere(K, R, AC)) {
      Ctx.missed(K.Name, Why->Loc, What + Why->Message);
      return;
    }
    // reassociate=true: each thread's partials change; only their combine
    // may read them (PartialCombine.h).
    if (options().Reassociate && Exact.empty()) {
      PartialScope Scope;
      Scope.Grid = L.K == LoopInfo::GridStride;
      auto Sizes = warpMultipleBlockSizes(Ctx.info(), K);
      const auto *Known = std::get_if<std::set<int64_t>>(&Sizes);
      Scope.OneWarpBlocks = Known && *Known == std::set<int64_t>{32};
      if (Known && Known->size() == 1)
        Scope.BlockX = *Known->begin();
      for (unsigned I = 0; I < K.Decl->getNumParams(); ++I)
        if (whyParamIsNotBlockX(Ctx.info(), K, I).empty())
          Scope.BlockXParams.insert(K.Decl->getParamDecl(I));
      if (std::optional<Refusal> Why =
              checkPartialsCombined(K.Decl, L.For, Scope, AC)) {
        Ctx.missed(K.Name, Why->Loc, What + Why->Message);
        return;
      }
    }
    // With a start, every range begins at element kopt_lo.
    VectorPlan P = std::get<VectorPlan>(Plan);
    if (Start)
      for (VectorPointer &V :
           concat<VectorPointer>(P.Pointers, P.SharedReads)) {
        V.Offset =
            V.Offset.empty() ? "kopt_lo" : "(" + V.Offset + ") + kopt_lo";
        V.StaticallyAligned = false;
      }
    // A head written by a macro (`CUDA_KERNEL_LOOP(i, n)`) is replaced with
    // the body; its copy keeps the macro as written.
    std::optional<std::pair<unsigned, unsigned>> LoopRange =
        stmtOffsets(L.For, AC);
    if (!LoopRange)
      LoopRange = macroHeadLoopOffsets(L.For, AC);
    if (!LoopRange) {
      Ctx.missed(K.Name, L.Loc,
                 What + "it is written in a macro (one whose expansion is "
                        "the loop's whole head, the body written after it, "
                        "is rewritten)");
      return;
    }
    if (hasSideEffects(CL->Init, AC) || hasSideEffects(CL->Step, AC) ||
        (Start && hasSideEffects(CL->Bound, AC))) {
      Ctx.missed(K.Name, L.Loc,
                 What + "its init or step has side effects (they are "
                        "evaluated again for the scalar tail)");
      return;
    }
    std::string Indent = indentAt(Code, LoopRange->first);
    std::string I1 = Indent + "  ", I2 = Indent + "    ",
                I3 = Indent + "      ";
    std::string IndexType = typeAsWritten(R.Var->getType().getUnqualifiedType(),
                                          PrintingPolicy(AC.getLangOpts()));
    std::string W = std::to_string(P.Width);
    std::string Init = sourceOrPrinted(ThreadStart, AC);
    std::string Step = sourceOrPrinted(CL->Step, AC);
    std::string Bound = sourceOrPrinted(CL->Bound, AC);
    std::string Var = R.Var->getNameAsString();
    std::string Error;
    std::string Vector = vectorCode(Ctx, R, P, "kopt_v", IndexType, I3, Error,
                                    Start ? "kopt_lo" : "");
    std::optional<std::pair<unsigned, unsigned>> BodyRange =
        stmtOffsets(R.Body, AC);
    if (!BodyRange)
      Error = "its body is written in a macro";
    if (!Error.empty()) {
      Ctx.missed(K.Name, L.Loc, What + Error);
      return;
    }
    // Copies of the loop move from Indent to I2.
    std::string Deeper = I2.substr(Indent.size());
    std::string ScalarBody =
        (isa<CompoundStmt>(R.Body) ? " " : "\n" + I3) +
        reindent(Code.slice(BodyRange->first, BodyRange->second), Deeper);
    std::string Original =
        reindent(Code.slice(LoopRange->first, LoopRange->second), Deeper);

    // The elements [Lo, kopt_n) as Count vectors of W and a tail.
    std::string Lo = Start ? "kopt_lo + " : "";
    std::string Count = Start ? "(kopt_n - kopt_lo)" : "kopt_n";
    std::string Check = alignmentCheck(P, I1 + "    ");
    if (Start)
      Check = "kopt_lo <= kopt_n && " + Check;
    for (const std::string &Term : disjointRangeTerms(P, Count, I1 + "    "))
      Check += " &&\n" + I1 + "    " + Term;
    std::string Text =
        "{\n" + I1 + "// kopt vectorize-loads: " + W +
        " elements per access and a scalar tail;\n" + I1 +
        (P.Disjoint.empty()
             ? "// the original loop runs when a pointer is not aligned.\n"
             : "// the original loop runs when a pointer is not aligned or "
               "a stored\n" +
                   I1 + "// range overlaps a loaded one.\n") +
        I1 + "const auto kopt_n = " + Bound + ";\n" +
        (Start ? I1 + "const " + IndexType +
                     " kopt_lo = " + sourceOrPrinted(Start, AC) + ";\n"
               : "") +
        I1 + "if (" + Check + ") {\n" + I2 + "for (" + IndexType +
        " kopt_v = " + Init + "; kopt_v < " + Count + " / " + W +
        "; kopt_v += " + Step + ") {\n" + Vector + I2 + "}\n" + I2 + "for (" +
        IndexType + " " + Var + " = " + Lo + Count + " / " + W + " * " + W +
        " + " + Init + "; " + Var + " < kopt_n; " + Var + " += " + Step + ")" +
        ScalarBody + "\n" + I1 + "} else {\n" + I2 + Original + "\n" + I1 +
        "}\n" + Indent + "}";
    if (llvm::Error E = Ctx.edits().replaceChars(
            LoopRange->first, LoopRange->second - LoopRange->first, Text)) {
      Ctx.missed(K.Name, L.Loc, What + toString(std::move(E)));
      return;
    }
    Ctx.applied(K.Name, L.Loc,
                "vectorized the " + LoopInfo::kindName(L.K) + " loop: " +
                    describeVectors(P) + Exact + disjointRangesNote(P));
  }

  /// `n / C * C` with n the loop's bound: the start of the scalar tail a
  /// vector loop of C elements leaves (kopt's own, or the user's).
  static bool isTailStart(const Expr *Start, const Expr *Bound,
                          ASTContext &AC) {
    const auto *Mul = dyn_cast<BinaryOperator>(stripCasts(Start));
    if (!Mul || Mul->getOpcode() != BO_Mul)
      return false;
    const auto *Div = dyn_cast<BinaryOperator>(stripCasts(Mul->getLHS()));
    std::optional<int64_t> C = evaluateInt(Mul->getRHS(), AC, nullptr);
    std::optional<int64_t> D = Div && Div->getOpcode() == BO_Div
                                   ? evaluateInt(Div->getRHS(), AC, nullptr)
                                   : std::nullopt;
    return C && D && *C == *D &&
           withoutSpaces(sourceText(Div->getLHS()->getSourceRange(), AC)) ==
               withoutSpaces(sourceText(Bound->getSourceRange(), AC));
  }

  /// A loop in the element's region whose trip count is not a small
  /// constant: W elements a thread would run W such loops one after another
  /// on W times fewer threads.
  static const Stmt *longLoopIn(const KernelInfo &K, const ElementRegion &R) {
    const Stmt *Found = nullptr;
    forEachSubStmt(R.Body, [&](const Stmt *S) {
      if (Found || !isa<ForStmt, WhileStmt, DoStmt, CXXForRangeStmt>(S))
        return;
      const LoopInfo *L = nullptr;
      for (const LoopInfo &I : K.Loops)
        if (I.For == S)
          L = &I;
      if (!L || !L->TripCount || *L->TripCount > MaxInnerTrips)
        Found = S;
    });
    return Found;
  }

  void vectorizeOnePerThread(PassContext &Ctx, const KernelInfo &K,
                             const ElementRegion &R) {
    ASTContext &AC = Ctx.deviceContext();
    StringRef Code = Ctx.source().Code;
    if (const Stmt *Loop = longLoopIn(K, R)) {
      Ctx.missed(K.Name, lineCol(Loop->getBeginLoc(), AC),
                 "one-element-per-thread kernel not vectorized: each element "
                 "runs a loop without a constant trip count of at most " +
                     Twine(MaxInnerTrips) +
                     ", so W elements a thread would run W loops one after "
                     "another on W times fewer threads");
      return;
    }
    Decision<VectorPlan> Plan = planVectorAccesses(
        K, R, Ctx.deviceContext(), options().Width, options().Reassociate);
    if (auto *Why = std::get_if<Refusal>(&Plan)) {
      Ctx.missed(K.Name, Why->Loc,
                 "one-element-per-thread kernel not vectorized: " +
                     Why->Message);
      return;
    }
    const VectorPlan &P = std::get<VectorPlan>(Plan);
    std::string W = std::to_string(P.Width);

    // Every launch must be visible so that its grid can shrink by W.
    if (Ctx.info().hasUnknownLaunches(K.Name)) {
      Ctx.missed(K.Name, K.Loc,
                 "one-element-per-thread kernel not vectorized: '" + K.Name +
                     "' is launched other than by <<<...>>> in this file, so "
                     "its grid cannot be adjusted");
      return;
    }
    std::vector<const LaunchSite *> Launches = Ctx.info().launchesOf(K.Name);
    if (Launches.empty()) {
      Ctx.missed(K.Name, K.Loc,
                 "one-element-per-thread kernel not vectorized: no launch "
                 "site in this file, so the grid cannot be adjusted");
      return;
    }
    EditSet Edits(Ctx.source().Path);
    ASTContext &HC = Ctx.hostContext();
    for (const LaunchSite *L : Launches) {
      if (std::optional<std::string> Why = whyNotCovering(*L, R, HC)) {
        Ctx.missed(K.Name, L->Loc,
                   "one-element-per-thread kernel not vectorized: " + *Why);
        return;
      }
      // The grid is wrapped as written (`((GRID) + W - 1) / W`): it may
      // end with a macro (`(n + BLOCK - 1) / BLOCK`).
      const Expr *G = L->Grid.Expr;
      std::optional<std::pair<unsigned, unsigned>> Off =
          G ? expandedExprOffsets(G, HC) : std::nullopt;
      if (!Off || hasSideEffects(G, HC)) {
        Ctx.missed(K.Name, L->Loc,
                   "one-element-per-thread kernel not vectorized: the grid "
                   "of the launch at " +
                       str(L->Loc) +
                       " is written in a macro or has side effects");
        return;
      }
      std::string Grid = L->Grid.Text;
      std::string NewGrid =
          L->Grid.IsDim3 ? "dim3(((" + Grid + ").x + " + W + " - 1) / " + W +
                               ", (" + Grid + ").y, (" + Grid + ").z)"
                         : "((" + Grid + ") + " + W + " - 1) / " + W;
      if (llvm::Error E = Edits.replaceChars(
              Off->first, Off->second - Off->first, NewGrid)) {
        Ctx.missed(K.Name, L->Loc,
                   "one-element-per-thread kernel not vectorized: " +
                       toString(std::move(E)));
        return;
      }
    }

    const Stmt *KernelBody = K.Decl->getBody();
    std::optional<std::pair<unsigned, unsigned>> BodyRange =
        stmtOffsets(KernelBody, AC);
    std::optional<std::pair<unsigned, unsigned>> ThenRange =
        stmtOffsets(R.Body, AC);
    if (!BodyRange || !ThenRange || hasSideEffects(R.Bound, AC)) {
      Ctx.missed(K.Name, K.Loc,
                 "one-element-per-thread kernel not vectorized: its body is "
                 "written in a macro");
      return;
    }
    // The body's braces may sit on a continuation line of the parameters:
    // indent relative to the line the declaration starts on.
    std::string Indent = indentAt(
        Code,
        AC.getSourceManager().getFileOffset(
            AC.getSourceManager().getExpansionLoc(K.Decl->getBeginLoc())));
    std::string I1 = Indent + "  ", I2 = Indent + "    ",
                I3 = Indent + "      ";
    std::string IndexType = typeAsWritten(R.Var->getType().getUnqualifiedType(),
                                          PrintingPolicy(AC.getLangOpts()));
    std::string Var = R.Var->getNameAsString();
    std::string Gid = sourceText(R.Var->getInit()->getSourceRange(), AC);
    std::string Bound = sourceText(R.Bound->getSourceRange(), AC);
    std::string Error;
    std::string Vector = vectorCode(Ctx, R, P, "kopt_g", IndexType, I3, Error);
    if (!Error.empty()) {
      Ctx.missed(K.Name, K.Loc,
                 "one-element-per-thread kernel not vectorized: " + Error);
      return;
    }
    std::string Then = Code.slice(ThenRange->first, ThenRange->second).str();
    std::string ThenIndent = indentAt(Code, ThenRange->first);
    // The guarded statement as the body of a loop at indent LoopIndent: a
    // compound statement opens on the loop's line, a single statement goes
    // on its own line at StmtIndent.
    bool ThenIsCompound = isa<CompoundStmt>(R.Body);
    auto Nest = [&](const std::string &LoopIndent,
                    const std::string &StmtIndent) {
      std::string To = ThenIsCompound ? LoopIndent : StmtIndent;
      std::string Extra =
          To.size() > ThenIndent.size() ? To.substr(ThenIndent.size()) : "";
      return (ThenIsCompound ? " " : "\n" + StmtIndent) + reindent(Then, Extra);
    };

    std::string Text =
        "{\n" + I1 + "// kopt vectorize-loads: each thread handles " + W +
        " consecutive elements\n" + I1 + "// (the launch grid is divided by " +
        W + "), one thread the scalar tail;\n" + I1 +
        "// a scalar loop runs when a pointer is not aligned.\n" + I1 +
        "const " + IndexType + " kopt_g = " + Gid + ";\n" + I1 +
        "const auto kopt_n = " + Bound + ";\n" + I1 + "if (" +
        alignmentCheck(P, I1 + "    ") + ") {\n" + I2 +
        "if (kopt_g < kopt_n / " + W + ") {\n" + Vector + I2 +
        "} else if (kopt_g == kopt_n / " + W + ") {\n" + I3 + "for (" +
        IndexType + " " + Var + " = kopt_n / " + W + " * " + W + "; " + Var +
        " < kopt_n; ++" + Var + ")" + Nest(I3, I3 + "  ") + "\n" + I2 + "}\n" +
        I1 + "} else {\n" + I2 + "for (" + IndexType + " " + Var +
        " = kopt_g; " + Var + " < kopt_n; " + Var +
        " += blockDim.x * gridDim.x)" + Nest(I2, I3) + "\n" + I1 + "}\n" +
        Indent + "}";
    if (llvm::Error E = Edits.replaceChars(
            BodyRange->first, BodyRange->second - BodyRange->first, Text)) {
      Ctx.missed(K.Name, K.Loc,
                 "one-element-per-thread kernel not vectorized: " +
                     toString(std::move(E)));
      return;
    }
    if (llvm::Error E = Ctx.edits().merge(Edits)) {
      Ctx.missed(K.Name, K.Loc,
                 "one-element-per-thread kernel not vectorized: " +
                     toString(std::move(E)));
      return;
    }
    std::string Sites;
    for (const LaunchSite *L : Launches)
      Sites += (Sites.empty() ? "" : ", ") + str(L->Loc);
    Ctx.applied(
        K.Name, K.Loc,
        "vectorized one-element-per-thread kernel: " + describeVectors(P) +
            "; grid divided by " + W + " at the launch" +
            (Launches.size() > 1 ? "es at " : " at ") + Sites);
  }
};

} // namespace

std::unique_ptr<Pass> createVectorizeLoadsPass() {
  return std::make_unique<VectorizeLoadsPass>();
}

} // namespace kopt
