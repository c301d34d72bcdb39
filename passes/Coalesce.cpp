//===- Coalesce.cpp - Stage strided stores through shared memory ----------===//
//
// A 2D kernel that reads one element per thread contiguously along
// threadIdx.x and writes it where neighbouring threads land far apart
// (`out[c * rows + r] = in[r * cols + c]`, a transpose or permute) spends a
// 32-byte sector per element on the write side. The pass stages the block's
// values through a shared-memory tile and lets each thread write an element
// of another thread, chosen so that consecutive threads walk threadIdx.y:
//
//   phase 1  the body as written, its store replaced by
//            tile[threadIdx.y][threadIdx.x] = value
//   barrier
//   phase 2  the body as written for the thread (ty, tx) = (t % blockDim.y,
//            t / blockDim.y), t the thread's linear index, its value read
//            from tile[ty][tx]
//
// The tile's rows are padded so that phase 2's column reads fall in distinct
// banks. The body runs unchanged when blockDim.z is not 1 (run-time check,
// uniform across the block, so the barrier is reached by all or none).
//
// Legality. The kernel body is declarations followed by one store, possibly
// under an `if` without else; its only memory accesses are that store and
// one load in the stored value; it does not leave early, synchronize, talk
// to its warp, use threadIdx.z, call functions other than the toolkit's
// (whose results depend on their arguments only) or modify a variable. Then
// every thread of the block evaluates the same guard and indices in phase 2
// as the thread it stands in for did, so the block writes the same values
// to the same addresses; all of the block's loads happen before all of its
// stores, which is one interleaving of the original threads (each of which
// loads before it stores), so the rewrite is safe even when the pointers
// alias. It fires only where it helps: the load is contiguous along
// threadIdx.x, the store is not, and the store's index advances by one with
// threadIdx.y.
//
// rows-per-thread=R above 1 (thread coarsening): one thread keeps a single
// load in flight, too few to fill the memory system, so a block of the new
// kernel `<kernel>_kopt_coalesced` does the work of R consecutive blocks
// along y. Its sub-tile j is the original block blockIdx.y * R + j: the body
// as written with blockIdx.y and gridDim.y replaced by that block and the
// original grid's y extent (a new last parameter, `kopt_grid_y`); a block
// past that extent does nothing, so the same threads store the same values.
// Phase 2 walks the R * blockDim.y rows of the tile, the element of tile row
// q and column c standing for thread (c, q % blockDim.y) of block
// blockIdx.y * R + q / blockDim.y; where R divides blockDim.x a thread
// stores the same tile row every round, so its divisions run once (on an
// H100 the transpose went from 76% to 81% of the copy bandwidth with that)
// and its R shared loads are issued before the guarded stores. When every
// launch runs the same constant block, one deep, that is the only block the
// copy ever runs: it is written for it, with blockDim's extents as
// constants, a tile of exactly R * blockDim.y padded rows and only the
// phase-2 path that block takes (82.7% -> 84.7%, hand-made A/B on an H100).
// Every launch of the kernel becomes
// `{ const dim3 kopt_grid(G); k_kopt_coalesced<<<dim3(kopt_grid.x,
// (kopt_grid.y + R - 1) / R, kopt_grid.z), ...>>>(..., kopt_grid.y); }`.
// The tile holds R of the blocks of every launch whose block is known, up
// to 48 KiB (a larger one is refused: its fallback would be slower); -O's
// R=8 took the transpose from 85.1% to 86.4% of the copy bandwidth (H100,
// one A/B call).
//
// cols-per-thread=C above 1 (only where the copy is written for one
// block): a block also covers C blocks along x. Sub-tile j is the original
// block (blockIdx.x * C + j / R, blockIdx.y * R + j % R), staged at tile
// rows (j % R) * blockDim.y + ty and columns (j / R) * blockDim.x + tx;
// blockIdx.x and gridDim.x become that block and the original grid's x
// extent (`kopt_grid_x`, a parameter before `kopt_grid_y`), and tile column
// q stands for thread column q % blockDim.x of block blockIdx.x * C + q /
// blockDim.x. The same argument holds: each original thread of each
// original block is one tile element, loaded and stored by one thread of
// the copy. The tile's rows, read contiguously, grow C times as wide; on
// the transpose it measured no gain (83.9-84.6% with C=2 against 85.1%).
// Each launch's grid becomes ((x + C - 1) / C, (y + R - 1) / R, z).
//
// wide-blocks-only=true (as -O runs it) also asks that every launch in the
// file has a constant block a multiple of 32 wide and one deep: a warp then
// lies in one row of the block and its 32 strided stores fall in 32
// sectors. Where a warp spans several rows, neighbouring rows' stores share
// sectors already and staging measured slower.
//
//===----------------------------------------------------------------------===//

