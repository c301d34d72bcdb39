//===- BlockSizeChange.cpp - Relaunch a kernel with another block size ---===//
//
// A kernel written in terms of blockDim.x computes the same result with any
// block size its launch covers the data with. Changing B threads per block
// to N is refused unless that is visible in the code:
//
//   Launches: every launch of the kernel is in the file (no function
//   pointers), one-dimensional, without dynamic shared memory, with the block
//   size written as a literal, a never-modified local initialized by one, or
//   a dim3 local built from one; a local may not also configure another
//   kernel's launch.
//
//   Kernel: BlockSizeLegality.h (no code tied to B; a __shared__ array of
//   exactly B elements, one slot a thread, is resized to N).
//
//   N: a multiple of 32, at most 1024, different from B, and a power of two
//   when B is one (a tree over blockDim.x / 2 relies on it).
//
//   Grid: when blockIdx.x is combined with blockDim.x (a global thread index,
//   `blockIdx.x * (blockDim.x / 32)` warps), the work is spread over grid x
//   block threads and each launch must keep at least G * B of them: a grid
//   written as `(X + D - 1) / D` with D the block-size local (or that local
//   times or divided by a constant) follows the new value by itself; any
//   other grid G becomes ceil(G * B / N), with G evaluated as before (when G
//   is computed from the block-size local in another way, only the launch's
//   block argument changes, not the local). When blockIdx.x is used on its own
//   (a row a block), the grid does not depend on the block size and stays.
//   A kernel with both kinds of use is refused. A new grid keeps at least,
//   not exactly, as many threads, so a per-thread index must be compared
//   with a bound where it is computed or through the variable it
//   initializes (`if (i < n)`, a grid-stride loop's condition).
//
//   Rounding: as BlockSizeLegality.h says (reassociation allowed or not).
//
//   __launch_bounds__ is rewritten to N (keeping its minimum-blocks value).
//
//===----------------------------------------------------------------------===//

#include "BlockSizeChange.h"
#include "BlockSizeLegality.h"
#include "kopt/Analysis/BlockGuard.h"

#include "clang/AST/Attr.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/MathExtras.h"

#include <set>

using namespace clang;
using namespace llvm;

namespace kopt {

namespace {

class Planner {
public:
  Planner(PassContext &Ctx, const KernelInfo &K, int64_t B, int64_t N,
          bool Reassociate)
      : Ctx(Ctx), K(K), B(B), N(N),
        Reassociate(Reassociate), Change{EditSet(Ctx.source().Path), {}} {}

  std::variant<BlockSizeChange, std::string> run() {
    if (std::optional<std::string> Why = checkSizes())
      return *Why;
    std::variant<BlockSizeFacts, std::string> Facts =
        blockSizeFacts(Ctx.deviceContext(), K, B, Reassociate);
    if (auto *Why = std::get_if<std::string>(&Facts))
      return *Why;
    if (std::optional<std::string> Why =
            resizeArrays(std::get<BlockSizeFacts>(Facts)))
      return *Why;
    GridUse Use = std::get<BlockSizeFacts>(Facts).Grid;
    if (std::optional<std::string> Why = rewriteLaunchBounds())
      return *Why;
    for (const LaunchSite *L : Ctx.info().launchesOf(K.Name))
      if (std::optional<std::string> Why = rewriteLaunch(*L, Use))
        return *Why;
    return std::move(Change);
  }

private:
  std::string at(SourceLocation L, const ASTContext &AC) {
    return str(lineCol(L, AC));
  }

  std::optional<std::string> edit(SourceRange R, const Twine &Text,
                                  const ASTContext &AC) {
    const SourceManager &SM = AC.getSourceManager();
    // Several launches may share one local: edit its initializer once.
    if (!Edited.insert(SM.getFileOffset(SM.getExpansionLoc(R.getBegin())))
             .second)
      return std::nullopt;
    if (Error E = Change.Edits.replace(R, Text.str(), AC))
      return toString(std::move(E));
    return std::nullopt;
  }

