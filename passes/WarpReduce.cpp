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
// Legality (each failure is a missed remark):
//   * the operator is +, or fmaxf/fminf/fmax/fmin/max/min, on float, double
//     or a 32/64-bit integer: max/min select one of their operands, so any
//     order gives the same value, and integer + is exact (modulo 2^n).
//     Floating-point + in another order rounds differently:
//     it needs reassociate=true;
//   * every launch of the kernel (or, for a tree in a __device__ helper, of
//     every kernel that calls it) is in the file and uses a constant 1-D
//     block of a power of two of at least 32 threads: the original tree is
//     only right for powers of two, and the shuffles need whole warps.
//     __launch_bounds__ only bounds the block size, so it is not enough;
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
#include "kopt/Pass/Pass.h"

#include "SourceLayout.h"

#include "clang/AST/Attr.h"
#include "clang/AST/ParentMap.h"
#include "clang/AST/RecursiveASTVisitor.h"
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

/// A tree whose shape matched: the store, the barrier and the loop lie
/// consecutively in Block.
struct Tree {
  const CompoundStmt *Block = nullptr;
  const BinaryOperator *Store = nullptr; ///< A[t] = v
  const Stmt *Sync = nullptr;
  const ForStmt *Loop = nullptr;
  const ValueDecl *Array = nullptr;
  const Expr *Value = nullptr;          ///< v
  const Expr *Combine = nullptr;        ///< the update in the loop
  const FunctionDecl *Callee = nullptr; ///< fmaxf & co; null for +
  std::string CalleeText;
  bool Add = false;
  QualType Element;
  LineCol Loc;
};

/// A reason, with where it applies.
struct Refusal {
  std::string Message;
  LineCol Loc;
};

bool isThreadIdxX(const Expr *E, const Stmt *Scope) {
  return isBuiltin(followLocalInit(stripCasts(E), Scope), BuiltinVar::ThreadIdx,
                   0);
}

bool isSyncthreads(const Stmt *S) {
  const auto *C = dyn_cast_or_null<CallExpr>(S);
  if (!C || !isBarrierCall(C))
    return false;
  const FunctionDecl *FD = C->getDirectCallee();
  return FD->getName() == "__syncthreads";
}

bool isIntLiteral(const Expr *E, int64_t V, const ASTContext &Ctx) {
  Expr::EvalResult R;
  E = stripCasts(E);
  return E->EvaluateAsInt(R, Ctx) && R.Val.getInt() == V;
}

/// `A[...]` with A a plain reference to a variable or parameter: the
/// subscripted declaration, or null.
const ValueDecl *subscriptBase(const Expr *E) {
  const auto *S = dyn_cast<ArraySubscriptExpr>(E->IgnoreParenImpCasts());
  if (!S)
    return nullptr;
  const auto *Ref = dyn_cast<DeclRefExpr>(S->getBase()->IgnoreParenImpCasts());
  return Ref ? Ref->getDecl() : nullptr;
}

/// `A[t]` with t threadIdx.x.
bool isOwnSlot(const Expr *E, const ValueDecl *A, const Stmt *Scope) {
  const auto *S = dyn_cast<ArraySubscriptExpr>(E->IgnoreParenImpCasts());
  return S && subscriptBase(S) == A && isThreadIdxX(S->getIdx(), Scope);
}

/// `A[t + s]` or `A[s + t]`.
bool isPartnerSlot(const Expr *E, const ValueDecl *A, const VarDecl *Step,
                   const Stmt *Scope) {
  const auto *S = dyn_cast<ArraySubscriptExpr>(E->IgnoreParenImpCasts());
  if (!S || subscriptBase(S) != A)
    return false;
  const auto *Add = dyn_cast<BinaryOperator>(stripCasts(S->getIdx()));
  if (!Add || Add->getOpcode() != BO_Add)
    return false;
  return (isThreadIdxX(Add->getLHS(), Scope) &&
          referencedVar(Add->getRHS()) == Step) ||
         (isThreadIdxX(Add->getRHS(), Scope) &&
          referencedVar(Add->getLHS()) == Step);
}