#include "CoalescedKernelText.h"
#include "Options.h"
#include "SourceLayout.h"
#include "kopt/Analysis/AffineForm.h"
#include "kopt/Analysis/BodyHazards.h"
#include "kopt/Analysis/IndexClassifier.h"
#include "kopt/Analysis/SharedMemory.h"
#include "kopt/Pass/Pass.h"

#include "clang/AST/ExprCXX.h"
#include "clang/AST/TypeLoc.h"
#include "clang/Basic/SourceManager.h"

using namespace clang;
using namespace llvm;

namespace kopt {

namespace {

/// A pointer parameter subscripted directly: `p[i]`.
const ParmVarDecl *subscriptedParam(const ArraySubscriptExpr *A) {
  const auto *Ref = dyn_cast<DeclRefExpr>(A->getBase()->IgnoreParenImpCasts());
  const auto *P = Ref ? dyn_cast<ParmVarDecl>(Ref->getDecl()) : nullptr;
  return P && P->getType()->isPointerType() ? P : nullptr;
}

/// Locals followed to their initializers at most this deep (`int x = x;`
/// parses).
constexpr unsigned MaxDepth = 16;

/// True when E, or the initializer of a local it reads, mentions
/// threadIdx's dimension Dim (or the locals nest too deep to tell).
bool mentionsThreadIdx(const Expr *E, unsigned Dim, const Stmt *Scope,
                       unsigned Depth = 0) {
  if (Depth > MaxDepth)
    return true;
  bool Found = false;
  forEachSubStmt(E, [&](const Stmt *S) {
    const auto *X = dyn_cast<Expr>(S);
    if (!X || Found)
      return;
    if (isBuiltin(X, BuiltinVar::ThreadIdx, Dim))
      Found = true;
    else if (isa<DeclRefExpr>(X) && followLocalInit(X, Scope) != X)
      Found =
          mentionsThreadIdx(followLocalInit(X, Scope), Dim, Scope, Depth + 1);
  });
  return Found;
}

/// Top-level addends of an index, through + and - and locals' initializers,
/// each with its sign.
void addends(const Expr *E, const Stmt *Scope, int Sign,
             SmallVectorImpl<std::pair<const Expr *, int>> &Out,
             unsigned Depth = 0) {
  E = stripCasts(E)->IgnoreParens();
  if (const auto *B = dyn_cast<BinaryOperator>(E);
      B && (B->getOpcode() == BO_Add || B->getOpcode() == BO_Sub)) {
    addends(B->getLHS(), Scope, Sign, Out, Depth);
    addends(B->getRHS(), Scope, B->getOpcode() == BO_Sub ? -Sign : Sign, Out,
            Depth);
    return;
  }
  if (const Expr *Init = followLocalInit(E, Scope);
      Init != E && Depth < MaxDepth)
    return addends(Init, Scope, Sign, Out, Depth + 1);
  Out.push_back({E, Sign});
}

/// The index moves to the next element from one threadIdx.<Dim> to the
/// next: one addend holds that index with coefficient +1 and is otherwise
/// the same for all threads of the block; no other addend mentions it.
bool contiguousAlong(const Expr *Index, unsigned Dim, const Stmt *Scope,
                     const ASTContext &Ctx) {
  SmallVector<std::pair<const Expr *, int>, 4> Parts;
  addends(Index, Scope, 1, Parts);
  unsigned Holding = 0;
  for (auto [Part, Sign] : Parts) {
    if (!mentionsThreadIdx(Part, Dim, Scope))
      continue;
    ++Holding;
    AffineContext A(Ctx, Scope);
    std::optional<AffineForm> F = A.build(Part);
    if (!F)
      return false;
    unsigned Tid = A.builtin(BuiltinVar::ThreadIdx, Dim);
    if (Sign * F->coefficient(Tid) != 1)
      return false;
    AffineForm Rest = *F;
    Rest.Terms.erase(Tid);
    if (!A.isUniform(Rest))
      return false;
  }
  return Holding == 1;
}

/// A function of the toolkit's headers whose result depends on its
/// arguments only: it takes at least one argument, all of them by value and
/// of arithmetic or class type (no pointer to write through), returns a
/// value, and is not one of the intrinsics that read the thread's lane,
/// warp, clock or that synchronize (those with no argument, such as
/// clock() or __activemask(), are already excluded).
bool isPureToolkitFunction(const FunctionDecl *F, const SourceManager &SM) {
  if (!SM.isInSystemHeader(F->getLocation()) || F->isVariadic() ||
      F->getNumParams() == 0 || F->getReturnType()->isVoidType() ||
      !F->getIdentifier())
    return false;
  for (const ParmVarDecl *P : F->parameters()) {
    QualType T = P->getType();
    if (!T->isArithmeticType() && !T->isRecordType())
      return false;
  }
  StringRef Name = F->getName();
  static const char *const Impure[] = {
      "__shfl",       "__ballot", "__any",       "__all",
      "__uni",        "__match",  "__reduce",    "__lanemask",
      "__activemask", "clock",    "__nanosleep", "__sync"};
  for (const char *Prefix : Impure)
    if (Name.starts_with(Prefix))
      return false;
  return !Name.ends_with("_sync");
}

class CoalescePass : public KernelPass<CoalesceOptions> {
  bool rewritesInstances() const override { return true; }