  std::optional<std::string> checkSizes() {
    if (N == B)
      return "the kernel already runs " + std::to_string(B) +
             " threads per block";
    if (N < 32 || N > 1024 || N % 32 != 0)
      return std::to_string(N) + " is not a multiple of 32 between 32 and 1024";
    if (isPowerOf2_64(B) && !isPowerOf2_64(N))
      return "the kernel runs a power-of-two block (" + std::to_string(B) +
             ") and " + std::to_string(N) +
             " is not one (a tree over blockDim.x / 2 needs one)";
    return std::nullopt;
  }

  /// The per-thread shared arrays resized to N.
  std::optional<std::string> resizeArrays(const BlockSizeFacts &Facts) {
    ASTContext &AC = Ctx.deviceContext();
    for (const PerThreadArray &A : Facts.PerThreadArrays) {
      if (std::optional<std::string> Why =
              edit(A.Size->getSourceRange(), Twine(N), AC))
        return Why;
      Change.Notes.push_back("shared array '" + A.Var->getNameAsString() +
                             "' resized to " + std::to_string(N));
    }
    return std::nullopt;
  }

  std::optional<std::string> rewriteLaunchBounds() {
    const auto *Attr = K.Decl->getAttr<CUDALaunchBoundsAttr>();
    if (!Attr)
      return std::nullopt;
    ASTContext &AC = Ctx.deviceContext();
    CharSourceRange R =
        AC.getSourceManager().getExpansionRange(Attr->getRange());
    if (!isRewritable(R.getAsRange(), AC) &&
        !AC.getSourceManager().isInMainFile(R.getBegin()))
      return std::string("its __launch_bounds__ is not written in this file");
    std::string Text = "__launch_bounds__(" + std::to_string(N) +
                       (K.LaunchBoundsMinBlocks
                            ? ", " + std::to_string(*K.LaunchBoundsMinBlocks)
                            : "") +
                       ")";
    if (std::optional<std::string> Why = edit(R.getAsRange(), Text, AC))
      return Why;
    Change.Notes.push_back(Text);
    return std::nullopt;
  }

  /// E mentions V, directly or through locals initialized from it.
  static bool dependsOn(const Expr *E, const VarDecl *V, const Stmt *Scope) {
    bool Found = false;
    forEachSubStmt(E, [&](const Stmt *S) {
      const VarDecl *Ref =
          isa<Expr>(S) ? referencedVar(cast<Expr>(S)) : nullptr;
      if (Ref == V)
        Found = true;
      else if (Ref && Ref->hasLocalStorage() && Ref->getInit() &&
               !isModifiedIn(Ref, Scope))
        Found |= dependsOn(Ref->getInit(), V, Scope);
    });
    return Found;
  }

  /// D is V, or V times or divided by a constant that divides both sizes.
  bool proportionalTo(const Expr *D, const VarDecl *V, const Stmt *Scope) {
    const ASTContext &HC = Ctx.hostContext();
    for (int Depth = 0; Depth < 8; ++Depth) {
      D = stripCasts(D);
      if (referencedVar(D) == V)
        return true;
      const Expr *Next = followLocalInit(D, Scope);
      if (Next != D) {
        D = Next;
        continue;
      }
      const auto *Op = dyn_cast<BinaryOperator>(D);
      if (!Op)
        return false;
      // The side without V must be a constant factor.
      auto Factor = [&](const Expr *E) -> std::optional<int64_t> {
        if (dependsOn(E, V, Scope))
          return std::nullopt;
        return evaluateInt(E, HC, Scope);
      };
      if (Op->getOpcode() == BO_Mul) {
        if (Factor(Op->getRHS())) {
          D = Op->getLHS();
          continue;
        }
        if (Factor(Op->getLHS())) {
          D = Op->getRHS();
          continue;
        }
        return false;
      }
      std::optional<int64_t> Divisor = Factor(Op->getRHS());
      if (Op->getOpcode() == BO_Div && Divisor && *Divisor > 0 &&
          B % *Divisor == 0 && N % *Divisor == 0) {
        D = Op->getLHS();
        continue;
      }
      return false;
    }
    return false;
  }

