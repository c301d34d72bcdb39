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
  void runOnKernel(KernelContext &KC) override {
    const KernelInfo &K = KC.kernel();
    unsigned G = options().ThreadsPerRow;
    auto Missed = [&](LineCol At, const Twine &Why) {
      KC.missed(At, "thread-per-row kernel not re-mapped: " + Why);
    };
    if (G < 2 || G > 32 || (G & (G - 1)))
      return Missed(K.Loc, "threads-per-row=" + Twine(G) +
                               " is not a power of two from 2 to 32");
    if (StringRef(K.Name).contains(RowsSuffix))
      return;
    Decision<RowThreadsPlan> D = planRowThreads(K, KC.deviceContext());
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

    std::optional<std::string> Copy =
        copyText(K, P, G, KC.deviceContext(), KC.code());
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
    for (const LaunchSite *L : Launches)
      if (std::optional<std::string> Why =
              replaceWithScaledLaunch(*L, Spec, HC, Edits))
        return Missed(L->Loc, *Why);
    if (Error E = KC.edits().merge(Edits))
      return Missed(K.Loc, toString(std::move(E)));

    unsigned Split = 0, Carrying = 0, Owned = 0;
    for (const RowLoop &L : P.Loops) {
      (L.Split ? Split : Carrying) += 1;
      Owned += L.OwnedStores.size();
    }
    KC.applied(K.Loc,
               "'" + NewName + "' runs each row of '" + P.Row->getName() +
                   "' on " + Twine(G) + " threads: " + Twine(Split) + " loop" +
                   (Split == 1 ? "" : "s") + " split among them, " +
                   Twine(Carrying) + " run by each in the original order" +
                   (Owned
                        ? " (" + Twine(Owned) + " stores by the owning thread)"
                        : Twine("")) +
                   ", " + Twine(P.LaneZeroStores.size()) +
                   " stores outside loops by one; " + Twine(Launches.size()) +
                   " launch" + (Launches.size() == 1 ? "" : "es") +
                   " run it with " + Twine(G) + "x the grid");
  }

  /// The kernel's definition renamed, with the edits of the file comment.
  static std::optional<std::string> copyText(const KernelInfo &K,
                                             const RowThreadsPlan &P,
                                             unsigned G, ASTContext &Ctx,
                                             StringRef Code) {
    const SourceManager &SM = Ctx.getSourceManager();
    const FunctionDecl *F = K.Decl;
    const auto *Body = dyn_cast<CompoundStmt>(F->getBody());
    if (!Body ||
        !isRewritable(SourceRange(F->getLocation(), Body->getRBracLoc()), Ctx))
      return std::nullopt;
    unsigned Begin = SM.getFileOffset(SM.getExpansionLoc(F->getBeginLoc()));
    unsigned End = SM.getFileOffset(Body->getRBracLoc()) + 1;
    unsigned NameEnd = SM.getFileOffset(F->getLocation()) + F->getName().size();
    if (!(Begin < NameEnd && NameEnd < End))
      return std::nullopt;
    PrintingPolicy PP(Ctx.getLangOpts());
    std::string Gs = std::to_string(G);
    std::string In = Body->body_empty()
                         ? indentOf(F->getBeginLoc(), Ctx) + "  "
                         : indentOf(Body->body_front()->getBeginLoc(), Ctx);
    std::vector<Replacement> Edits = {
        {NameEnd, 0, RowsSuffix},
        {SM.getFileOffset(Body->getLBracLoc()) + 1, 0,
         "\n" + In + "// kopt row-reduce: " + Gs +
             " threads a row; loops that carry state run in each, in the\n" +
             In + "// original order, the others are split among them.\n" + In +
             "const unsigned long long kopt_t =\n" + In +
             "    static_cast<unsigned long long>(blockIdx.x) * blockDim.x + "
             "threadIdx.x;\n" +
             In + "const unsigned kopt_lane = static_cast<unsigned>(kopt_t % " +
             Gs + "u);"}};
    auto Row = exprOffsets(P.RowInit, Ctx);
    if (!Row)
      return std::nullopt;
    Edits.emplace_back(
        Row->first, Row->second - Row->first,
        "static_cast<" +
            P.RowInit->IgnoreImpCasts()->getType().getAsString(PP) +
            ">(kopt_t / " + Gs + "u)");
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
    for (const RowLoop &L : P.Loops) {
      for (const Stmt *S : L.OwnedStores)
        if (!Wrap(S, "static_cast<unsigned>(" + L.Var->getNameAsString() +
                         ") % " + Gs + "u == kopt_lane"))
          return std::nullopt;
      if (L.Split && !splitLoop(L, Gs, Ctx, Edits))
        return std::nullopt;
    }
    for (const auto &[Offset, Length, Text] : Edits)
      if (Offset < Begin || Offset + Length > End)
        return std::nullopt;
    llvm::stable_sort(Edits, [](const Replacement &A, const Replacement &B) {
      return std::get<0>(A) < std::get<0>(B);
    });
    return splice(Code, Begin, End, std::move(Edits));
  }

  /// A split loop's header, stepping a 64-bit shadow of the counter by G
  /// from the first value the thread owns, and the counter re-declared.
  static bool splitLoop(const RowLoop &L, const std::string &Gs,
                        ASTContext &Ctx, std::vector<Replacement> &Edits) {
    const SourceManager &SM = Ctx.getSourceManager();
    std::optional<CountedLoop> CL = matchCountedLoop(L.For);
    const Stmt *LoopBody = L.For->getBody();
    auto BodyAt = stmtOffsets(LoopBody, Ctx);
    if (!CL || !BodyAt || !isRewritable(L.For->getSourceRange(), Ctx))
      return false;
    PrintingPolicy PP(Ctx.getLangOpts());
    std::string T = CL->Var->getType().getUnqualifiedType().getAsString(PP);
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
      Edits.emplace_back(BodyAt->first, 0, "{ " + Decl + " ");
      Edits.emplace_back(BodyAt->second, 0, " }");
    }
    return true;
  }
};

} // namespace

std::unique_ptr<Pass> createRowReducePass() {
  return std::make_unique<RowReducePass>();
}

} // namespace kopt