  /// The kernel's one store through a pointer parameter whose index is not
  /// contiguous along threadIdx.x; null when it has none (the pass is then
  /// silent) or several.
  static const BinaryOperator *stridedStore(const Stmt *Body,
                                            const FunctionDecl *Kernel,
                                            const ASTContext &Ctx,
                                            unsigned &Count) {
    const BinaryOperator *Found = nullptr;
    Count = 0;
    forEachSubStmt(Body, [&](const Stmt *S) {
      const auto *B = dyn_cast<BinaryOperator>(S);
      if (!B || !B->isAssignmentOp())
        return;
      const auto *A = dyn_cast<ArraySubscriptExpr>(B->getLHS()->IgnoreParens());
      if (!A || !subscriptedParam(A))
        return;
      IndexClass C = classifyIndex(A->getIdx(), Kernel, Ctx);
      if ((C.K == IndexClass::Strided || C.K == IndexClass::Unknown) &&
          !contiguousAlong(A->getIdx(), 0, Kernel->getBody(), Ctx)) {
        Found = B;
        ++Count;
      }
    });
    return Count == 1 ? Found : nullptr;
  }

  /// Why the body may not be run twice over (it leaves early, waits for
  /// the block, talks to its warp or already holds kopt's names).
  static std::optional<std::string> checkHazards(const CompoundStmt *Body,
                                                 ASTContext &Ctx) {
    std::optional<BodyHazard> H =
        firstHazard(Body, Ctx,
                    {BodyHazard::Return, BodyHazard::Goto, BodyHazard::Label,
                     BodyHazard::Barrier, BodyHazard::WarpCollective,
                     BodyHazard::ReservedName},
                    "kopt_");
    if (!H)
      return std::nullopt;
    return "the body has " + (H->Name.empty()
                                  ? std::string("a return, goto or label")
                                  : "'" + H->Name + "'");
  }

