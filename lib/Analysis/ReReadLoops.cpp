//===- ReReadLoops.cpp - Elements a later loop reads again ----------------===//

#include "kopt/Analysis/ReReadLoops.h"
#include "kopt/Analysis/BodyHazards.h"
#include "kopt/Analysis/CachedPointers.h"
#include "kopt/Analysis/ControlFlow.h"
#include "kopt/Analysis/CudaAST.h"

#include "clang/AST/Attr.h"
#include "clang/AST/ParentMap.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/STLExtras.h"

#include <map>
#include <set>

using namespace clang;
using namespace clang::ast_matchers;
using namespace llvm;

namespace kopt {

namespace {

bool contains(SourceRange Outer, SourceLocation L, const SourceManager &SM) {
  L = SM.getExpansionLoc(L);
  SourceLocation B = SM.getExpansionLoc(Outer.getBegin());
  SourceLocation E = SM.getExpansionLoc(Outer.getEnd());
  return !SM.isBeforeInTranslationUnit(L, B) &&
         !SM.isBeforeInTranslationUnit(E, L);
}

/// What in a loop body the rewrite cannot keep: leaving the loop early,
/// barriers and warp collectives (the new loop runs N iterations with a
/// guard, which changes which threads reach them together).
std::optional<Refusal> scanLoopBody(const Stmt *Body, ASTContext &Ctx) {
  using K = BodyHazard;
  std::optional<BodyHazard> H =
      firstHazard(Body, Ctx,
                  {K::Return, K::Goto, K::Label, K::Break, K::Continue,
                   K::Barrier, K::WarpCollective});
  if (!H)
    return std::nullopt;
  static const char *What[] = {"a return", "a goto",     "a label",
                               "a break",  "a continue", "a barrier"};
  std::string Message = H->K == K::WarpCollective
                            ? "the warp collective '" + H->Name + "'"
                            : What[H->K];
  return Refusal{"contains " + Message, lineCol(H->At->getBeginLoc(), Ctx)};
}

/// V is a scalar local or parameter whose every use in Body is a read of
/// its value: it holds one value for the whole kernel.
bool isStableScalar(const VarDecl *V, const Stmt *Body) {
  if (!V->hasLocalStorage() || V->hasAttr<CUDASharedAttr>() ||
      V->getType()->isReferenceType() || V->getType().isVolatileQualified() ||
      !V->getType()->isIntegralOrEnumerationType())
    return false;
  return !isModifiedIn(V, Body);
}

/// Why Index may not have one value per loop variable, or "" if it does.
/// Collects the variables it reads (in order) into Vars.
std::string checkIndex(const Expr *E, const VarDecl *LoopVar,
                       const ForStmt *Loop, const Stmt *Body, ASTContext &AC,
                       std::vector<const VarDecl *> &Vars) {
  if (matchBuiltin(E))
    return "";
  E = E->IgnoreParens();
  if (isa<IntegerLiteral, CharacterLiteral, CXXBoolLiteralExpr>(E))
    return "";
  if (const auto *Cast = dyn_cast<CastExpr>(E)) {
    if (!isa<ImplicitCastExpr, CStyleCastExpr, CXXFunctionalCastExpr,
             CXXStaticCastExpr>(Cast))
      return "a cast";
    return checkIndex(Cast->getSubExpr(), LoopVar, Loop, Body, AC, Vars);
  }
  // A template's value parameter (`c += BLOCK`): one value an instance.
  if (const auto *Sub = dyn_cast<SubstNonTypeTemplateParmExpr>(E))
    return checkIndex(Sub->getReplacement(), LoopVar, Loop, Body, AC, Vars);
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    if (isa<EnumConstantDecl, NonTypeTemplateParmDecl>(Ref->getDecl()))
      return "";
    const auto *V = dyn_cast<VarDecl>(Ref->getDecl());
    if (!V)
      return "'" + Ref->getDecl()->getNameAsString() + "'";
    Vars.push_back(V);
    if (V == LoopVar)
      return "";
    if (contains(Loop->getSourceRange(), V->getLocation(),
                 AC.getSourceManager()))
      return "'" + V->getNameAsString() + "', declared in the loop";
    if (!isStableScalar(V, Body))
      return "'" + V->getNameAsString() +
             "', which is not a local scalar that is only read";
    return "";
  }
  if (const auto *U = dyn_cast<UnaryOperator>(E)) {
    if (U->isIncrementDecrementOp() || U->getOpcode() == UO_Deref ||
        U->getOpcode() == UO_AddrOf)
      return "'" + sourceText(E->getSourceRange(), AC) + "'";
    return checkIndex(U->getSubExpr(), LoopVar, Loop, Body, AC, Vars);
  }
  if (const auto *B = dyn_cast<BinaryOperator>(E)) {
    if (B->isAssignmentOp() || B->getOpcode() == BO_Comma)
      return "'" + sourceText(E->getSourceRange(), AC) + "'";
    std::string L = checkIndex(B->getLHS(), LoopVar, Loop, Body, AC, Vars);
    if (!L.empty())
      return L;
    return checkIndex(B->getRHS(), LoopVar, Loop, Body, AC, Vars);
  }
  if (const auto *C = dyn_cast<ConditionalOperator>(E)) {
    for (const Expr *Sub : {C->getCond(), C->getTrueExpr(), C->getFalseExpr()})
      if (std::string W = checkIndex(Sub, LoopVar, Loop, Body, AC, Vars);
          !W.empty())
        return W;
    return "";
  }
  // A function of its arguments alone (`min`, constexpr, __attribute__((
  // const)): cluster-split's kopt_cluster_part) of such values.
  if (const auto *Call = dyn_cast<CallExpr>(E);
      Call && Call->getDirectCallee() &&
      isPureFunction(Call->getDirectCallee())) {
    for (const Expr *Arg : Call->arguments())
      if (std::string W = checkIndex(Arg, LoopVar, Loop, Body, AC, Vars);
          !W.empty())
        return W;
    return "";
  }
  return "'" + sourceText(E->getSourceRange(), AC) + "'";
}

/// Whether For is `for (T j = 0; j < n; ++j)` (or `j += 1`): each thread
/// runs every iteration.
bool isSerialLoop(const ForStmt *For, const Stmt *Body, ASTContext &AC) {
  std::optional<CountedLoop> CL = matchCountedLoop(For);
  if (!CL)
    return false;
  std::optional<int64_t> Start = evaluateInt(CL->Init, AC, Body);
  std::optional<int64_t> Step =
      CL->Step ? evaluateInt(CL->Step, AC, Body) : std::optional<int64_t>(1);
  return Start && *Start == 0 && Step && *Step == 1;
}

/// Why the start or step E of For is not one value for the whole kernel
/// (built from builtins, literals and scalars that are only read), or "";
/// Vars gets the variables it reads.
std::string checkStable(const Expr *E, const ForStmt *For, const Stmt *Body,
                        ASTContext &AC, std::vector<const VarDecl *> &Vars) {
  // `warp.thread_rank()`, `warp.size()`: a const or static member
  // function of a cooperative_groups group, without arguments, on a local
  // group the kernel never changes.
  if (const auto *Call = dyn_cast<CallExpr>(stripCasts(E));
      Call && Call->getNumArgs() == 0) {
    const auto *Member =
        dyn_cast<MemberExpr>(Call->getCallee()->IgnoreParenImpCasts());
    const auto *M =
        Member ? dyn_cast<CXXMethodDecl>(Member->getMemberDecl()) : nullptr;
    const VarDecl *Group =
        Member ? referencedVar(Member->getBase()->IgnoreParenImpCasts())
               : nullptr;
    if (M && (M->isConst() || M->isStatic()) && Group &&
        Group->hasLocalStorage() && !isModifiedIn(Group, Body) &&
        StringRef(M->getParent()->getQualifiedNameAsString())
            .starts_with("cooperative_groups::")) {
      Vars.push_back(Group);
      return "";
    }
  }
  return checkIndex(E, matchCountedLoop(For)->Var, For, Body, AC, Vars);
}

/// The loop's own shape: `for (T j = threadIdx.x; j < n; j +=
/// blockDim.x)` (or, with BlockStrideOrSerial, `for (T j = 0; j < n;
/// ++j)`; with SameIterations, any start and step that are one value for
/// the whole kernel) over a stable bound, with a body the rewrite can copy.
std::optional<Refusal> checkLoop(const ForStmt *For, const KernelInfo &K,
                                 ParentMap &PM, ASTContext &AC,
                                 ReReadShapes Shapes) {
  LineCol Loc = lineCol(For->getBeginLoc(), AC);
  auto Fail = [&](const Twine &Why) {
    return Refusal{"the loop at " + str(Loc) + " " + Why.str(), Loc};
  };
  const Stmt *Body = K.Decl->getBody();
  std::optional<CountedLoop> CL = matchCountedLoop(For);
  if (!CL || !isa_and_nonnull<DeclStmt>(For->getInit()))
    return Fail("is not a counted loop that declares its variable");
  bool Serial = Shapes == ReReadShapes::BlockStrideOrSerial;
  bool Any = Shapes == ReReadShapes::SameIterations;
  std::vector<const VarDecl *> Vars;
  if (Any) {
    for (const Expr *E : {CL->Init, CL->Step})
      if (E)
        if (std::string W = checkStable(E, For, Body, AC, Vars); !W.empty())
          return Fail("has a start or step that reads " + W);
  }
  const Expr *Start = stripCasts(followLocalInit(stripCasts(CL->Init), Body));
  bool RunsWhole = Any || (Serial && isSerialLoop(For, Body, AC));
  if (!RunsWhole && !isBuiltin(Start, BuiltinVar::ThreadIdx))
    return Fail(Serial ? "neither starts at threadIdx.x nor runs from 0 in "
                         "steps of 1"
                : isSerialLoop(For, Body, AC)
                    ? "does not start at threadIdx.x (each thread runs it "
                      "whole: serial-loops=true caches such loops)"
                    : "does not start at threadIdx.x");
  const LoopInfo *Facts = loopOf(K, For);
  if (!RunsWhole &&
      (!CL->Step || !(isBuiltin(CL->Step, BuiltinVar::BlockDim) ||
                      (Facts && Facts->K == LoopInfo::BlockStride &&
                       Facts->StepIsBlockSize))))
    return Fail("does not step by blockDim.x (or a constant or parameter "
                "every launch's block size equals)");
  if (CL->Inclusive)
    return Fail("compares with '<=': not handled");
  QualType T = CL->Var->getType();
  if (!T->isIntegerType() || AC.getTypeSize(T) < 32)
    return Fail("has an index narrower than 32 bits");
  if (const Stmt *P = PM.getParent(const_cast<ForStmt *>(For));
      !Any && isa_and_nonnull<AttributedStmt>(P))
    return Fail("has a loop pragma");
  if (!isRewritable(For->getSourceRange(), AC))
    return Fail("is written in a macro");
  if (std::optional<int64_t> C = evaluateInt(CL->Bound, AC, nullptr); !C) {
    const VarDecl *V = referencedVar(CL->Bound);
    std::vector<const VarDecl *> Read;
    bool Stable =
        V ? isStableScalar(V, Body)
          : Any && checkStable(CL->Bound, For, Body, AC, Read).empty();
    if (!Stable)
      return Fail("has the bound '" +
                  sourceText(CL->Bound->getSourceRange(), AC) + "', which is " +
                  (Any ? "not one value for the whole kernel"
                       : "neither a constant nor a local scalar that is only "
                         "read"));
  }
  if (std::optional<Refusal> Why = scanLoopBody(For->getBody(), AC))
    return Fail(Why->Message + " at " + str(Why->Loc));
  return std::nullopt;
}

/// A and B run the same iterations: same bound (variable or value, or,
/// for SameIterations, the same text of one value for the kernel).
bool sameBound(const ForStmt *A, const ForStmt *B, const Stmt *Body,
               ASTContext &AC) {
  const Expr *BA = matchCountedLoop(A)->Bound;
  const Expr *BB = matchCountedLoop(B)->Bound;
  std::optional<int64_t> CA = evaluateInt(BA, AC, nullptr);
  std::optional<int64_t> CB = evaluateInt(BB, AC, nullptr);
  if (CA || CB)
    return CA && CB && *CA == *CB;
  if (referencedVar(BA) || referencedVar(BB))
    return referencedVar(BA) == referencedVar(BB);
  std::vector<const VarDecl *> VA, VB;
  return checkStable(BA, A, Body, AC, VA).empty() &&
         checkStable(BB, B, Body, AC, VB).empty() && VA == VB &&
         withoutSpaces(sourceText(BA->getSourceRange(), AC)) ==
             withoutSpaces(sourceText(BB->getSourceRange(), AC));
}

/// A and B start at the same value and step by the same value: the same
/// text, reading the same variables.
bool sameStartAndStep(const ForStmt *A, const ForStmt *B, const Stmt *Body,
                      ASTContext &AC) {
  CountedLoop CA = *matchCountedLoop(A), CB = *matchCountedLoop(B);
  auto Same = [&](const Expr *X, const Expr *Y) {
    if (!X || !Y)
      return !X && !Y;
    std::vector<const VarDecl *> VX, VY;
    return checkStable(X, A, Body, AC, VX).empty() &&
           checkStable(Y, B, Body, AC, VY).empty() && VX == VY &&
           withoutSpaces(sourceText(X->getSourceRange(), AC)) ==
               withoutSpaces(sourceText(Y->getSourceRange(), AC));
  };
  return Same(CA.Init, CB.Init) && Same(CA.Step, CB.Step);
}

/// Global reads `p[idx]` of pointer parameters, or `row[idx]` of row
/// pointers, in the body of Loop.
std::map<ReReadKey, std::vector<const AccessInfo *>>
readsIn(const ForStmt *Loop, const KernelInfo &K, ASTContext &AC) {
  std::map<ReReadKey, std::vector<const AccessInfo *>> R;
  const SourceManager &SM = AC.getSourceManager();
  for (const AccessInfo &A :
       concat<const AccessInfo>(K.Accesses, K.LocalPointerAccesses)) {
    if (A.K != AccessInfo::Load || !A.Expr ||
        !contains(Loop->getBody()->getSourceRange(), A.Expr->getBeginLoc(), SM))
      continue;
    const VarDecl *Base = A.Through ? A.Through : A.BaseDecl;
    R[ReReadKey{Base, withoutSpaces(A.Index)}].push_back(&A);
  }
  return R;
}

/// KernelInfo lists Key as read in A and read again in B (a row pointer's
/// element read in both is: B follows A).
bool isReRead(const KernelInfo &K, const ReReadKey &Key, const ForStmt *A,
              const ForStmt *B, ASTContext &AC) {
  if (!isa<ParmVarDecl>(Key.Base))
    return true;
  auto Within = [&](const ForStmt *Loop, LineCol L) {
    LineCol Begin = lineCol(Loop->getBeginLoc(), AC);
    LineCol End = lineCol(Loop->getEndLoc(), AC);
    return std::tie(Begin.Line, Begin.Col) <= std::tie(L.Line, L.Col) &&
           std::tie(L.Line, L.Col) <= std::tie(End.Line, End.Col);
  };
  for (const ReReadInfo &R : K.ReReads)
    if (R.Base == Key.Base->getName() && withoutSpaces(R.Index) == Key.Index &&
        Within(A, R.First) && Within(B, R.Again))
      return true;
  return false;
}

/// Finds the groups of sibling loops in one compound statement.
void matchCompound(const KernelInfo &K, const CompoundStmt *CS, ParentMap &PM,
                   ASTContext &AC, ReReadShapes Shapes, ReReadLoops &Out) {
  std::vector<const ForStmt *> Loops;
  for (const Stmt *S : CS->body()) {
    if (const auto *AS = dyn_cast<AttributedStmt>(S))
      S = AS->getSubStmt();
    if (const auto *F = dyn_cast<ForStmt>(S))
      Loops.push_back(F);
  }
  std::set<const ForStmt *> Used;
  std::set<std::pair<const ForStmt *, std::string>> Reported;
  auto Missed = [&](const Refusal &R) {
    if (Reported.insert({nullptr, R.Message + str(R.Loc)}).second)
      Out.Refusals.push_back(R);
  };
  for (size_t I = 0; I < Loops.size(); ++I) {
    const ForStmt *A = Loops[I];
    if (Used.count(A))
      continue;
    auto ReadsA = readsIn(A, K, AC);
    std::optional<std::optional<Refusal>> ShapeA;
    ReReadGroup G;
    G.A = A;
    std::map<ReReadKey, CachedLoad> Caches;
    for (size_t J = I + 1; J < Loops.size(); ++J) {
      const ForStmt *B = Loops[J];
      if (Used.count(B))
        continue;
      auto ReadsB = readsIn(B, K, AC);
      // The re-reads KernelInfo found (a load in a later phase of an
      // element loaded before) whose first read is in A and second in B.
      std::vector<ReReadKey> Shared;
      for (const auto &[Key, _] : ReadsB)
        if (ReadsA.count(Key) && isReRead(K, Key, A, B, AC))
          Shared.push_back(Key);
      if (Shared.empty())
        continue;
      Out.SawReRead = true;
      const AccessInfo &First = *ReadsB[Shared.front()].front();
      auto Here = [&](const Twine &Why) {
        return Refusal{"'" + First.Base + "[" + First.Index +
                           "]' is read again at " + str(First.Loc) + ", but " +
                           Why.str(),
                       First.Loc};
      };
      if (!ShapeA)
        ShapeA = checkLoop(A, K, PM, AC, Shapes);
      if (*ShapeA) {
        Missed(Here((*ShapeA)->Message));
        continue;
      }
      if (std::optional<Refusal> R = checkLoop(B, K, PM, AC, Shapes)) {
        Missed(Here(R->Message));
        continue;
      }
      const Stmt *KernelBody = K.Decl->getBody();
      if (Shapes == ReReadShapes::SameIterations
              ? !sameStartAndStep(A, B, KernelBody, AC)
              : isSerialLoop(A, KernelBody, AC) !=
                    isSerialLoop(B, KernelBody, AC)) {
        Missed(Here("the loops at " + str(lineCol(A->getBeginLoc(), AC)) +
                    " and " + str(lineCol(B->getBeginLoc(), AC)) +
                    " divide their iterations differently"));
        continue;
      }
      if (!sameBound(A, B, KernelBody, AC)) {
        Missed(Here("the loops at " + str(lineCol(A->getBeginLoc(), AC)) +
                    " and " + str(lineCol(B->getBeginLoc(), AC)) +
                    " have different bounds"));
        continue;
      }
      bool Any = false;
      for (const ReReadKey &KeyAB : Shared) {
        const AccessInfo &Again = *ReadsB[KeyAB].front();
        auto HereKey = [&](const Twine &Why) {
          return Refusal{"'" + Again.Base + "[" + Again.Index +
                             "]' is read again at " + str(Again.Loc) +
                             ", but " + Why.str(),
                         Again.Loc};
        };
        const ParmVarDecl *Root = ReadsB[KeyAB].front()->BaseDecl;
        if (std::string W = whyNotCacheable(KeyAB.Base, Root, K, AC);
            !W.empty()) {
          Missed(HereKey(W));
          continue;
        }
        const AccessInfo *Load = nullptr;
        for (const AccessInfo *X : ReadsA[KeyAB])
          if (runsWheneverBodyRuns(X->Expr, A->getBody(), PM)) {
            Load = X;
            break;
          }
        if (Load && !isRewritable(Load->Expr->getSourceRange(), AC)) {
          Missed(HereKey("its load at " + str(Load->Loc) +
                         " is written in a macro"));
          continue;
        }
        if (!Load) {
          Missed(HereKey("the loop at " + str(lineCol(A->getBeginLoc(), AC)) +
                         " does not load it on every iteration"));
          continue;
        }
        // The index has one value per loop variable, the same in A and B.
        std::string Why;
        std::vector<const VarDecl *> VarsA, VarsB;
        const VarDecl *VarA = matchCountedLoop(A)->Var;
        const VarDecl *VarB = matchCountedLoop(B)->Var;
        Why = checkIndex(Load->Expr->getIdx(), VarA, A, K.Decl->getBody(), AC,
                         VarsA);
        for (const AccessInfo *X : ReadsB[KeyAB]) {
          if (!Why.empty())
            break;
          std::vector<const VarDecl *> Vars;
          Why = checkIndex(X->Expr->getIdx(), VarB, B, K.Decl->getBody(), AC,
                           Vars);
          if (Why.empty() && Vars.size() != VarsA.size())
            Why = "different variables";
          for (size_t V = 0; Why.empty() && V < Vars.size(); ++V)
            if (!(Vars[V] == VarsA[V] || (Vars[V] == VarB && VarsA[V] == VarA)))
              Why = "different variables";
          if (Why.empty() && !isRewritable(X->Expr->getSourceRange(), AC))
            Why = "a macro";
        }
        if (!Why.empty()) {
          Missed(HereKey("its index uses " + Why));
          continue;
        }
        if (!Caches.count(KeyAB)) {
          CachedLoad C;
          C.K = KeyAB;
          C.BaseName = KeyAB.Base->getNameAsString();
          C.Load = Load->Expr;
          C.Root = Root;
          // A row has its parameter's element type (const may be added),
          // spelled as written (`T` in a template's instantiation).
          const ParamInfo *P = K.param(Root->getNameAsString());
          PrintingPolicy PP(AC.getLangOpts());
          PP.SuppressTagKeyword = true;
          C.ElementType = P->Decl ? typeAsWritten(P->Decl->getType()
                                                      ->getPointeeType()
                                                      .getUnqualifiedType(),
                                                  PP)
                                  : P->PointeeType;
          C.Const = KeyAB.Base->getType()->getPointeeType().isConstQualified();
          uint64_t Bytes =
              AC.getTypeSizeInChars(KeyAB.Base->getType()->getPointeeType())
                  .getQuantity();
          C.Registers = std::max<uint64_t>(1, (Bytes + 3) / 4);
          Caches.emplace(KeyAB, C);
        }
        Any = true;
      }
      if (!Any)
        continue;
      G.Bs.push_back(B);
    }
    if (G.Bs.empty())
      continue;
    for (auto &[_, C] : Caches)
      G.Loads.push_back(C);
    // In the order A loads them (the map's order is by pointer value).
    const SourceManager &SM = AC.getSourceManager();
    llvm::sort(G.Loads, [&](const CachedLoad &L, const CachedLoad &R) {
      return SM.isBeforeInTranslationUnit(L.Load->getBeginLoc(),
                                          R.Load->getBeginLoc());
    });
    G.Bound = matchCountedLoop(A)->Bound;
    G.Serial = Shapes == ReReadShapes::BlockStrideOrSerial &&
               isSerialLoop(A, K.Decl->getBody(), AC);
    Used.insert(A);
    Used.insert(G.Bs.begin(), G.Bs.end());
    Out.Groups.push_back(std::move(G));
  }
}

} // namespace

