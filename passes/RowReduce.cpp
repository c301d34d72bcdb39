//===- RowReduce.cpp - A thread-per-row kernel on G threads a row ---------===//
//
// A kernel that gives each thread a row (`int idx = blockIdx.x * blockDim.x
// + threadIdx.x;` and serial loops over row idx) runs few threads, each on a
// long dependent walk: the GPU waits on memory. This pass adds a copy,
// `<kernel>_kopt_rows`, in which G consecutive threads share a row
// (planRowThreads in lib/Analysis/RowThreads.cpp says what is proved):
//
//   const unsigned long long kopt_t = (unsigned long long)blockIdx.x *
//                                     blockDim.x + threadIdx.x;
//   const unsigned kopt_lane = (unsigned)(kopt_t % G);
//   int idx = static_cast<unsigned int>(kopt_t / G);     // the same rows
//   ... loops that carry a sum or a maximum: unchanged, run by each of the G
//       threads in the original order (their stores only in the owner);
//   for (long long kopt_i = s + (lane - s) mod G; kopt_i < n; kopt_i += G) {
//     const int i = static_cast<int>(kopt_i);            // a split loop
//     ...
//   }
//   { if (kopt_lane == 0u) mean[idx] = m; }               // stores outside
//
// Every element is computed from the same values in the same order as
// before: the results are the same bits. Each launch runs the copy with a
// grid G times larger, the same block, when that grid fits in gridDim.x
// (else the original):
//
//   { const auto kopt_grid = (grid);
//     if (kopt_grid >= 1 && kopt_grid <= 2147483647 / G)
//       k_kopt_rows<<<kopt_grid * G, block, ...>>>(args);
//     else
//       k<<<kopt_grid, block, ...>>>(args); }
//
// The copy's rows are the original's global thread indices, G threads
// each, whatever the block size: no two threads of a row need to be in one
// warp, since they never exchange values.
//
// Reductions (RowThreads.h): a loop that carries only sums, maxima and
// minima is split too, each thread folding its share into its own copy of
// the accumulator, combined right after the loop:
//
//   { if (kopt_lane != 0u) acc = 0;                     // sums only
//     for (long long kopt_i = kopt_lane; ...) { ... acc += ...; }
//     for (unsigned kopt_o = G / 2; kopt_o > 0u; kopt_o /= 2u)
//       acc += __shfl_xor_sync(kopt_mask, acc, kopt_o, G); }
//
// The butterfly leaves every thread of the row with the same bits (each
// addition's operands are the same two values, in either order), so the
// code after the loop sees one value, as before. The row's threads must be
// in one warp: the launch runs the copy only when its block is a multiple
// of G (then the G threads of a row are G aligned lanes of a warp;
// kopt_mask names them). With G above 32 a block is a row: the copy runs
// G-thread blocks, one for each thread of the launch as written
// (`<<<grid * block, G>>>`), the warps' totals are added in a fixed order
// through shared memory, and every thread reads them in that order.
// Integer sums, maxima and minima give the same results; a floating-point
// sum is added in another order, so only `reassociate=true` splits it.
//
//===----------------------------------------------------------------------===//

#include "Options.h"
#include "ScaledLaunch.h"
#include "SourceLayout.h"
#include "kopt/Analysis/RowThreads.h"
#include "kopt/Pass/Pass.h"

#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/StringExtras.h"

using namespace clang;
using namespace llvm;

namespace kopt {

namespace {

using Replacement = std::tuple<unsigned, unsigned, std::string>;

const char *const RowsSuffix = "_kopt_rows";

class RowReducePass : public KernelPass<RowReduceOptions> {
  bool rewritesInstances() const override { return true; }