  /// Why the body is not declarations followed by one (guarded) store.
  static std::optional<std::string> checkShape(const CompoundStmt *Body,
                                               const BinaryOperator *Store) {
    if (Body->body_empty())
      return "the body is empty";
    for (const Stmt *S : llvm::drop_end(Body->body())) {
      const auto *D = dyn_cast<DeclStmt>(S);
      if (!D)
        return std::string("a statement before the store is not a "
                           "declaration");
      for (const Decl *X : D->decls()) {
        const auto *V = dyn_cast<VarDecl>(X);
        if (!V || !V->hasInit() || !V->hasLocalStorage() ||
            !V->getType()->isScalarType())
          return "'" +
                 (isa<NamedDecl>(X) ? cast<NamedDecl>(X)->getNameAsString()
                                    : std::string("a declaration")) +
                 "' is not an initialized scalar local";
      }
    }
    const Stmt *Last = Body->body_back();
    if (const auto *If = dyn_cast<IfStmt>(Last)) {
      if (If->getElse() || If->getInit() || If->getConditionVariable())
        return std::string("the store's 'if' has an else, an init-statement "
                           "or a condition variable");
      Last = If->getThen();
      if (const auto *C = dyn_cast<CompoundStmt>(Last); C && C->size() == 1)
        Last = C->body_front();
    }
    const auto *E = dyn_cast<Expr>(Last);
    if (!E || E->IgnoreParens() != Store)
      return std::string("the body is not declarations followed by the "
                         "store, alone or under an if");
    if (Store->getOpcode() != BO_Assign)
      return std::string("the store is a compound assignment (it reads the "
                         "output)");
    return std::nullopt;
  }

  /// Why the body's statements other than the store may not be re-run for
  /// another thread, or the store and its load may not be split.
  static std::optional<std::string> checkBody(const CompoundStmt *Body,
                                              Shape &Sh, ASTContext &Ctx) {
    const SourceManager &SM = Ctx.getSourceManager();
    std::optional<std::string> Why;
    auto Refuse = [&](const Twine &Reason) {
      if (!Why)
        Why = Reason.str();
    };
    forEachSubStmt(Body, [&](const Stmt *S) {
      if (isa<AsmStmt>(S))
        return Refuse("the body has inline assembly");
      if (const auto *E = dyn_cast<Expr>(S)) {
        if (std::optional<BuiltinRef> B = matchBuiltin(E);
            B && B->Var == BuiltinVar::ThreadIdx && B->Dim == 2)
          return Refuse("the body uses threadIdx.z");
      }
      if (const auto *A = dyn_cast<ArraySubscriptExpr>(S)) {
        if (A == Sh.Target)
          return;
        if (!Sh.Load && subscriptedParam(A) &&
            Sh.Store->getRHS()->getSourceRange().fullyContains(
                A->getSourceRange())) {
          Sh.Load = A;
          return;
        }
        return Refuse("it accesses memory besides one load in the stored "
                      "value and the store");
      }
      if (const auto *U = dyn_cast<UnaryOperator>(S)) {
        if (U->getOpcode() == UO_Deref)
          return Refuse("it accesses memory through '*'");
        if (U->isIncrementDecrementOp())
          return Refuse("it modifies a variable");
      }
      if (const auto *M = dyn_cast<MemberExpr>(S); M && M->isArrow())
        return Refuse("it accesses memory through '->'");
      if (const auto *B = dyn_cast<BinaryOperator>(S);
          B && B->isAssignmentOp() && B != Sh.Store)
        return Refuse("it modifies a variable");
      if (const auto *D = dyn_cast<DeclStmt>(S))
        for (const Decl *X : D->decls())
          if (X->hasAttr<CUDASharedAttr>() ||
              (isa<VarDecl>(X) && cast<VarDecl>(X)->isStaticLocal()))
            return Refuse("it declares shared or static variables");
      if (const auto *C = dyn_cast<CallExpr>(S)) {
        const FunctionDecl *F = C->getDirectCallee();
        if (!F || !isPureToolkitFunction(F, SM))
          return Refuse("it calls '" +
                        (F ? F->getNameAsString() : std::string("?")) +
                        "' (only the toolkit's side-effect-free functions "
                        "may be re-run for another thread)");
      }
    });
    if (Why)
      return Why;
    if (!Sh.Load)
      return std::string("the stored value loads nothing from a pointer "
                         "parameter");
    return std::nullopt;
  }

