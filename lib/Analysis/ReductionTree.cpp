//===- ReductionTree.cpp - Shared-memory tree reductions ------------------===//

#include "kopt/Analysis/ReductionTree.h"
#include "TreeMatch.h"
#include "kopt/Analysis/BodyHazards.h"
#include "kopt/Analysis/ControlFlow.h"

#include "clang/AST/Attr.h"
#include "clang/AST/ParentMap.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cstdint>

using namespace clang;
using namespace clang::ast_matchers;
using namespace llvm;

namespace kopt {

namespace {

/// ASTMatchers has no node matcher for computed gotos.
const internal::VariadicDynCastAllOfMatcher<Stmt, IndirectGotoStmt>
    indirectGotoStmt;

/// The names of the functions the tree may combine with.
bool isMinMax(StringRef Name) {
  return Name == "fmaxf" || Name == "fminf" || Name == "fmax" ||
         Name == "fmin" || Name == "max" || Name == "min";
}

/// The first line of Text, cut to 40 characters, to quote code in remarks.
std::string brief(StringRef Text) {
  StringRef First = Text.split('\n').first.rtrim();
  if (First.size() > 40)
    return First.take_front(40).str() + "...";
  return First.size() < Text.size() ? First.str() + " ..." : First.str();
}

/// True if every thread of the block takes return R or none does: only
/// compound statements and branches of ifs on block-uniform conditions
/// (isBlockUniform) lie between R and Body.
bool blockReturns(const Stmt *R, const FunctionDecl *F, ParentMap &Parents) {
  const Stmt *Body = F->getBody();
  const Stmt *Child = R;
  for (const Stmt *P = Parents.getParent(R); P && Child != Body;
       Child = P, P = Parents.getParent(P)) {
    if (isa<CompoundStmt>(P))
      continue;
    const auto *If = dyn_cast<IfStmt>(P);
    if (!If || If->getInit() || Child == If->getCond() ||
        !isBlockUniform(If->getCond(), F))
      return false;
  }
  return true;
}

/// Statements and expressions that break uniform control flow before a
/// point: a return (some threads may leave) or a goto (anywhere).
const Stmt *findEarlyExit(const FunctionDecl *F, SourceLocation Before,
                          ASTContext &AC, bool UniformBranches) {
  const SourceManager &SM = AC.getSourceManager();
  const Stmt *S = F->getBody();
  ParentMap Parents(const_cast<Stmt *>(S));
  for (const BoundNodes &N :
       match(findAll(stmt(anyOf(gotoStmt(), indirectGotoStmt(), returnStmt()),
                          unless(hasAncestor(lambdaExpr())))
                         .bind("s")),
             *S, AC)) {
    const auto *X = N.getNodeAs<Stmt>("s");
    if (!isa<ReturnStmt>(X))
      return X;
    if (SM.isBeforeInTranslationUnit(X->getBeginLoc(), Before) &&
        !(UniformBranches && blockReturns(X, F, Parents)))
      return X;
  }
  return nullptr;
}

/// The shape of a tree around a loop that looks like one; a Refusal if
/// the shape differs.
Decision<ReductionTree> matchShape(const FunctionDecl *F, const ForStmt *Loop,
                                   const ParentMap &Parents, ASTContext &AC) {
  LineCol Loc = lineCol(Loop->getBeginLoc(), AC);
  const Stmt *Body = F->getBody();
  auto Refuse = [&](const Twine &Msg) { return Refusal{Msg.str(), Loc}; };
  // warp-reduce's in-order tail keeps the rounds of 32 and more in a loop
  // of its own, `for (int kopt_s = blockDim.x / 2; kopt_s > 16; ...)`.
  if (const auto *DS = dyn_cast_or_null<DeclStmt>(Loop->getInit()))
    if (const auto *V = dyn_cast_or_null<VarDecl>(
            DS->isSingleDecl() ? DS->getSingleDecl() : nullptr))
      if (V->getName() == "kopt_s")
        return Refuse("this is warp-reduce's in-order tail already");
  const VarDecl *SizeVar = nullptr;
  const Expr *SizeConst = nullptr;
  bool StartIsConst = false;
  int64_t TailRounds = 0;
  const VarDecl *S = matchTreeHead(Loop, AC, &SizeVar, Body, &SizeConst,
                                   &StartIsConst, &TailRounds);
  if (!S && F->isTemplated())
    if (const auto *DS = dyn_cast_or_null<DeclStmt>(Loop->getInit()))
      if (const auto *V = dyn_cast_or_null<VarDecl>(
              DS->isSingleDecl() ? DS->getSingleDecl() : nullptr);
          V && V->getInit() && V->getInit()->isValueDependent())
        return Refuse("the tree loop starts from '" +
                      oneLine(sourceText(V->getInit()->getSourceRange(), AC)) +
                      "', which depends on the template's parameters");
  if (!S || isModifiedIn(S, Loop->getBody()))
    return Refuse("the tree loop is not 'for (int s = blockDim.x / 2; "
                  "s > 0; s >>= 1)' (or 'B / 2' with B a parameter, a local "
                  "that is never changed or a constant, or a constant like "
                  "'128'): the rewrite covers "
                  "blockDim.x threads");
  const char *StepShape = "the tree step is not 'if (t < s) A[t] = op(A[t], "
                          "A[t + s]); __syncthreads();' (or the barrier "
                          "first) with t threadIdx.x";
  const auto *LoopBody = dyn_cast<CompoundStmt>(Loop->getBody());
  if (!LoopBody || LoopBody->size() != 2)
    return Refuse(StepShape);
  bool SyncFirst = isSyncthreads(LoopBody->body_front());
  if (!SyncFirst && !isSyncthreads(LoopBody->body_back()))
    return Refuse(StepShape);
  const auto *If = dyn_cast<IfStmt>(SyncFirst ? LoopBody->body_back()
                                              : LoopBody->body_front());
  if (!If || If->getElse() || If->getInit() || If->getConditionVariable())
    return Refuse(StepShape);
  const auto *Cond = dyn_cast<BinaryOperator>(If->getCond()->IgnoreParens());
  if (!Cond ||
      !((Cond->getOpcode() == BO_LT && isThreadIdxX(Cond->getLHS(), Body) &&
         referencedVar(Cond->getRHS()) == S) ||
        (Cond->getOpcode() == BO_GT && isThreadIdxX(Cond->getRHS(), Body) &&
         referencedVar(Cond->getLHS()) == S)))
    return Refuse(StepShape);
  const Stmt *Update = single(If->getThen());
  if (const auto *C = dyn_cast<CompoundStmt>(Update))
    return Refuse("the tree step has " + Twine(C->size()) +
                  " statements (a value/index pair, or several arrays); "
                  "only one array combined by one operator is handled");

  ReductionTree T;
  T.Loop = Loop;
  T.Loc = Loc;
  T.BlockSize = SizeVar;
  if (SizeConst) {
    int64_t C = SizeConst->getIntegerConstantExpr(AC)->getExtValue();
    if (StartIsConst) // 2 * C below; any C this clamps is refused anyway
      C = std::clamp<int64_t>(C, INT64_MIN / 2, INT64_MAX / 2);
    std::string Text = oneLine(sourceText(SizeConst->getSourceRange(), AC));
    T.ConstSize = StartIsConst ? 2 * C : C;
    T.ConstSizeText = StartIsConst ? "2 * " + Text : Text;
    T.ConstStartText = StartIsConst ? Text : Text + " / 2";
  }
  T.SyncFirst = SyncFirst;
  return finishShape(
      T, Update,
      [&](const Expr *E, const ValueDecl *A) { return isOwnSlot(E, A, Body); },
      [&](const Expr *E, const ValueDecl *A) {
        return isPartnerSlot(E, A, S, Body);
      },
      StepShape, TailRounds, Parents, Body, AC);
}

} // namespace

/// The rest of a tree once its loop's head and step are known: the update
/// `A[x] = op(A[x], A[y])` (or `A[x] += A[y]`) with IsOwn(A[x]) and
/// IsPartner(A[y]), then the store and barrier before the loop and, for a
/// loop that stops above TailRounds, the warp tail after it.
Decision<ReductionTree> finishShape(ReductionTree T, const Stmt *Update,
                                    SlotTest IsOwn, SlotTest IsPartner,
                                    const char *StepShape, int64_t TailRounds,
                                    const ParentMap &Parents, const Stmt *Body,
                                    ASTContext &AC) {
  auto Refuse = [&](const Twine &Msg) { return Refusal{Msg.str(), T.Loc}; };
  const ForStmt *Loop = T.Loop;
  const auto *UB = dyn_cast<BinaryOperator>(Update);
  if (!UB || (UB->getOpcode() != BO_Assign && UB->getOpcode() != BO_AddAssign))
    return Refuse(StepShape);
  T.Array = subscriptBase(UB->getLHS());
  if (!T.Array || !IsOwn(UB->getLHS(), T.Array))
    return Refuse(StepShape);
  T.Element = UB->getLHS()->getType();
  T.Combine = UB;
  auto Operands = [&](const Expr *X, const Expr *Y) {
    return (IsOwn(X, T.Array) && IsPartner(Y, T.Array)) ||
           (IsOwn(Y, T.Array) && IsPartner(X, T.Array));
  };
  unsigned Refs = 3;
  std::string OpText = "'" + sourceText(UB->getSourceRange(), AC) + "'";
  if (UB->getOpcode() == BO_AddAssign) {
    if (!IsPartner(UB->getRHS(), T.Array))
      return Refuse(StepShape);
    T.Add = true;
    Refs = 2;
  } else if (const auto *B = dyn_cast<BinaryOperator>(
                 UB->getRHS()->IgnoreParenImpCasts())) {
    if (!Operands(B->getLHS(), B->getRHS()))
      return Refuse(StepShape);
    if (B->getOpcode() != BO_Add)
      return Refuse("the tree combines with '" + B->getOpcodeStr() +
                    "'; only +, fmaxf, fminf, fmax, fmin, max and min are "
                    "handled");
    if (!AC.hasSameUnqualifiedType(B->getType(), T.Element))
      return Refuse("the tree's sum has type '" + B->getType().getAsString() +
                    "', not the element type");
    T.Add = true;
  } else if (const auto *C =
                 dyn_cast<CallExpr>(UB->getRHS()->IgnoreParenImpCasts())) {
    if (C->getNumArgs() != 2 || !Operands(C->getArg(0), C->getArg(1)))
      return Refuse(StepShape);
    const FunctionDecl *FD = C->getDirectCallee();
    if (!FD || !FD->getIdentifier() || !isMinMax(FD->getName()))
      return Refuse("the tree combines with " + OpText +
                    "; only +, fmaxf, fminf, fmax, fmin, max and min are "
                    "handled");
    // The names must be the CUDA/C library's: a function of the user's
    // called max may compute anything.
    if (!AC.getSourceManager().isInSystemHeader(FD->getLocation()))
      return Refuse("the tree combines with '" + FD->getName() +
                    "', declared at " + str(lineCol(FD->getLocation(), AC)) +
                    " rather than by CUDA's headers");
    // No conversion on the way in or out: fmaxf on doubles would round.
    if (!AC.hasSameUnqualifiedType(C->getType(), T.Element) ||
        !AC.hasSameUnqualifiedType(C->getArg(0)->getType(), T.Element) ||
        !AC.hasSameUnqualifiedType(C->getArg(1)->getType(), T.Element))
      return Refuse("the tree combines with " + OpText + " through a " +
                    "conversion: '" + FD->getName() + "' does not take '" +
                    T.Element.getAsString() + "'");
    T.Callee = FD;
    T.CalleeText = sourceText(C->getCallee()->getSourceRange(), AC);
  } else {
    return Refuse(StepShape);
  }
  if (countReferences(Loop, T.Array) != Refs)
    return Refuse(StepShape);

  // The store and the barrier right before the loop.
  const char *Prelude = "the tree is not preceded by 'A[threadIdx.x] = "
                        "value; __syncthreads();'";
  // `#pragma unroll` wraps the loop in an AttributedStmt; the pragma lies
  // between the store and the loop's end, so the rewrite replaces it too.
  const Stmt *InBlock = Loop;
  if (const auto *AS = dyn_cast_or_null<AttributedStmt>(
          Parents.getParent(const_cast<ForStmt *>(Loop)));
      AS && llvm::all_of(AS->getAttrs(),
                         [](const Attr *A) { return isa<LoopHintAttr>(A); }))
    InBlock = AS;
  const auto *Block = dyn_cast_or_null<CompoundStmt>(
      Parents.getParent(const_cast<Stmt *>(InBlock)));
  if (!Block)
    return Refuse(Prelude);
  auto It = llvm::find(Block->body(), InBlock);
  size_t Index = It - Block->body_begin();
  if (Index < 2 || !isSyncthreads(Block->body_begin()[Index - 1]))
    return Refuse(Prelude);
  const auto *Store = dyn_cast<BinaryOperator>(Block->body_begin()[Index - 2]);
  if (!Store || Store->getOpcode() != BO_Assign ||
      !isOwnSlot(Store->getLHS(), T.Array, Body) ||
      countReferences(Store, T.Array) != 1)
    return Refuse(Prelude);
  T.Block = Block;
  T.Store = Store;
  T.Sync = Block->body_begin()[Index - 1];
  T.Value = Store->getRHS();
  if (TailRounds) {
    const Stmt *After =
        Index + 1 < Block->size() ? Block->body_begin()[Index + 1] : nullptr;
    Decision<const IfStmt *> Tail =
        matchWarpTail(After, T, TailRounds, Body, AC);
    if (auto *R = std::get_if<Refusal>(&Tail))
      return *R;
    T.Tail = std::get<const IfStmt *>(Tail);
    T.TailRounds = TailRounds;
    T.TailLoc = lineCol(T.Tail->getBeginLoc(), AC);
  }
  return T;
}

/// The trees of F whose shape matched, and refusals for the others.
void findReductionTrees(const FunctionDecl *F, ASTContext &AC,
                        std::vector<ReductionTree> &Trees,
                        std::vector<Refusal> &Shapeless) {
  ParentMap Parents(F->getBody());
  for (const BoundNodes &N :
       match(findAll(forStmt(unless(hasAncestor(lambdaExpr()))).bind("f")),
             *F->getBody(), AC)) {
    const auto *For = N.getNodeAs<ForStmt>("f");
    const Expr *SizeConst = nullptr;
    const VarDecl *Doubling =
        matchDoublingHead(For, AC, F->getBody(), &SizeConst);
    bool Barrier =
        For->getBody() &&
        firstHazard(For->getBody(), AC, {BodyHazard::Barrier}).has_value();
    if (!(Doubling && Barrier) && !looksLikeTree(For, AC))
      continue;
    Decision<ReductionTree> R =
        Doubling ? matchInterleaved(For, Doubling, SizeConst, Parents,
                                    F->getBody(), AC)
                 : matchShape(F, For, Parents, AC);
    if (auto *T = std::get_if<ReductionTree>(&R))
      Trees.push_back(*T);
    else
      Shapeless.push_back(std::get<Refusal>(R));
  }
}

/// Everything that does not depend on the tree's context: operator, type,
/// names, macros.
std::optional<Refusal> checkTreeOperation(const ReductionTree &T,
                                          ASTContext &AC) {
  if (T.Element.isVolatileQualified())
    return Refusal{"'" + T.Array->getNameAsString() +
                       "' is volatile: the code may rely on warp-synchronous "
                       "accesses",
                   T.Loc};
  if (!isShuffleType(T.Element.getUnqualifiedType()))
    return Refusal{"the element type '" + T.Element.getAsString() +
                       "' is not one __shfl_xor_sync moves as a single "
                       "value (float, double, 32/64-bit integers)",
                   T.Loc};
  // The replacement declares kopt_wr and kopt_o around the stored value.
  if (T.Array->getName().starts_with("kopt_") ||
      firstHazard(T.Value, AC, {BodyHazard::ReservedName}, "kopt_"))
    return Refusal{"the tree uses names starting with 'kopt_', which the "
                   "rewrite declares",
                   T.Loc};
  if (!isRewritable(T.Store->getSourceRange(), AC) ||
      !isRewritable(SourceRange(T.Store->getBeginLoc(), T.end()->getEndLoc()),
                    AC))
    return Refusal{"the tree is written in a macro", T.Loc};
  return std::nullopt;
}

/// Whether the statement holding E lies in uniform control flow of F:
/// only compound statements enclose it, nothing in its own expression
/// evaluates it conditionally, no return precedes it and F has no goto.
std::optional<Refusal> checkUniformControl(const FunctionDecl *F, const Stmt *E,
                                           const char *What, ASTContext &AC,
                                           bool UniformBranches) {
  ParentMap Parents(F->getBody());
  const SourceManager &SM = AC.getSourceManager();
  const Stmt *Child = E;
  for (const Stmt *P = Parents.getParent(E); P;
       Child = P, P = Parents.getParent(P)) {
    bool Conditional = false;
    if (const auto *If = dyn_cast<IfStmt>(P); If && UniformBranches)
      // A branch on a value every thread of the block shares sends the
      // whole block one way.
      Conditional =
          Child != If->getCond() && (If->getInit() || If->isConsteval() ||
                                     !isBlockUniform(If->getCond(), F));
    else if (const auto *CO = dyn_cast<AbstractConditionalOperator>(P))
      Conditional = Child != CO->getCond();
    else if (const auto *B = dyn_cast<BinaryOperator>(P))
      Conditional = B->isLogicalOp() && Child == B->getRHS();
    else if (isa<LambdaExpr>(P) ||
             (!isa<Expr>(P) && !isa<CompoundStmt>(P) && !isa<DeclStmt>(P)))
      Conditional = true;
    if (Conditional)
      return Refusal{std::string(What) + " is inside '" +
                         brief(sourceText(P->getSourceRange(), AC)) + "' at " +
                         str(lineCol(P->getBeginLoc(), AC)) +
                         ": threads may not all reach it",
                     lineCol(E->getBeginLoc(), AC)};
  }
  if (const Stmt *Exit =
          findEarlyExit(F, E->getBeginLoc(), AC, UniformBranches))
    return Refusal{std::string(isa<ReturnStmt>(Exit) ? "a return" : "a goto") +
                       " at " + str(lineCol(Exit->getBeginLoc(), AC)) +
                       " may let some threads skip " + What,
                   lineCol(E->getBeginLoc(), AC)};
  return std::nullopt;
}

/// The block sizes of every launch of K, or why they do not fit.
namespace {

std::string notOneDimensional(const LaunchSite &L) {
  return "the launch at " + str(L.Loc) + " uses the block '" + L.Block.Text +
         "', not a 1-D one";
}

/// Why L's block, as far as its constant dimensions tell, can never be
/// one a tree rewrite takes; none if it may be.
std::optional<std::string> misfit(const LaunchSite &L) {
  const DimValue &B = L.Block.Value;
  if ((B.Y && *B.Y != 1) || (B.Z && *B.Z != 1))
    return notOneDimensional(L);
  if (B.X && (*B.X < 32 || *B.X > 1024 || !isPowerOf2_64(uint64_t(*B.X))))
    return "the launch at " + str(L.Loc) + " uses " + std::to_string(*B.X) +
           " threads: the rewrite needs a power of two (the only sizes the "
           "tree is right for) of at least 32 (whole warps)";
  return std::nullopt;
}

} // namespace

std::variant<std::set<int64_t>, std::string>
warpMultipleBlockSizes(const ProgramInfo &Info, const KernelInfo &K) {
  if (Info.hasUnknownLaunches(K.Name))
    return "'" + K.Name +
           "' is referenced other than by a launch: its block size is "
           "unknown";
  std::vector<const LaunchSite *> Launches = Info.launchesOf(K.Name);
  if (Launches.empty())
    return "no launch of '" + K.Name +
           "' in this file: its block size is unknown (__launch_bounds__ "
           "only bounds it)";
  std::set<int64_t> Sizes;
  for (const LaunchSite *L : Launches) {
    const DimValue &B = L->Block.Value;
    if (!B.X)
      return "the block size '" + L->Block.Text + "' of the launch at " +
             str(L->Loc) + " is not a compile-time constant";
    if (!B.Y || !B.Z)
      return notOneDimensional(*L);
    if (std::optional<std::string> Why = misfit(*L))
      return *Why;
    Sizes.insert(*B.X);
  }
  return Sizes;
}

std::optional<std::string> misfitLaunch(const ProgramInfo &Info,
                                        const KernelInfo &K) {
  for (const LaunchSite *L : Info.launchesOf(K.Name))
    if (std::optional<std::string> Why = misfit(*L))
      return Why;
  return std::nullopt;
}

/// Why the uses of A in F are not all inside the trees or reads of A[0];
/// AllowedCalls are (call, argument index) pairs that may pass A.
std::optional<Refusal> checkArrayUses(
    const FunctionDecl *F, const ValueDecl *A,
    const std::vector<ReductionTree> &Trees,
    const std::set<std::pair<const CallExpr *, unsigned>> &AllowedCalls,
    ASTContext &AC) {
  ParentMap Parents(F->getBody());
  const SourceManager &SM = AC.getSourceManager();
  std::vector<const DeclRefExpr *> Refs = referencesTo(F->getBody(), A, AC);
  for (const DeclRefExpr *Ref : Refs) {
    // Inside a tree of this shape (its references were counted).
    bool InTree = false;
    for (const ReductionTree &T : Trees) {
      if (T.Array != A)
        continue;
      SourceRange R(T.Store->getBeginLoc(), T.end()->getEndLoc());
      SourceLocation L = Ref->getBeginLoc();
      if (!SM.isBeforeInTranslationUnit(L, R.getBegin()) &&
          !SM.isBeforeInTranslationUnit(R.getEnd(), L))
        InTree = true;
    }
    if (InTree)
      continue;
    const Stmt *P =
        Parents.getParentIgnoreParenImpCasts(const_cast<DeclRefExpr *>(Ref));
    // A[0] as a value.
    if (const auto *S = dyn_cast_or_null<ArraySubscriptExpr>(P)) {
      const Stmt *Up =
          Parents.getParentIgnoreParens(const_cast<ArraySubscriptExpr *>(S));
      const auto *Cast = dyn_cast_or_null<ImplicitCastExpr>(Up);
      if (S->getBase()->IgnoreParenImpCasts() == Ref &&
          isIntLiteral(S->getIdx(), 0, AC) && Cast &&
          Cast->getCastKind() == CK_LValueToRValue)
        continue;
    }
    // An argument of a helper call that is rewritten with it.
    if (const auto *C = dyn_cast_or_null<CallExpr>(P)) {
      bool Allowed = false;
      for (unsigned I = 0; I < C->getNumArgs(); ++I)
        if (C->getArg(I)->IgnoreParenImpCasts() == Ref &&
            AllowedCalls.count({C, I}))
          Allowed = true;
      if (Allowed)
        continue;
    }
    // Show the access: a read as itself, a write or address-of with the
    // expression around it.
    const Stmt *Shown = P ? P : Ref;
    if (const auto *S = dyn_cast_or_null<ArraySubscriptExpr>(P)) {
      const Stmt *Up =
          Parents.getParentIgnoreParens(const_cast<ArraySubscriptExpr *>(S));
      const auto *Cast = dyn_cast_or_null<ImplicitCastExpr>(Up);
      if (Up && !(Cast && Cast->getCastKind() == CK_LValueToRValue))
        Shown = Up;
    }
    return Refusal{"'" + A->getNameAsString() + "' is also used at " +
                       str(lineCol(Ref->getBeginLoc(), AC)) + " ('" +
                       sourceText(Shown->getSourceRange(), AC) +
                       "'): only the trees and reads of '" +
                       A->getNameAsString() + "[0]' are handled",
                   lineCol(Ref->getBeginLoc(), AC)};
  }
  return std::nullopt;
}

} // namespace kopt