  void runOnKernel(KernelContext &KC) override {
    const KernelInfo &K = KC.kernel();
    unsigned G = options().ThreadsPerRow;
    auto Missed = [&](LineCol At, const Twine &Why) {
      KC.missed(At, "thread-per-row kernel not re-mapped: " + Why);
    };
    if (G < 2 || G > 1024 || (G & (G - 1)))
      return Missed(K.Loc, "threads-per-row=" + Twine(G) +
                               " is not a power of two from 2 to 1024");
    if (StringRef(K.Name).contains(RowsSuffix))
      return;
    Decision<RowThreadsPlan> D =
        planRowThreads(K, KC.deviceContext(), G, options().Reassociate);
    if (auto *Why = std::get_if<Refusal>(&D))
      return Missed(Why->Loc.Line ? Why->Loc : K.Loc, Why->Message);
    const RowThreadsPlan &P = std::get<RowThreadsPlan>(D);
    std::string NewName = K.Name + RowsSuffix;
    if (KC.info().kernel(NewName))
      return Missed(K.Loc, "'" + NewName + "' exists already");
    if (KC.info().hasUnknownLaunches(K.Name))
      return Missed(K.Loc, "'" + K.Name +
                               "' is referenced other than by a "
                               "launch");
    std::vector<const LaunchSite *> Launches = KC.info().launchesOf(K.Name);
    if (Launches.empty())
      return Missed(K.Loc, "no launch of '" + K.Name + "' in this file");

    std::vector<BoundCheck> Checks;
    std::optional<std::string> Copy =
        copyText(K, P, G, KC.deviceContext(), KC.code(), Checks);
    if (!Copy)
      return Missed(K.Loc, "part of the kernel is written in a macro");
    EditSet Edits(KC.pass().source().Path);
    ASTContext &Ctx = KC.deviceContext();
    SourceLocation End =
        Ctx.getSourceManager().getExpansionLoc(K.Decl->getBody()->getEndLoc());
    if (Error E = Edits.insertAfterToken(End, "\n\n" + *Copy, Ctx))
      return Missed(K.Loc, toString(std::move(E)));
    ASTContext &HC = KC.hostContext();
    ScaledLaunchSpec Spec;
    Spec.Factor = G;
    Spec.FastSuffix = RowsSuffix;
    Spec.Comment = "kopt row-reduce: " + std::to_string(G) +
                   " threads a row when the grid allows";
    if (G > 32) {
      Spec.BlockThreads = G;
      Spec.Comment = "kopt row-reduce: a block of " + std::to_string(G) +
                     " threads a row when the grid allows";
      Spec.Extra = [Checks](const LaunchPieces &L) {
        std::string Cond;
        for (const BoundCheck &C : Checks)
          Cond += (Cond.empty() ? "(" : " && (") + L.Args[C.Index] +
                  ") <= " + C.Limit;
        return Cond;
      };
    } else if (P.combines()) {
      Spec.Comment += " and a row's threads share a warp";
      Spec.Extra = [G](const LaunchPieces &L) {
        return "(" + L.Config[1] + ") % " + std::to_string(G) + " == 0";
      };
    }
    for (const LaunchSite *L : Launches)
      if (std::optional<std::string> Why =
              replaceWithScaledLaunch(*L, Spec, HC, Edits))
        return Missed(L->Loc, *Why);
    if (Error E = KC.edits().merge(Edits))
      return Missed(K.Loc, toString(std::move(E)));

    unsigned Split = 0, Carrying = 0, Owned = 0, Reduced = 0;
    bool Rounding = false, Zeros = false;
    for (const RowLoop &L : P.Loops) {
      (L.Split ? Split : Carrying) += 1;
      Owned += L.OwnedStores.size();
      Reduced += !L.Accumulators.empty();
      for (const Accumulator &A : L.Accumulators)
        (A.Kind == Accumulator::Sum ? Rounding : Zeros) |= !A.Exact;
    }
    KC.applied(
        K.Loc,
        "'" + NewName + "' runs each row of '" + P.Row->getName() + "' on " +
            Twine(G) + " threads: " + Twine(Split) + " loop" +
            (Split == 1 ? "" : "s") + " split among them" +
            (Reduced
                 ? " (" + Twine(Reduced) + " combining a reduction after it" +
                       (Rounding ? ", floating-point sums in "
                                   "another order"
                                 : "") +
                       (Zeros ? ", floating-point selections may keep "
                                "-0.0 for +0.0"
                              : "") +
                       ")"
                 : Twine("")) +
            ", " + Twine(Carrying) + " run by each in the original order" +
            (Owned ? " (" + Twine(Owned) + " stores by the owning thread)"
                   : Twine("")) +
            ", " + Twine(P.LaneZeroStores.size()) +
            " stores outside loops by one; " + Twine(Launches.size()) +
            " launch" + (Launches.size() == 1 ? "" : "es") +
            (G > 32 ? " run it with a " + Twine(G) +
                          "-thread block for each thread"
                    : " run it with " + Twine(G) + "x the grid"));
  }

