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
//   Kernel (with the device functions of the file it calls): no threadIdx.y/z
//   or blockDim.y/z; no integer constant equal to B (`partial[threadIdx.x +
//   128]` hides the block size in arithmetic: 128 is caught when B is 128,
//   and comparisons of threadIdx.x with a constant above a warp are refused);
//   a __shared__ array of exactly B elements (one slot a thread) is resized to
//   N, any other shared array indexed by threadIdx.x or blockDim.x is
//   refused, and dynamic shared memory is refused.
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
//   Rounding: a floating-point accumulation in a loop whose header mentions
//   blockDim.x (a block-stride partial sum, a tree over blockDim.x / 2) adds
//   the elements in an order that depends on the block size; it is refused
//   unless the caller allows reassociation (results may differ in rounding).
//
//   __launch_bounds__ is rewritten to N (keeping its minimum-blocks value).
//
//===----------------------------------------------------------------------===//

#include "BlockSizeChange.h"
#include "kopt/Analysis/BlockGuard.h"

#include "clang/AST/Attr.h"
#include "clang/AST/ParentMap.h"
#include "clang/AST/TypeLoc.h"
#include "clang/Analysis/CallGraph.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/MathExtras.h"

#include <set>

using namespace clang;
using namespace llvm;

namespace kopt {

namespace {

std::string builtinName(BuiltinRef R) {
  const char *Var = R.Var == BuiltinVar::ThreadIdx  ? "threadIdx"
                    : R.Var == BuiltinVar::BlockIdx ? "blockIdx"
                    : R.Var == BuiltinVar::BlockDim ? "blockDim"
                                                    : "gridDim";
  return std::string(Var) + "." + "xyz"[R.Dim];
}

bool mentions(const Stmt *S, BuiltinVar Var) {
  bool Found = false;
  forEachSubStmt(S, [&](const Stmt *C) {
    if (const auto *E = dyn_cast<Expr>(C))
      Found |= isBuiltin(E, Var, 0);
  });
  return Found;
}

/// K and the device functions of the main file it calls, transitively
/// (call edges of Clang's CallGraph).
std::vector<const FunctionDecl *> kernelCode(const FunctionDecl *K,
                                             ASTContext &AC) {
  const SourceManager &SM = AC.getSourceManager();
  CallGraph Graph;
  Graph.addToCallGraph(AC.getTranslationUnitDecl());
  std::vector<const FunctionDecl *> Code = {K};
  SmallPtrSet<const FunctionDecl *, 8> Seen = {K};
  for (size_t I = 0; I < Code.size(); ++I) {
    const CallGraphNode *Node = Graph.getNode(Code[I]->getCanonicalDecl());
    if (!Node)
      continue;
    for (const CallGraphNode::CallRecord &Edge : *Node) {
      const auto *F = dyn_cast_or_null<FunctionDecl>(Edge.Callee->getDecl());
      const FunctionDecl *Def = F ? F->getDefinition() : nullptr;
      if (Def && Def->hasBody() && SM.isInMainFile(Def->getLocation()) &&
          Seen.insert(Def).second)
        Code.push_back(Def);
    }
  }
  return Code;
}

/// How the kernel uses blockIdx.x.
enum class GridUse { None, PerBlock, PerThread };

/// The outermost arithmetic expression around E (through casts, property
/// accesses and + - * / % >>).
const Stmt *arithmeticContext(const Stmt *E, ParentMap &Parents) {
  const Stmt *Top = E;
  for (const Stmt *P = Parents.getParent(const_cast<Stmt *>(Top)); P;
       P = Parents.getParent(const_cast<Stmt *>(Top))) {
    const auto *B = dyn_cast<BinaryOperator>(P);
    bool Arith =
        B && (B->isAdditiveOp() || B->isMultiplicativeOp() || B->isShiftOp());
    if (!Arith && !isa<CastExpr, ParenExpr>(P))
      break;
    Top = P;
  }
  return Top;
}

/// True if Index is compared with something where it is computed, or is the
/// initializer of a variable that some comparison in Body reads.
bool isBoundsChecked(const Stmt *Index, ParentMap &Parents, const Stmt *Body) {
  const Stmt *P = Parents.getParentIgnoreParenCasts(const_cast<Stmt *>(Index));
  if (const auto *Cmp = dyn_cast_or_null<BinaryOperator>(P))
    return Cmp->isComparisonOp();
  const auto *DS = dyn_cast_or_null<DeclStmt>(P);
  if (!DS)
    return false;
  const VarDecl *Var = nullptr;
  for (const Decl *D : DS->decls())
    if (const auto *V = dyn_cast<VarDecl>(D);
        V && V->getInit() &&
        V->getInit()->IgnoreParenCasts() ==
            cast<Expr>(Index)->IgnoreParenCasts())
      Var = V;
  bool Checked = false;
  forEachSubStmt(Body, [&](const Stmt *S) {
    const auto *Cmp = dyn_cast<BinaryOperator>(S);
    if (Var && Cmp && Cmp->isComparisonOp())
      Checked |= referencedVar(stripCasts(Cmp->getLHS())) == Var ||
                 referencedVar(stripCasts(Cmp->getRHS())) == Var;
  });
  return Checked;
}

/// A floating-point update `a += v` or `a = a * v` (also for class types
/// such as __half) inside a loop whose header mentions blockDim.x, when S is
/// such a loop: which elements each thread combines, or how a tree pairs
/// them, then depends on the block size, and floating-point addition and
/// multiplication are not associative.
const Stmt *splitAccumulation(const Stmt *S) {
  const Stmt *Body = nullptr;
  std::vector<const Stmt *> Header;
  if (const auto *For = dyn_cast<ForStmt>(S)) {
    Body = For->getBody();
    Header = {For->getInit(), For->getCond(), For->getInc()};
  } else if (const auto *While = dyn_cast<WhileStmt>(S)) {
    Body = While->getBody();
    Header = {While->getCond()};
  } else if (const auto *Do = dyn_cast<DoStmt>(S)) {
    Body = Do->getBody();
    Header = {Do->getCond()};
  }
  if (!Body || llvm::none_of(Header, [](const Stmt *H) {
        return H && mentions(H, BuiltinVar::BlockDim);
      }))
    return nullptr;
  // Only state carried from one iteration to the next accumulates: a
  // variable declared outside the loop, or an element whose index does not
  // move with the loop (`partial[threadIdx.x] += partial[threadIdx.x + s]`),
  // not `x[i] += 1` over the loop's own elements.
  const auto *For = dyn_cast<ForStmt>(S);
  std::optional<CountedLoop> Counted =
      For ? matchCountedLoop(For) : std::nullopt;
  const VarDecl *LoopVar = Counted ? Counted->Var : nullptr;
  SmallPtrSet<const VarDecl *, 8> Inner = varsDeclaredIn(Body);
  auto Carried = [&](const Expr *Target) {
    Target = Target->IgnoreParenImpCasts();
    if (const VarDecl *V = referencedVar(Target))
      return !Inner.contains(V) && V != LoopVar;
    if (const auto *Sub = dyn_cast<ArraySubscriptExpr>(Target))
      return !LoopVar || countReferences(Sub->getIdx(), LoopVar) == 0;
    return true;
  };
  const Stmt *Found = nullptr;
  forEachSubStmt(Body, [&](const Stmt *C) {
    std::optional<WriteOf> W = writeOf(C);
    if (Found || !W ||
        !W->Target->getType()->isFloatingType() &&
            !W->Target->getType()->isRecordType())
      return;
    if (!Carried(W->Target))
      return;
    bool Combines = false;
    if (const auto *B = dyn_cast<BinaryOperator>(C)) {
      BinaryOperatorKind Op = B->getOpcode();
      Combines = Op == BO_AddAssign || Op == BO_SubAssign ||
                 Op == BO_MulAssign || Op == BO_DivAssign;
      // a = a + v (a = fmaxf(a, v) is exact in any order)
      const VarDecl *Target = referencedVar(stripCasts(B->getLHS()));
      const auto *Arith = dyn_cast<BinaryOperator>(stripCasts(B->getRHS()));
      if (Op == BO_Assign && Target && Arith &&
          (Arith->isAdditiveOp() || Arith->isMultiplicativeOp()))
        Combines = countReferences(Arith, Target) > 0;
    } else if (const auto *Call = dyn_cast<CXXOperatorCallExpr>(C)) {
      OverloadedOperatorKind Op = Call->getOperator();
      Combines = Op == OO_PlusEqual || Op == OO_MinusEqual ||
                 Op == OO_StarEqual || Op == OO_SlashEqual;
    }
    if (Combines)
      Found = C;
  });
  return Found;
}

class Planner {
public:
  Planner(PassContext &Ctx, const KernelInfo &K, int64_t B, int64_t N,
          bool Reassociate)
      : Ctx(Ctx), K(K), B(B), N(N),
        Reassociate(Reassociate), Change{EditSet(Ctx.source().Path), {}} {}