/// The loop head `for (T s = blockDim.x / 2; s > 0; s >>= 1)`: its variable.
const VarDecl *matchTreeHead(const ForStmt *For, const ASTContext &Ctx) {
  const auto *DS = dyn_cast_or_null<DeclStmt>(For->getInit());
  if (!DS || !DS->isSingleDecl())
    return nullptr;
  const auto *S = dyn_cast<VarDecl>(DS->getSingleDecl());
  if (!S || !S->getInit() || !S->getType()->isIntegerType())
    return nullptr;
  const auto *Half = dyn_cast<BinaryOperator>(stripCasts(S->getInit()));
  if (!Half || !isBuiltin(Half->getLHS(), BuiltinVar::BlockDim, 0) ||
      !((Half->getOpcode() == BO_Div && isIntLiteral(Half->getRHS(), 2, Ctx)) ||
        (Half->getOpcode() == BO_Shr && isIntLiteral(Half->getRHS(), 1, Ctx))))
    return nullptr;
  // s > 0, s >= 1, 0 < s, s != 0.
  const auto *Cond =
      dyn_cast_or_null<BinaryOperator>(For->getCond()->IgnoreParenImpCasts());
  if (!Cond)
    return nullptr;
  bool CondOK = false;
  if (referencedVar(Cond->getLHS()) == S)
    CondOK =
        ((Cond->getOpcode() == BO_GT || Cond->getOpcode() == BO_NE) &&
         isIntLiteral(Cond->getRHS(), 0, Ctx)) ||
        (Cond->getOpcode() == BO_GE && isIntLiteral(Cond->getRHS(), 1, Ctx));
  else if (referencedVar(Cond->getRHS()) == S)
    CondOK = Cond->getOpcode() == BO_LT && isIntLiteral(Cond->getLHS(), 0, Ctx);
  if (!CondOK)
    return nullptr;
  // s >>= 1, s /= 2, s = s >> 1, s = s / 2.
  const auto *Inc = dyn_cast_or_null<BinaryOperator>(For->getInc());
  if (!Inc || referencedVar(Inc->getLHS()) != S)
    return nullptr;
  if (Inc->getOpcode() == BO_ShrAssign && isIntLiteral(Inc->getRHS(), 1, Ctx))
    return S;
  if (Inc->getOpcode() == BO_DivAssign && isIntLiteral(Inc->getRHS(), 2, Ctx))
    return S;
  if (Inc->getOpcode() == BO_Assign) {
    const auto *H = dyn_cast<BinaryOperator>(stripCasts(Inc->getRHS()));
    if (H && referencedVar(H->getLHS()) == S &&
        ((H->getOpcode() == BO_Shr && isIntLiteral(H->getRHS(), 1, Ctx)) ||
         (H->getOpcode() == BO_Div && isIntLiteral(H->getRHS(), 2, Ctx))))
      return S;
  }
  return nullptr;
}

/// A loop that halves its variable each iteration (`s >>= 1`, `s /= 2`, ...)
/// and contains a barrier: what a shared-memory tree looks like, whether or
/// not it has the shape this pass handles.
bool looksLikeTree(const ForStmt *For) {
  const auto *Inc = dyn_cast_or_null<BinaryOperator>(For->getInc());
  if (!Inc || !referencedVar(Inc->getLHS()))
    return false;
  bool Halves =
      Inc->getOpcode() == BO_ShrAssign || Inc->getOpcode() == BO_DivAssign;
  if (Inc->getOpcode() == BO_Assign)
    if (const auto *H = dyn_cast<BinaryOperator>(stripCasts(Inc->getRHS())))
      Halves = H->getOpcode() == BO_Shr || H->getOpcode() == BO_Div;
  if (!Halves)
    return false;
  std::function<bool(const Stmt *)> HasBarrier = [&](const Stmt *S) {
    if (isBarrierCall(S))
      return true;
    for (const Stmt *C : S->children())
      if (C && HasBarrier(C))
        return true;
    return false;
  };
  return For->getBody() && HasBarrier(For->getBody());
}

/// Statements directly in a compound statement (`{ X; }` is X).
const Stmt *single(const Stmt *S) {
  while (const auto *C = dyn_cast_or_null<CompoundStmt>(S)) {
    if (C->size() != 1)
      return S;
    S = C->body_front();
  }
  return S;
}