  /// A launch-time condition for a block-stride split loop: the argument
  /// at Index, the loop's bound, leaves room for one more step of G.
  struct BoundCheck {
    unsigned Index;
    std::string Limit; ///< the counter type's largest value minus G
  };

  /// The kernel's definition renamed, with the edits of the file comment;
  /// Checks gets the launch conditions of its block-stride split loops.
  static std::optional<std::string>
  copyText(const KernelInfo &K, const RowThreadsPlan &P, unsigned G,
           ASTContext &Ctx, StringRef Code, std::vector<BoundCheck> &Checks) {
    const FunctionDecl *F = K.Decl;
    std::optional<DefinitionLayout> D = definitionLayout(F, Ctx);
    if (!D)
      return std::nullopt;
    unsigned Begin = D->Begin, End = D->End;
    PrintingPolicy PP(Ctx.getLangOpts());
    std::string Gs = std::to_string(G);
    const std::string &In = D->Indent;
    std::string Prologue =
        "\n" + In + "// kopt row-reduce: " + Gs +
        (G > 32 ? " threads (this block) a row" : " threads a row") +
        "; loops that carry state run in each, in the\n" + In +
        "// original order, the others are split among them" +
        (P.combines() ? ", reductions combined after them" : "") + ".\n" + In;
    if (G > 32)
      Prologue += "const unsigned kopt_lane = threadIdx.x;";
    else
      Prologue +=
          "const unsigned long long kopt_t =\n" + In +
          "    static_cast<unsigned long long>(blockIdx.x) * blockDim.x "
          "+ threadIdx.x;\n" +
          In + "const unsigned kopt_lane = static_cast<unsigned>(kopt_t % " +
          Gs + "u);";
    if (P.combines() && G < 32)
      Prologue += "\n" + In + "const unsigned kopt_mask = ((1u << " + Gs +
                  ") - 1u) << (threadIdx.x % 32u / " + Gs + "u * " + Gs + "u);";
    std::vector<Replacement> Edits = {{D->NameEnd, 0, RowsSuffix},
                                      {D->BodyStart, 0, Prologue}};
    if (G > 32) {
      auto Bounds = launchBoundsReplacement(F, G, Ctx);
      if (!Bounds)
        return std::nullopt;
      Edits.push_back(*Bounds);
    }
    auto Row = exprOffsets(P.RowInit, Ctx);
    if (!Row)
      return std::nullopt;
    Edits.emplace_back(
        Row->first, Row->second - Row->first,
        "static_cast<" +
            typeAsWritten(P.RowInit->IgnoreImpCasts()->getType(), PP) + ">(" +
            (G > 32 ? std::string("blockIdx.x") : "kopt_t / " + Gs + "u") +
            ")");
    auto Wrap = [&](const Stmt *S, const std::string &Cond) {
      auto At = stmtOffsets(S, Ctx);
      if (!At)
        return false;
      Edits.emplace_back(At->first, 0, "{ if (" + Cond + ") ");
      Edits.emplace_back(At->second, 0, " }");
      return true;
    };
    for (const Stmt *S : P.LaneZeroStores)
      if (!Wrap(S, "kopt_lane == 0u"))
        return std::nullopt;
    unsigned Combined = 0;
    for (const RowLoop &L : P.Loops) {
      for (const Stmt *S : L.OwnedStores)
        if (!Wrap(S, "static_cast<unsigned>(" + L.Var->getNameAsString() +
                         ") % " + Gs + "u == kopt_lane"))
          return std::nullopt;
      if (!L.Accumulators.empty() && !combineEdits(L, G, Combined, Ctx, Edits))
        return std::nullopt;
      if (!L.Split)
        continue;
      if (const ParmVarDecl *Bound =
              G > 32 ? blockStrideBound(L, K) : nullptr) {
        if (!blockStrideLoop(L, Ctx, Edits))
          return std::nullopt;
        bool Signed = Bound->getType()->isSignedIntegerType();
        Checks.push_back(
            {Bound->getFunctionScopeIndex(),
             std::string(Signed ? "2147483647" : "4294967295u") + " - " + Gs});
      } else if (!splitLoop(L, Gs, Ctx, Code, Edits)) {
        return std::nullopt;
      }
    }
    for (const auto &[Offset, Length, Text] : Edits)
      if (Offset < Begin || Offset + Length > End)
        return std::nullopt;
    llvm::stable_sort(Edits, [](const Replacement &A, const Replacement &B) {
      return std::get<0>(A) < std::get<0>(B);
    });
    return splice(Code, Begin, End, std::move(Edits));
  }