  /// `(X + D - 1) / D` with D proportional to V.
  bool gridFollows(const Expr *Grid, const VarDecl *V, const Stmt *Scope) {
    const ASTContext &HC = Ctx.hostContext();
    const Expr *G = Grid;
    for (int Depth = 0; Depth < 8; ++Depth) {
      const Expr *Next = followLocalInit(stripCasts(G), Scope);
      if (Next == G)
        break;
      G = Next;
    }
    const auto *Div = dyn_cast<BinaryOperator>(stripCasts(G));
    if (!Div || Div->getOpcode() != BO_Div)
      return false;
    const Expr *D = Div->getRHS();
    const auto *Sub = dyn_cast<BinaryOperator>(stripCasts(Div->getLHS()));
    if (!Sub || Sub->getOpcode() != BO_Sub ||
        evaluateInt(Sub->getRHS(), HC, Scope) != 1)
      return false;
    const auto *Add = dyn_cast<BinaryOperator>(stripCasts(Sub->getLHS()));
    if (!Add || Add->getOpcode() != BO_Add)
      return false;
    std::string DText = withoutSpaces(sourceText(D->getSourceRange(), HC));
    bool AddsD =
        withoutSpaces(sourceText(Add->getRHS()->getSourceRange(), HC)) ==
            DText ||
        withoutSpaces(sourceText(Add->getLHS()->getSourceRange(), HC)) == DText;
    return !DText.empty() && AddsD && proportionalTo(D, V, Scope);
  }

  /// The local that holds the block size, and the literal to edit.
  struct BlockSource {
    const VarDecl *Var = nullptr; ///< nullptr: a literal in the launch
    const Expr *Literal = nullptr;
  };

  std::variant<BlockSource, std::string> blockSource(const LaunchSite &L) {
    const Stmt *Body = L.CallerDecl ? L.CallerDecl->getBody() : nullptr;
    const Expr *E = L.Block.Expr ? stripCasts(L.Block.Expr) : nullptr;
    std::string Where =
        "the block size '" + L.Block.Text + "' at " + str(L.Loc) + " is not ";
    if (!E || !Body)
      return Where + "written at the launch";
    if (isa<IntegerLiteral>(E))
      return BlockSource{nullptr, E};
    const VarDecl *V = referencedVar(E);
    if (!V || !V->hasLocalStorage() || isa<ParmVarDecl>(V) || !V->getInit() ||
        isModifiedIn(V, Body))
      return Where + "a literal or a local constant initialized by one";
    const Expr *Init = V->getInit()->IgnoreImplicit();
    if (const auto *Construct = dyn_cast<CXXConstructExpr>(Init);
        Construct && L.Block.IsDim3 && Construct->getNumArgs() >= 1)
      Init = Construct->getArg(0);
    Init = stripCasts(Init);
    if (!isa<IntegerLiteral>(Init))
      return Where + "a literal or a local constant initialized by one";
    // The local must configure this kernel only.
    for (const LaunchSite &Other : Ctx.info().LaunchSites)
      if (Other.Kernel != K.Name && Other.CallerDecl == L.CallerDecl &&
          Other.Call && Other.Call->getConfig() &&
          countReferences(Other.Call->getConfig(), V) > 0)
        return "'" + V->getNameAsString() +
               "' also configures the launch of '" + Other.Kernel + "' at " +
               str(Other.Loc);
    return BlockSource{V, Init};
  }