/// The names of the functions the tree may combine with.
bool isMinMax(StringRef Name) {
  return Name == "fmaxf" || Name == "fminf" || Name == "fmax" ||
         Name == "fmin" || Name == "max" || Name == "min";
}

/// Types __shfl_xor_sync moves as one value.
bool isShuffleType(QualType T) {
  const auto *B = T->getAs<BuiltinType>();
  if (!B)
    return false;
  switch (B->getKind()) {
  case BuiltinType::Float:
  case BuiltinType::Double:
  case BuiltinType::Int:
  case BuiltinType::UInt:
  case BuiltinType::Long:
  case BuiltinType::ULong:
  case BuiltinType::LongLong:
  case BuiltinType::ULongLong:
    return true;
  default:
    return false;
  }
}

/// The first line of Text, cut to 40 characters, to quote code in remarks.
std::string brief(StringRef Text) {
  StringRef First = Text.split('\n').first.rtrim();
  if (First.size() > 40)
    return First.take_front(40).str() + "...";
  return First.size() < Text.size() ? First.str() + " ..." : First.str();
}

/// Every reference to a declaration in a statement, in source order.
void collectRefs(const Stmt *S, const ValueDecl *D,
                 std::vector<const DeclRefExpr *> &Out) {
  if (const auto *Ref = dyn_cast<DeclRefExpr>(S))
    if (Ref->getDecl() == D)
      Out.push_back(Ref);
  for (const Stmt *C : S->children())
    if (C)
      collectRefs(C, D, Out);
}

/// Statements and expressions that break uniform control flow before a
/// point: a return (some threads may leave) or a goto (anywhere).
const Stmt *findEarlyExit(const Stmt *S, SourceLocation Before,
                          const SourceManager &SM) {
  if (isa<GotoStmt>(S) || isa<IndirectGotoStmt>(S))
    return S;
  if (isa<ReturnStmt>(S) &&
      SM.isBeforeInTranslationUnit(S->getBeginLoc(), Before))
    return S;
  if (isa<LambdaExpr>(S))
    return nullptr;
  for (const Stmt *C : S->children())
    if (C)
      if (const Stmt *Found = findEarlyExit(C, Before, SM))
        return Found;
  return nullptr;
}

class WarpReducePass : public FilePass<WarpReduceOptions> {
  void runOnFile(PassContext &Ctx) override {
    ASTContext &AC = Ctx.deviceContext();
    for (const KernelInfo &K : Ctx.info().Kernels)
      KernelOf[K.Decl] = &K;
    collectFunctions(AC);
    for (const FunctionDecl *F : Functions)
      runOnFunction(Ctx, F);
  }

  /// Function definitions of the main file, and who calls whom (by
  /// reference: a reference that is not a direct call is recorded with a
  /// null CallExpr).
  void collectFunctions(ASTContext &AC) {
    struct Finder : RecursiveASTVisitor<Finder> {
      Finder(WarpReducePass &P, ASTContext &AC) : P(P), AC(AC) {}
      bool TraverseFunctionDecl(FunctionDecl *FD) {
        const FunctionDecl *Saved = Current;
        Current = FD;
        bool R = RecursiveASTVisitor::TraverseFunctionDecl(FD);
        Current = Saved;
        return R;
      }
      bool VisitFunctionDecl(FunctionDecl *FD) {
        const SourceManager &SM = AC.getSourceManager();
        if (FD->doesThisDeclarationHaveABody() &&
            !FD->isTemplateInstantiation() &&
            SM.isInMainFile(SM.getExpansionLoc(FD->getLocation())))
          P.Functions.push_back(FD);
        return true;
      }
      bool VisitCallExpr(CallExpr *C) {
        if (const auto *Ref =
                dyn_cast<DeclRefExpr>(C->getCallee()->IgnoreParenImpCasts()))
          DirectCalls[Ref] = C;
        return true;
      }
      bool VisitDeclRefExpr(DeclRefExpr *Ref) {
        if (const auto *FD = dyn_cast<FunctionDecl>(Ref->getDecl()))
          P.Uses[FD->getCanonicalDecl()].push_back({Current, Ref, nullptr});
        return true;
      }
      WarpReducePass &P;
      ASTContext &AC;
      const FunctionDecl *Current = nullptr;
      std::map<const DeclRefExpr *, const CallExpr *> DirectCalls;
    } F(*this, AC);
    F.TraverseDecl(AC.getTranslationUnitDecl());
    // Calls are visited after their callee's reference: fill them in now.
    for (auto &[FD, List] : Uses)
      for (Use &U : List)
        if (auto It = F.DirectCalls.find(U.Ref); It != F.DirectCalls.end())
          U.Call = It->second;
  }