  /// Braces around a split reduction loop: before it, a sum's copy is
  /// zeroed in every thread but lane 0; after it, the row's copies are
  /// combined (a butterfly of shuffles within the warp, then, for a block
  /// a row, the warps' totals through shared memory in a fixed order).
  static bool combineEdits(const RowLoop &L, unsigned G, unsigned &Combined,
                           ASTContext &Ctx, std::vector<Replacement> &Edits) {
    auto At = stmtOffsets(L.For, Ctx);
    if (!At)
      return false;
    PrintingPolicy PP(Ctx.getLangOpts());
    std::string In = indentOf(L.For->getBeginLoc(), Ctx);
    std::string Gs = std::to_string(G);
    unsigned Width = std::min(G, 32u);
    std::string Mask = G < 32 ? "kopt_mask" : "0xffffffffu";
    std::string Names, Before, After;
    for (const Accumulator &A : L.Accumulators) {
      std::string V = A.Var->getNameAsString();
      std::string T = typeAsWritten(A.Var->getType().getUnqualifiedType(), PP);
      Names += (Names.empty() ? "'" : ", '") + V + "'";
      if (std::string Restart = restartStatement(A, "kopt_lane != 0u", In);
          !Restart.empty())
        Before += In + Restart;
      auto Fold = [&](const std::string &Other) {
        return foldStatement(A, T, Other);
      };
      After += "\n" + In +
               "for (unsigned kopt_o = " + std::to_string(Width / 2) +
               "u; kopt_o > 0u; kopt_o /= 2u)\n" + In + "  " +
               Fold("__shfl_xor_sync(" + Mask + ", " + V + ", kopt_o, " +
                    std::to_string(Width) + ")");
      if (G > 32) {
        std::string Part = "kopt_part" + std::to_string(Combined);
        std::string Warps = std::to_string(G / 32);
        After += "\n" + In + "{\n" + In + "  __shared__ " + T + " " + Part +
                 "[" + Warps + "];\n" + In +
                 "  if (threadIdx.x % 32u == 0u)\n" + In + "    " + Part +
                 "[threadIdx.x / 32u] = " + V + ";\n" + In +
                 "  __syncthreads();\n" + In + "  " + V + " = " + Part +
                 "[0];\n" + In + "  for (unsigned kopt_w = 1u; kopt_w < " +
                 Warps + "u; ++kopt_w)\n" + In + "    " +
                 Fold(Part + "[kopt_w]") + "\n" + In + "}";
      }
      ++Combined;
    }
    Edits.emplace_back(At->first, 0,
                       "{ // kopt row-reduce: each thread folds its share "
                       "into " +
                           Names + ", combined after the loop\n" + Before + In);
    Edits.emplace_back(At->second, 0, After + "\n" + In + "}");
    return true;
  }

  /// With a block a row, the parameter that bounds split loop L when L can
  /// be the block-stride loop `for (T i = threadIdx.x; i < n; i +=
  /// blockDim.x)`, the form vectorize-loads and staged-loads rewrite: it
  /// starts at 0, its bound is a parameter of the kernel never changed and
  /// of the counter's type (32 bits); each launch checks that the bound
  /// leaves room for one more step (n <= max - G), so i + G never
  /// overflows where the original's ++i did not.
  static const ParmVarDecl *blockStrideBound(const RowLoop &L,
                                             const KernelInfo &K) {
    std::optional<CountedLoop> CL = matchCountedLoop(L.For);
    if (!CL || CL->Inclusive)
      return nullptr;
    ASTContext &Ctx = K.Decl->getASTContext();
    std::optional<int64_t> Start = evaluateInt(CL->Init, Ctx, L.For);
    const auto *Bound =
        dyn_cast_or_null<ParmVarDecl>(referencedVar(stripCasts(CL->Bound)));
    QualType T = CL->Var->getType().getCanonicalType().getUnqualifiedType();
    if (!Start || *Start != 0 || !Bound ||
        isModifiedIn(Bound, K.Decl->getBody()) ||
        Bound->getType().getCanonicalType().getUnqualifiedType() != T ||
        !T->isIntegerType() || Ctx.getTypeSize(T) != 32)
      return nullptr;
    return Bound;
  }