  std::variant<BlockSizeChange, std::string> run() {
    if (std::optional<std::string> Why = checkSizes())
      return *Why;
    GridUse Use = GridUse::None;
    for (const FunctionDecl *F : kernelCode(K.Decl, Ctx.deviceContext()))
      if (std::optional<std::string> Why = checkCode(F, Use))
        return *Why;
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

  std::optional<std::string> checkSharedArray(const VarDecl *V,
                                              const Stmt *Body) {
    ASTContext &AC = Ctx.deviceContext();
    std::string Name = V->getNameAsString();
    const ConstantArrayType *CAT = AC.getAsConstantArrayType(V->getType());
    if (!CAT) {
      if (V->getType()->isArrayType())
        return "it uses dynamic shared memory ('" + Name + "')";
      return std::nullopt; // a shared scalar or struct
    }
    uint64_t Size = CAT->getSize().getZExtValue();
    bool MultiDim = CAT->getElementType()->isArrayType();
    if (!MultiDim && Size == uint64_t(B)) {
      TypeLoc TL = V->getTypeSourceInfo()->getTypeLoc();
      auto ATL = TL.getAsAdjusted<ConstantArrayTypeLoc>();
      const Expr *SizeExpr = ATL ? ATL.getSizeExpr() : nullptr;
      if (!SizeExpr || !isa<IntegerLiteral>(SizeExpr->IgnoreParens()) ||
          !isRewritable(SizeExpr->getSourceRange(), AC))
        return "the size of the shared array '" + Name + "' (" +
               std::to_string(B) +
               " elements, one a thread) is not written as a literal";
      if (std::optional<std::string> Why =
              edit(SizeExpr->getSourceRange(), Twine(N), AC))
        return Why;
      Change.Notes.push_back("shared array '" + Name + "' resized to " +
                             std::to_string(N));
      return std::nullopt;
    }
    // Any other size must not be tied to the threads.
    std::optional<std::string> Why;
    forEachSubStmt(Body, [&](const Stmt *S) {
      const auto *Sub = dyn_cast<ArraySubscriptExpr>(S);
      if (Why || !Sub)
        return;
      const Expr *Base = Sub->getBase()->IgnoreParenImpCasts();
      while (const auto *Inner = dyn_cast<ArraySubscriptExpr>(Base))
        Base = Inner->getBase()->IgnoreParenImpCasts();
      if (referencedVar(Base) != V)
        return;
      if (mentions(Sub->getIdx(), BuiltinVar::ThreadIdx) ||
          mentions(Sub->getIdx(), BuiltinVar::BlockDim))
        Why = "the shared array '" + Name + "' is indexed by thread at " +
              at(Sub->getBeginLoc(), AC) + " but is not one element a " +
              "thread";
    });
    return Why;
  }

  std::optional<std::string> checkCode(const FunctionDecl *F, GridUse &Use) {
    ASTContext &AC = Ctx.deviceContext();
    const Stmt *Body = F->getBody();
    ParentMap Parents(const_cast<Stmt *>(Body));
    std::optional<std::string> Why;
    forEachSubStmt(Body, [&](const Stmt *S) {
      if (Why)
        return;
      if (const auto *E = dyn_cast<Expr>(S)) {
        if (std::optional<BuiltinRef> R = matchBuiltin(E)) {
          if ((R->Var == BuiltinVar::ThreadIdx ||
               R->Var == BuiltinVar::BlockDim) &&
              R->Dim != 0) {
            Why = "it uses " + builtinName(*R) + " at " +
                  at(E->getBeginLoc(), AC) + " (a multi-dimensional block)";
            return;
          }
        }
      }
      if (!Reassociate)
        if (const Stmt *Acc = splitAccumulation(S)) {
          Why = "the floating-point accumulation at " +
                at(Acc->getBeginLoc(), AC) +
                " is split across threads by the block size; another size "
                "changes the rounding (reassociate=true allows it)";
          return;
        }
      if (const auto *Lit = dyn_cast<IntegerLiteral>(S);
          Lit && Lit->getValue() == uint64_t(B)) {
        Why = "it uses the constant " + std::to_string(B) +
              ", its block size, at " + at(Lit->getBeginLoc(), AC);
        return;
      }
      if (const auto *Cmp = dyn_cast<BinaryOperator>(S);
          Cmp && Cmp->isComparisonOp()) {
        for (auto [Side, Other] : {std::pair(Cmp->getLHS(), Cmp->getRHS()),
                                   std::pair(Cmp->getRHS(), Cmp->getLHS())}) {
          std::optional<int64_t> C = evaluateInt(Other, AC, Body);
          if (isBuiltin(stripCasts(Side), BuiltinVar::ThreadIdx) && C &&
              *C > 32) {
            Why = "it compares threadIdx.x with the constant " +
                  std::to_string(*C) + " at " + at(Cmp->getBeginLoc(), AC);
            return;
          }
        }
      }
      if (const auto *DS = dyn_cast<DeclStmt>(S)) {
        for (const Decl *D : DS->decls())
          if (const auto *V = dyn_cast<VarDecl>(D);
              V && V->hasAttr<CUDASharedAttr>() && !Why)
            Why = checkSharedArray(V, Body);
        return;
      }
      const auto *Ref = dyn_cast<Expr>(S);
      std::optional<BuiltinRef> R = Ref ? matchBuiltin(Ref) : std::nullopt;
      if (!R || R->Var != BuiltinVar::BlockIdx || isa<CastExpr, ParenExpr>(S))
        return;
      const Stmt *Top = arithmeticContext(Ref, Parents);
      GridUse This = mentions(Top, BuiltinVar::BlockDim) ? GridUse::PerThread
                                                         : GridUse::PerBlock;
      // A new grid can only cover at least as many threads as before, not
      // exactly as many: the index must be checked against a bound.
      if (This == GridUse::PerThread && !isBoundsChecked(Top, Parents, Body)) {
        Why = "the thread index at " + at(Top->getBeginLoc(), AC) +
              " is not compared with a bound (the kernel may rely on the "
              "exact number of threads)";
        return;
      }
      if (Use != GridUse::None && Use != This) {
        Why = "it uses blockIdx.x both on its own and combined with "
              "blockDim.x (at " +
              at(Ref->getBeginLoc(), AC) + ")";
        return;
      }
      Use = This;
    });
    return Why;
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
  return Planner(Ctx, K, OldThreads, NewThreads, Reassociate).run();
}

} // namespace kopt