  /// The shape of a tree around a loop that looks like one; a Refusal if
  /// the shape differs.
  std::variant<Tree, Refusal> matchShape(const FunctionDecl *F,
                                         const ForStmt *Loop,
                                         const ParentMap &Parents,
                                         ASTContext &AC) {
    LineCol Loc = lineCol(Loop->getBeginLoc(), AC);
    const Stmt *Body = F->getBody();
    auto Refuse = [&](const Twine &Msg) { return Refusal{Msg.str(), Loc}; };
    const VarDecl *S = matchTreeHead(Loop, AC);
    if (!S || isModifiedIn(S, Loop->getBody()))
      return Refuse("the tree loop is not 'for (int s = blockDim.x / 2; "
                    "s > 0; s >>= 1)': the rewrite covers blockDim.x threads");
    const char *StepShape = "the tree step is not 'if (t < s) A[t] = op(A[t], "
                            "A[t + s]); __syncthreads();' with t threadIdx.x";
    const auto *LoopBody = dyn_cast<CompoundStmt>(Loop->getBody());
    if (!LoopBody || LoopBody->size() != 2 ||
        !isSyncthreads(LoopBody->body_back()))
      return Refuse(StepShape);
    const auto *If = dyn_cast<IfStmt>(LoopBody->body_front());
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

    Tree T;
    T.Loop = Loop;
    T.Loc = Loc;
    const auto *UB = dyn_cast<BinaryOperator>(Update);
    if (!UB ||
        (UB->getOpcode() != BO_Assign && UB->getOpcode() != BO_AddAssign))
      return Refuse(StepShape);
    T.Array = subscriptBase(UB->getLHS());
    if (!T.Array || !isOwnSlot(UB->getLHS(), T.Array, Body))
      return Refuse(StepShape);
    T.Element = UB->getLHS()->getType();
    T.Combine = UB;
    auto Operands = [&](const Expr *X, const Expr *Y) {
      return (isOwnSlot(X, T.Array, Body) &&
              isPartnerSlot(Y, T.Array, S, Body)) ||
             (isOwnSlot(Y, T.Array, Body) &&
              isPartnerSlot(X, T.Array, S, Body));
    };
    unsigned Refs = 3;
    std::string OpText = "'" + sourceText(UB->getSourceRange(), AC) + "'";
    if (UB->getOpcode() == BO_AddAssign) {
      if (!isPartnerSlot(UB->getRHS(), T.Array, S, Body))
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
    const auto *Block = dyn_cast_or_null<CompoundStmt>(
        Parents.getParent(const_cast<ForStmt *>(Loop)));
    if (!Block)
      return Refuse(Prelude);
    auto It = llvm::find(Block->body(), Loop);
    size_t Index = It - Block->body_begin();
    if (Index < 2 || !isSyncthreads(Block->body_begin()[Index - 1]))
      return Refuse(Prelude);
    const auto *Store =
        dyn_cast<BinaryOperator>(Block->body_begin()[Index - 2]);
    if (!Store || Store->getOpcode() != BO_Assign ||
        !isOwnSlot(Store->getLHS(), T.Array, Body) ||
        countReferences(Store, T.Array) != 1)
      return Refuse(Prelude);
    T.Block = Block;
    T.Store = Store;
    T.Sync = Block->body_begin()[Index - 1];
    T.Value = Store->getRHS();
    return T;
  }

  /// The trees of F whose shape matched, and refusals for the others.
  void findTrees(const FunctionDecl *F, ASTContext &AC,
                 std::vector<Tree> &Trees, std::vector<Refusal> &Shapeless) {
    ParentMap Parents(F->getBody());
    std::function<void(const Stmt *)> Walk = [&](const Stmt *S) {
      if (const auto *For = dyn_cast<ForStmt>(S); For && looksLikeTree(For)) {
        std::variant<Tree, Refusal> R = matchShape(F, For, Parents, AC);
        if (auto *T = std::get_if<Tree>(&R))
          Trees.push_back(*T);
        else
          Shapeless.push_back(std::get<Refusal>(R));
      }
      for (const Stmt *C : S->children())
        if (C && !isa<LambdaExpr>(C))
          Walk(C);
    };
    Walk(F->getBody());
  }

  /// Whether the statement holding E lies in uniform control flow of F:
  /// only compound statements enclose it, nothing in its own expression
  /// evaluates it conditionally, no return precedes it and F has no goto.
  std::optional<Refusal> checkUniform(const FunctionDecl *F, const Stmt *E,
                                      const char *What, ASTContext &AC) {
    ParentMap Parents(F->getBody());
    const SourceManager &SM = AC.getSourceManager();
    const Stmt *Child = E;
    for (const Stmt *P = Parents.getParent(E); P;
         Child = P, P = Parents.getParent(P)) {
      bool Conditional = false;
      if (const auto *CO = dyn_cast<AbstractConditionalOperator>(P))
        Conditional = Child != CO->getCond();
      else if (const auto *B = dyn_cast<BinaryOperator>(P))
        Conditional = B->isLogicalOp() && Child == B->getRHS();
      else if (isa<LambdaExpr>(P) ||
               (!isa<Expr>(P) && !isa<CompoundStmt>(P) && !isa<DeclStmt>(P)))
        Conditional = true;
      if (Conditional)
        return Refusal{std::string(What) + " is inside '" +
                           brief(sourceText(P->getSourceRange(), AC)) +
                           "' at " + str(lineCol(P->getBeginLoc(), AC)) +
                           ": threads may not all reach it",
                       lineCol(E->getBeginLoc(), AC)};
    }
    if (const Stmt *Exit = findEarlyExit(F->getBody(), E->getBeginLoc(), SM))
      return Refusal{
          std::string(isa<ReturnStmt>(Exit) ? "a return" : "a goto") + " at " +
              str(lineCol(Exit->getBeginLoc(), AC)) +
              " may let some threads skip " + What,
          lineCol(E->getBeginLoc(), AC)};
    return std::nullopt;
  }

  /// The block sizes of every launch of K, or why they do not fit.
  std::variant<std::set<int64_t>, std::string> blockSizes(PassContext &Ctx,
                                                          const KernelInfo &K) {
    if (Ctx.info().hasUnknownLaunches(K.Name))
      return "'" + K.Name +
             "' is referenced other than by a launch: its block size is "
             "unknown";
    std::vector<const LaunchSite *> Launches = Ctx.info().launchesOf(K.Name);
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
      if (!B.Y || !B.Z || *B.Y != 1 || *B.Z != 1)
        return "the launch at " + str(L->Loc) + " uses the block '" +
               L->Block.Text + "', not a 1-D one";
      int64_t X = *B.X;
      if (X < 32 || X > 1024 || !isPowerOf2_64(uint64_t(X)))
        return "the launch at " + str(L->Loc) + " uses " + std::to_string(X) +
               " threads: the rewrite needs a power of two (the only sizes "
               "the tree is right for) of at least 32 (whole warps)";
      Sizes.insert(X);
    }
    return Sizes;
  }