  /// Why not every launch of the kernel is known to run blocks a multiple
  /// of 32 threads wide and one deep, where each warp lies in one row of
  /// the block and its 32 strided stores fall in 32 sectors (where a warp
  /// spans several rows, neighbouring rows' stores share sectors already).
  static std::optional<std::string> whyNotWideBlocks(KernelContext &KC) {
    const KernelInfo &K = KC.kernel();
    if (KC.info().hasUnknownLaunches(K.Name))
      return "'" + K.Name + "' is referenced other than by a launch";
    std::vector<const LaunchSite *> Launches = KC.info().launchesOf(K.Name);
    if (Launches.empty())
      return "no launch of '" + K.Name + "' in this file";
    for (const LaunchSite *L : Launches) {
      const DimValue &D = L->Block.Value;
      if (!D.X || !D.Y || !D.Z)
        return "the launch at " + str(L->Loc) +
               " has a block whose extents are not constants";
      if (*D.X <= 0 || *D.X % 32 != 0 || *D.Z != 1)
        return "the launch at " + str(L->Loc) + " has " + std::to_string(*D.X) +
               " x " + std::to_string(*D.Y) + " x " + std::to_string(*D.Z) +
               " blocks, not a multiple of 32 wide and one deep";
    }
    return std::nullopt;
  }

  void runOnKernel(KernelContext &KC) override {
    const KernelInfo &K = KC.kernel();
    ASTContext &Ctx = KC.deviceContext();
    const auto *Body = dyn_cast<CompoundStmt>(K.Decl->getBody());
    if (!Body)
      return;
    unsigned Count = 0;
    const BinaryOperator *Store = stridedStore(Body, K.Decl, Ctx, Count);
    if (Count > 1)
      return KC.missed("not coalesced: " + Twine(Count) +
                       " stores are strided across threadIdx.x; the pass "
                       "stages one");
    if (!Store)
      return;
    LineCol At = lineCol(Store->getBeginLoc(), Ctx);
    auto Missed = [&](const Twine &Why) {
      KC.missed(At, "strided store not coalesced: " + Why);
    };
    Shape Sh;
    Sh.Store = Store;
    Sh.Target = cast<ArraySubscriptExpr>(Store->getLHS()->IgnoreParens());
    if (std::optional<std::string> Why = checkHazards(Body, Ctx))
      return Missed(*Why);
    if (std::optional<std::string> Why = checkShape(Body, Store))
      return Missed(*Why);
    if (std::optional<std::string> Why = checkBody(Body, Sh, Ctx))
      return Missed(*Why);
    QualType Elem =
        Sh.Target->getType().getCanonicalType().getUnqualifiedType();
    if (!Elem->isArithmeticType() || !isa<BuiltinType>(Elem))
      return Missed("the element type '" + Elem.getAsString() +
                    "' is not a builtin arithmetic type");
    // In a template's instantiation the tile is spelled `T` where the
    // parameter's pointee is (typeAsWritten); elsewhere as before.
    if (const ParmVarDecl *P = subscriptedParam(Sh.Target)) {
      QualType Written = P->getType()->getPointeeType().getUnqualifiedType();
      if (isa<SubstTemplateTypeParmType>(Written))
        Elem = Written;
    }
    if (!contiguousAlong(Sh.Load->getIdx(), 0, Body, Ctx))
      return Missed("the load is not contiguous along threadIdx.x (staging "
                    "would not coalesce it)");
    if (!contiguousAlong(Sh.Target->getIdx(), 1, Body, Ctx))
      return Missed("the store's index does not advance by one element with "
                    "threadIdx.y");
    if (options().WideBlocksOnly)
      if (std::optional<std::string> Why = whyNotWideBlocks(KC))
        return Missed(*Why + " (wide-blocks-only)");
    uint64_t Rows = options().RowsPerThread;
    if (Rows < 1 || Rows > 8)
      return Missed("rows-per-thread=" + Twine(Rows) +
                    " is not between 1 and 8");
    uint64_t Cols = options().ColsPerThread;
    if (Cols < 1 || Cols > 4)
      return Missed("cols-per-thread=" + Twine(Cols) +
                    " is not between 1 and 4");
    if (Rows > 1 || Cols > 1)
      return coarsen(KC, Body, Sh, Elem, {unsigned(Rows), unsigned(Cols)}, At);
    std::optional<std::string> Text =
        stagedBody(K.Decl, Body, Sh, Elem, Ctx, KC.code());
    if (!Text)
      return Missed("the body is written in a macro");
    // Inside the braces, which stay: a template's static_assert goes just
    // after the opening one (runOnInstances).
    const SourceManager &SM = Ctx.getSourceManager();
    unsigned Begin = SM.getFileOffset(Body->getLBracLoc()) + 1;
    unsigned End = SM.getFileOffset(Body->getRBracLoc());
    StringRef Inner = *Text;
    if (!Inner.consume_front("{") || !Inner.consume_back("}"))
      return Missed("the body is written in a macro");
    if (Error E = KC.edits().replaceChars(Begin, End - Begin, Inner))
      return Missed(toString(std::move(E)));
    KC.applied(At, "strided store staged through a shared-memory tile of " +
                       Twine(TileCapacity) + " " + Elem.getAsString() +
                       ": both global sides are contiguous (the original "
                       "body runs when blockDim.z != 1)");
  }