ReReadLoops findReReadLoops(const KernelInfo &K, ASTContext &AC,
                            ReReadShapes Shapes) {
  ReReadLoops Out;
  ParentMap PM(K.Decl->getBody());
  for (const BoundNodes &N :
       match(findAll(compoundStmt().bind("c")), *K.Decl->getBody(), AC))
    matchCompound(K, N.getNodeAs<CompoundStmt>("c"), PM, AC, Shapes, Out);
  return Out;
}

std::optional<int64_t> staticLoopBound(const ForStmt *Loop, const KernelInfo &K,
                                       ASTContext &AC) {
  const Expr *Bound = matchCountedLoop(Loop)->Bound;
  if (std::optional<int64_t> C = evaluateInt(Bound, AC, nullptr))
    return *C;
  const VarDecl *V = referencedVar(Bound);
  const auto *Body = dyn_cast<CompoundStmt>(K.Decl->getBody());
  if (!V || !Body)
    return std::nullopt;
  const SourceManager &SM = AC.getSourceManager();
  std::optional<int64_t> Best;
  std::function<void(const Expr *)> Guard = [&](const Expr *Cond) {
    Cond = Cond->IgnoreParenImpCasts();
    const auto *B = dyn_cast<BinaryOperator>(Cond);
    if (!B)
      return;
    if (B->getOpcode() == BO_LOr) {
      Guard(B->getLHS());
      Guard(B->getRHS());
      return;
    }
    const Expr *Var = B->getLHS(), *Lim = B->getRHS();
    BinaryOperatorKind Op = B->getOpcode();
    if (Op == BO_LT || Op == BO_LE) { // C < n  is  n > C
      std::swap(Var, Lim);
      Op = Op == BO_LT ? BO_GT : BO_GE;
    }
    if ((Op != BO_GT && Op != BO_GE) || referencedVar(Var) != V)
      return;
    std::optional<int64_t> C = evaluateInt(Lim, AC, nullptr);
    if (!C)
      return;
    int64_t Max = Op == BO_GT ? *C : *C - 1;
    if (!Best || Max < *Best)
      Best = Max;
  };
  for (const Stmt *S : Body->body()) {
    if (!SM.isBeforeInTranslationUnit(S->getBeginLoc(), Loop->getBeginLoc()))
      break;
    const auto *If = dyn_cast<IfStmt>(S);
    if (!If || If->getElse() || If->getInit() || If->getConditionVariable())
      continue;
    const Stmt *Then = If->getThen();
    if (const auto *CS = dyn_cast<CompoundStmt>(Then); CS && CS->size() == 1)
      Then = CS->body_front();
    if (isa<ReturnStmt>(Then))
      Guard(If->getCond());
  }
  return Best;
}

} // namespace kopt