  /// Why the uses of A in F are not all inside the trees or reads of A[0];
  /// AllowedCalls are (call, argument index) pairs that may pass A.
  std::optional<Refusal>
  checkUses(const FunctionDecl *F, const ValueDecl *A,
            const std::vector<Tree> &Trees,
            const std::set<std::pair<const CallExpr *, unsigned>> &AllowedCalls,
            ASTContext &AC) {
    ParentMap Parents(F->getBody());
    const SourceManager &SM = AC.getSourceManager();
    std::vector<const DeclRefExpr *> Refs;
    collectRefs(F->getBody(), A, Refs);
    for (const DeclRefExpr *Ref : Refs) {
      // Inside a tree of this shape (its references were counted).
      bool InTree = false;
      for (const Tree &T : Trees) {
        if (T.Array != A)
          continue;
        SourceRange R(T.Store->getBeginLoc(), T.Loop->getEndLoc());
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

  /// Everything that does not depend on the tree's context: operator, type,
  /// names, macros.
  std::optional<Refusal> checkTree(const Tree &T, ASTContext &AC) {
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
    if (T.Add && T.Element->isFloatingType() && !options().Reassociate)
      return Refusal{"the tree sums floating-point values; warp shuffles add "
                     "them in another order, which may change rounding "
                     "(reassociate=true allows it)",
                     T.Loc};
    // The replacement declares kopt_wr and kopt_o around the stored value.
    bool Clash = T.Array->getName().starts_with("kopt_");
    std::function<void(const Stmt *)> Names = [&](const Stmt *S) {
      if (const auto *R = dyn_cast<DeclRefExpr>(S))
        Clash |= R->getDecl()->getName().starts_with("kopt_");
      for (const Stmt *C : S->children())
        if (C)
          Names(C);
    };
    Names(T.Value);
    if (Clash)
      return Refusal{"the tree uses names starting with 'kopt_', which the "
                     "rewrite declares",
                     T.Loc};
    if (!isRewritable(T.Store->getSourceRange(), AC) ||
        !isRewritable(T.Loop->getSourceRange(), AC))
      return Refusal{"the tree is written in a macro", T.Loc};
    return std::nullopt;
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
    auto Sizes = blockSizes(Ctx, K);
    if (auto *Why = std::get_if<std::string>(&Sizes))
      return Refusal{*Why, Loc};
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
    auto It = Uses.find(F->getCanonicalDecl());
    if (It == Uses.end() || It->second.empty())
      return Refusal{"'" + Name +
                         "' is never called in this file: the "
                         "block size is unknown",
                     Loc};
    std::set<int64_t> Sizes;
    // Calls per kernel, to check the kernels' arrays once each.
    std::map<const FunctionDecl *, std::vector<const CallExpr *>> CallsIn;
    for (const Use &U : It->second) {
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
              checkUniform(K.Decl, U.Call, "the call", AC))
        return Refusal{"in '" + K.Name + "', " + R->Message, Loc};
      auto KSizes = blockSizes(Ctx, K);
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
        if (std::optional<Refusal> R = checkUses(KDecl, V, {}, Allowed, AC))
          return Refusal{"in '" + KDecl->getNameAsString() + "', " + R->Message,
                         Loc};
      }
    }
    return Sizes;
  }

  void runOnFunction(PassContext &Ctx, const FunctionDecl *F) {
    ASTContext &AC = Ctx.deviceContext();
    std::string Name = F->getNameAsString();
    std::vector<Tree> Trees;
    std::vector<Refusal> Shapeless;
    findTrees(F, AC, Trees, Shapeless);
    for (const Refusal &R : Shapeless)
      Ctx.missed(Name, R.Loc, "tree not rewritten: " + R.Message);
    if (Trees.empty())
      return;
    auto KIt = KernelOf.find(F);
    const KernelInfo *K = KIt == KernelOf.end() ? nullptr : KIt->second;
    if ((K && K->IsTemplate) || F->isTemplated()) {
      for (const Tree &T : Trees)
        Ctx.missed(Name, T.Loc,
                   "tree not rewritten: template functions are not handled");
      return;
    }
    std::map<const ValueDecl *, std::variant<std::set<int64_t>, Refusal>>
        Contexts;
    for (const Tree &T : Trees) {
      auto Refuse = [&](const Refusal &R) {
        Ctx.missed(Name, T.Loc, "tree not rewritten: " + R.Message);
      };
      if (std::optional<Refusal> R = checkTree(T, AC)) {
        Refuse(*R);
        continue;
      }
      if (std::optional<Refusal> R = checkUniform(F, T.Store, "the tree", AC)) {
        Refuse(*R);
        continue;
      }
      if (std::optional<Refusal> R = checkUses(F, T.Array, Trees, {}, AC)) {
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
      rewrite(Ctx, Name, T, std::get<std::set<int64_t>>(CIt->second));
    }
  }

  void rewrite(PassContext &Ctx, StringRef Name, const Tree &T,
               const std::set<int64_t> &Sizes) {
    ASTContext &AC = Ctx.deviceContext();
    StringRef Code = Ctx.source().Code;
    auto StoreAt = stmtOffsets(T.Store, AC);
    auto LoopAt = stmtOffsets(T.Loop, AC);
    if (!StoreAt || !LoopAt) {
      Ctx.missed(Name, T.Loc, "tree not rewritten: it is written in a macro");
      return;
    }
    std::string In = indentAt(Code, StoreAt->first);
    std::string A = T.Array->getNameAsString();
    std::string Elem =
        T.Element.getUnqualifiedType().getAsString(AC.getPrintingPolicy());
    std::string Value = sourceText(T.Value->getSourceRange(), AC);
    std::string Shuffle = "__shfl_xor_sync(0xffffffffu, kopt_wr, kopt_o)";
    std::string Step =
        T.Add ? "kopt_wr += " + Shuffle + ";"
              : "kopt_wr = " + T.CalleeText + "(kopt_wr, " + Shuffle + ");";
    std::string Op = T.Add ? "+" : T.CalleeText;
    // Stage 2 runs in warp 0 over the nw = blockDim.x / 32 slots (a power
    // of two): offsets below nw keep lanes < nw among themselves, so lanes
    // >= nw need no identity value; their results are not used.
    std::string Out;
    raw_string_ostream OS(Out);
    OS << "{\n"
       << In << "  // kopt warp-reduce (" << Op
       << "): shuffles in each warp, then over the warp slots\n"
       << In << "  " << Elem << " kopt_wr = " << Value << ";\n"
       << In << "  for (int kopt_o = 16; kopt_o > 0; kopt_o >>= 1)\n"
       << In << "    " << Step << "\n"
       << In << "  if (threadIdx.x % 32 == 0)\n"
       << In << "    " << A << "[threadIdx.x / 32] = kopt_wr;\n"
       << In << "  __syncthreads();\n"
       << In << "  if (threadIdx.x < 32) {\n"
       << In << "    if (threadIdx.x < blockDim.x / 32)\n"
       << In << "      kopt_wr = " << A << "[threadIdx.x];\n"
       << In << "    for (int kopt_o = blockDim.x / 64; kopt_o > 0; "
       << "kopt_o >>= 1)\n"
       << In << "      " << Step << "\n"
       << In << "    if (threadIdx.x == 0)\n"
       << In << "      " << A << "[0] = kopt_wr;\n"
       << In << "  }\n"
       << In << "  __syncthreads();\n"
       << In << "}";
    if (Error E = Ctx.edits().replaceChars(
            StoreAt->first, LoopAt->second - StoreAt->first, Out)) {
      Ctx.missed(Name, T.Loc, "tree not rewritten: " + toString(std::move(E)));
      return;
    }
    SmallVector<std::string> SizeText;
    for (int64_t S : Sizes)
      SizeText.push_back(std::to_string(S));
    Ctx.applied(Name, T.Loc,
                "replaced the shared-memory tree over '" + A + "' (" + Op +
                    ", " + Elem +
                    ") with __shfl_xor_sync warp reductions "
                    "and one slot per warp, for blocks of " +
                    join(SizeText, ", ") + " threads" +
                    (T.Add && T.Element->isFloatingType()
                         ? "; the floating-point sum is reassociated"
                         : ""));
  }

  struct Use {
    const FunctionDecl *Caller = nullptr;
    const DeclRefExpr *Ref = nullptr;
    const CallExpr *Call = nullptr; ///< set when Ref is a direct callee
  };

  std::vector<const FunctionDecl *> Functions;
  std::map<const FunctionDecl *, const KernelInfo *> KernelOf;
  std::map<const FunctionDecl *, std::vector<Use>> Uses;
};

} // namespace

std::unique_ptr<Pass> createWarpReducePass() {
  return std::make_unique<WarpReducePass>();
}

} // namespace kopt