  /// rows-per-thread above 1: adds `<kernel>_kopt_coalesced` and makes every
  /// launch run it (see the file comment).
  void coarsen(KernelContext &KC, const CompoundStmt *Body, const Shape &Sh,
               QualType Elem, Fold F, LineCol At) {
    const KernelInfo &K = KC.kernel();
    ASTContext &Ctx = KC.deviceContext();
    ASTContext &HC = KC.hostContext();
    unsigned Rows = F.Rows;
    auto Missed = [&](const Twine &Why) {
      KC.missed(At, "strided store not coalesced with " + F.str() + ": " + Why);
    };
    std::string NewName = K.Name + "_kopt_coalesced";
    if (StringRef(K.Name).contains("_kopt_"))
      return Missed("'" + K.Name + "' is a copy kopt made");
    if (KC.info().kernel(NewName))
      return Missed("'" + NewName + "' exists already");
    if (KC.info().hasUnknownLaunches(K.Name))
      return Missed("'" + K.Name + "' is referenced other than by a launch");
    std::vector<const LaunchSite *> Launches = KC.info().launchesOf(K.Name);
    if (Launches.empty())
      return Missed("no launch of '" + K.Name + "' in this file");
    std::optional<FixedBlock> Fixed = fixedBlock(KC.info(), K.Name);
    // Several blocks along x: only a tile sized for one constant block.
    if (F.Cols > 1 && !Fixed) {
      // Not constant (the reason), or constant but deep or empty.
      std::variant<BlockExtents, std::string> Block =
          KC.info().constantBlock(K.Name);
      const auto *Why = std::get_if<std::string>(&Block);
      return Missed("every launch must run one constant block one deep (" +
                    (Why ? *Why
                         : "they run " + std::get<BlockExtents>(Block).str() +
                               " blocks") +
                    ")");
    }
    // The tile holds the blocks of every launch whose block is known, up
    // to the 48 KiB of static shared memory a block may declare: a larger
    // block would run the unstaged fallback R times a block, slower than
    // the original, so it is refused. A copy not written for one block
    // keeps at least TileCapacity elements, for the blocks it cannot see.
    uint64_t Limit =
        StaticSharedLimit / Ctx.getTypeSizeInChars(Elem).getQuantity();
    uint64_t Capacity = Fixed ? 0 : TileCapacity;
    for (const LaunchSite *L : Launches) {
      const DimValue &D = L->Block.Value;
      if (!D.X || !D.Y)
        continue;
      uint64_t Need = tileRows(Rows, uint64_t(*D.Y)) *
                      tilePitch(Rows, F.Cols * uint64_t(*D.X), uint64_t(*D.Y));
      if (Need > Limit)
        return Missed("the launch at " + str(L->Loc) + " has " + Twine(*D.X) +
                      " x " + Twine(*D.Y) + " blocks: " + Twine(F.Cols * Rows) +
                      " of them need " + Twine(Need) +
                      " tile elements, more than " + Twine(Limit) +
                      " (48 KiB of shared memory)");
      Capacity = std::max(Capacity, Need);
    }
    std::optional<std::string> Decl =
        coarsenedDecl(K.Decl, F.Cols > 1, Ctx, KC.code());
    std::optional<std::string> NewBody = coarsenedBody(
        K.Decl, Body, Sh, Elem, F, Fixed, Capacity, Ctx, KC.code());
    if (!Decl || !NewBody)
      return Missed("the kernel is written in a macro");
    EditSet Edits(KC.pass().source().Path);
    SourceLocation End =
        Ctx.getSourceManager().getExpansionLoc(K.Decl->getBody()->getEndLoc());
    if (Error E = Edits.insertAfterToken(End, "\n\n" + *Decl + *NewBody, Ctx))
      return Missed(toString(std::move(E)));
    for (const LaunchSite *L : Launches) {
      std::optional<std::string> Text = coarsenedLaunch(*L, F, HC);
      auto Off = L->Call ? stmtOffsets(L->Call, HC) : std::nullopt;
      if (!Text || !Off)
        return Missed("the launch at " + str(L->Loc) +
                      " is written in a macro or cannot be read");
      if (Error E =
              Edits.replaceChars(Off->first, Off->second - Off->first, *Text))
        return Missed(toString(std::move(E)));
    }
    if (Error E = KC.edits().merge(Edits))
      return Missed(toString(std::move(E)));
    std::string Size = std::to_string(Capacity);
    std::string Covered =
        F.Cols > 1 ? std::to_string(F.Cols) + " x " + std::to_string(Rows) +
                         " of the original blocks (along x and y)"
                   : std::to_string(Rows) + " of the original blocks along y";
    KC.applied(At, "strided store staged through a shared-memory tile of " +
                       Size + " " + Elem.getAsString() + " in '" + NewName +
                       "', each block covering " + Covered + "; " +
                       Twine(Launches.size()) + " launch" +
                       (Launches.size() > 1 ? "es run" : " runs") + " it" +
                       (Fixed ? ", specialized to their " +
                                    std::to_string(Fixed->X) + " x " +
                                    std::to_string(Fixed->Y) + " blocks"
                              : std::string()));
  }

  /// The block all launches run, when it is one constant block one deep.
  /// The copy is launched from those sites only, so its blockDim is that
  /// block in every run: the copy is written for it (constant extents
  /// measured 82.7% -> 84.7% of the copy bandwidth on an H100 transpose).
  static std::optional<FixedBlock> fixedBlock(const ProgramInfo &Info,
                                              StringRef Kernel) {
    std::variant<BlockExtents, std::string> Block = Info.constantBlock(Kernel);
    const auto *B = std::get_if<BlockExtents>(&Block);
    if (!B || B->Z != 1 || B->X <= 0 || B->Y <= 0)
      return std::nullopt;
    return FixedBlock{uint64_t(B->X), uint64_t(B->Y)};
  }
};

} // namespace

std::unique_ptr<Pass> createCoalescePass() {
  return std::make_unique<CoalescePass>();
}

} // namespace kopt