  std::optional<std::string> rewriteLaunch(const LaunchSite &L, GridUse Use) {
    ASTContext &HC = Ctx.hostContext();
    const Stmt *Body = L.CallerDecl ? L.CallerDecl->getBody() : nullptr;
    if (L.SharedBytes.Expr) {
      std::optional<int64_t> Bytes = evaluateInt(L.SharedBytes.Expr, HC, Body);
      if (!Bytes || *Bytes != 0)
        return "the launch at " + str(L.Loc) +
               " passes dynamic shared memory ('" + L.SharedBytes.Text + "')";
    }
    std::variant<BlockSource, std::string> Source = blockSource(L);
    if (auto *Why = std::get_if<std::string>(&Source))
      return *Why;
    BlockSource Block = std::get<BlockSource>(Source);
    bool PerThread = Use == GridUse::PerThread;
    if (PerThread) {
      // The launch must keep at least G * B threads.
      if (L.Grid.IsDim3)
        return "the grid of the launch at " + str(L.Loc) +
               " is a dim3; kopt cannot recompute it";
      if (!L.Grid.Expr || !isRewritable(L.Grid.Expr->getSourceRange(), HC) ||
          hasSideEffects(L.Grid.Expr, HC))
        return "the grid of the launch at " + str(L.Loc) +
               " is written in a macro or has side effects";
    }
    const VarDecl *V = Block.Var;
    bool GridUsesVar = V && L.Grid.Expr && dependsOn(L.Grid.Expr, V, Body);
    bool Follows = PerThread && V && gridFollows(L.Grid.Expr, V, Body);
    if (V && GridUsesVar && !Follows) {
      // The grid is computed from the local in a way kopt does not read as
      // spreading the work over it: keep the local (and so the grid) and
      // change only the launch's block argument.
      for (const Expr *Arg : L.Call->arguments())
        if (dependsOn(Arg, V, Body))
          return "'" + V->getNameAsString() +
                 "' sets the grid and is passed to the kernel at " +
                 str(L.Loc) + "; kopt cannot change one without the other";
      if (std::optional<std::string> Why =
              edit(L.Block.Expr->getSourceRange(), Twine(N), HC))
        return Why;
    } else if (std::optional<std::string> Why =
                   edit(Block.Literal->getSourceRange(), Twine(N), HC)) {
      return Why;
    }
    if (!PerThread)
      return std::nullopt;
    if (Follows) {
      Change.Notes.push_back("grid '" + L.Grid.Text + "' at " + str(L.Loc) +
                             " follows '" + V->getNameAsString() + "'");
      return std::nullopt;
    }
    std::string NewGrid;
    if (std::optional<int64_t> G = L.Grid.Value.X)
      NewGrid = std::to_string((*G * B + N - 1) / N);
    else
      NewGrid = "((" + L.Grid.Text + ") * " + std::to_string(B) + " + " +
                std::to_string(N - 1) + ") / " + std::to_string(N);
    if (std::optional<std::string> Why =
            edit(L.Grid.Expr->getSourceRange(), NewGrid, HC))
      return Why;
    Change.Notes.push_back("grid at " + str(L.Loc) + " recomputed as " +
                           NewGrid);
    return std::nullopt;
  }

  PassContext &Ctx;
  const KernelInfo &K;
  int64_t B, N;
  bool Reassociate;
  BlockSizeChange Change;
  std::set<unsigned> Edited;
};

} // namespace

std::variant<int64_t, std::string> launchBlockSize(PassContext &Ctx,
                                                   const KernelInfo &K) {
  if (Ctx.info().hasUnknownLaunches(K.Name))
    return std::string("the kernel is referenced other than by <<<...>>> "
                       "(its block size is not visible)");
  std::vector<const LaunchSite *> Launches = Ctx.info().launchesOf(K.Name);
  if (Launches.empty())
    return std::string("the kernel is not launched in this file");
  std::optional<int64_t> Size;
  for (const LaunchSite *L : Launches) {
    const DimValue &D = L->Block.Value;
    if (!D.X || !D.Y || !D.Z)
      return "the block size '" + L->Block.Text + "' at " + str(L->Loc) +
             " is not a compile-time constant";
    if (*D.Y != 1 || *D.Z != 1)
      return "the launch at " + str(L->Loc) + " uses a multi-dimensional block";
    if (Size && *Size != *D.X)
      return "its launches use different block sizes (" +
             std::to_string(*Size) + " and " + std::to_string(*D.X) + " at " +
             str(L->Loc) + ")";
    Size = *D.X;
  }
  return *Size;
}

std::variant<BlockSizeChange, std::string>
planBlockSizeChange(PassContext &Ctx, const KernelInfo &K, int64_t OldThreads,
                    int64_t NewThreads, bool Reassociate) {
  if (K.IsTemplate || !K.Decl || !K.Decl->getBody())
    return std::string("template kernels are not rewritten");
  if (std::optional<BlockExtents> G = findBlockGuard(K.Decl))
    return "the kernel is specialized to its " + G->str() +
           " block (specialize-block's guard): change its block size before "
           "specialize-block runs";
  if (std::optional<std::string> Why = blockPassedToParameter(Ctx.info(), K))
    return *Why;
  return Planner(Ctx, K, OldThreads, NewThreads, Reassociate).run();
}

} // namespace kopt