  /// The header of a split loop as a block-stride loop (blockStrideBound).
  static bool blockStrideLoop(const RowLoop &L, ASTContext &Ctx,
                              std::vector<Replacement> &Edits) {
    std::optional<CountedLoop> CL = matchCountedLoop(L.For);
    auto BodyAt = stmtOffsets(L.For->getBody(), Ctx);
    std::string Bound = sourceText(CL->Bound->getSourceRange(), Ctx);
    if (!BodyAt || Bound.empty() || !isRewritable(L.For->getSourceRange(), Ctx))
      return false;
    PrintingPolicy PP(Ctx.getLangOpts());
    std::string T = typeAsWritten(CL->Var->getType().getUnqualifiedType(), PP);
    std::string V = CL->Var->getNameAsString();
    unsigned Begin = Ctx.getSourceManager().getFileOffset(L.For->getBeginLoc());
    Edits.emplace_back(Begin, BodyAt->first - Begin,
                       "for (" + T + " " + V + " = threadIdx.x; " + V + " < " +
                           Bound + "; " + V + " += blockDim.x) ");
    return true;
  }

  /// A split loop's header, stepping a 64-bit shadow of the counter by G
  /// from the first value the thread owns, and the counter re-declared.
  static bool splitLoop(const RowLoop &L, const std::string &Gs,
                        ASTContext &Ctx, StringRef Code,
                        std::vector<Replacement> &Edits) {
    const SourceManager &SM = Ctx.getSourceManager();
    std::optional<CountedLoop> CL = matchCountedLoop(L.For);
    const Stmt *LoopBody = L.For->getBody();
    auto BodyAt = stmtOffsets(LoopBody, Ctx);
    if (!CL || !BodyAt || !isRewritable(L.For->getSourceRange(), Ctx))
      return false;
    PrintingPolicy PP(Ctx.getLangOpts());
    std::string T = typeAsWritten(CL->Var->getType().getUnqualifiedType(), PP);
    std::string Start = sourceText(CL->Init->getSourceRange(), Ctx);
    std::string Bound = sourceText(CL->Bound->getSourceRange(), Ctx);
    if (Start.empty() || Bound.empty())
      return false;
    std::string S = "static_cast<" + T + ">(" + Start + ")";
    unsigned Begin = SM.getFileOffset(L.For->getBeginLoc());
    std::string In = indentOf(L.For->getBeginLoc(), Ctx);
    // The first value at or after the start that is lane modulo G.
    std::optional<int64_t> Zero = evaluateInt(CL->Init, Ctx, L.For);
    std::string First =
        Zero && *Zero == 0 ? "kopt_lane"
                           : "static_cast<long long>(" + S + ") +\n" + In +
                                 "         static_cast<long long>((kopt_lane - "
                                 "static_cast<unsigned>(" +
                                 S + ")) % " + Gs + "u)";
    std::string Header = "for (long long kopt_i = " + First + ";\n" + In +
                         "     kopt_i " + (CL->Inclusive ? "<=" : "<") +
                         " static_cast<long long>(" + Bound +
                         "); kopt_i += " + Gs + ") ";
    Edits.emplace_back(Begin, BodyAt->first - Begin, Header);
    std::string Decl = "const " + T + " " + CL->Var->getNameAsString() +
                       " = static_cast<" + T + ">(kopt_i);";
    if (const auto *C = dyn_cast<CompoundStmt>(LoopBody)) {
      std::string Inner = C->body_empty()
                              ? In + "  "
                              : indentOf(C->body_front()->getBeginLoc(), Ctx);
      Edits.emplace_back(SM.getFileOffset(C->getLBracLoc()) + 1, 0,
                         "\n" + Inner + Decl);
    } else {
      // One edit for the whole body, so that text a reduction adds after
      // the loop (at the same offset) cannot land inside the braces.
      Edits.emplace_back(BodyAt->first, BodyAt->second - BodyAt->first,
                         "{ " + Decl + " " +
                             Code.slice(BodyAt->first, BodyAt->second).str() +
                             " }");
    }
    return true;
  }
};

} // namespace

std::unique_ptr<Pass> createRowReducePass() {
  return std::make_unique<RowReducePass>();
}

} // namespace kopt
