//===- ElementwiseLoop.cpp - One element per iteration --------------------===//

#include "kopt/Analysis/ElementwiseLoop.h"
#include "kopt/Analysis/AffineForm.h"
#include "kopt/Analysis/BodyHazards.h"
#include "kopt/Analysis/ControlFlow.h"
#include "kopt/Analysis/IndexSets.h"
#include "kopt/Analysis/LocalPointers.h"

#include "clang/AST/Attr.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <map>

using namespace clang;
using namespace clang::ast_matchers;
using namespace llvm;

namespace kopt {

namespace {

/// What in the per-element code ties it to its thread or leaves the
/// element computation early, as the remark says it. Another thread
/// computes each element after the rewrite of a loop: one of the same
/// block in a block-stride loop (blockIdx stays), of the grid in a
/// grid-stride loop (blockDim and gridDim stay, the launch being the same).
/// A one-element-per-thread kernel may get another grid: every built-in
/// but its index's is refused.
std::optional<Refusal> scanElementCode(const Stmt *Body, ASTContext &Ctx,
                                       const ElementRegion &R) {
  using K = BodyHazard;
  std::vector<BuiltinVar> Harmless;
  if (!R.OnePerThread)
    Harmless = {BuiltinVar::BlockDim, BuiltinVar::GridDim};
  if (R.PerBlock)
    Harmless.push_back(BuiltinVar::BlockIdx);
  std::optional<BodyHazard> H =
      firstHazard(Body, Ctx,
                  {K::Return, K::Goto, K::Break, K::Continue, K::Barrier,
                   K::WarpCollective, K::ThreadIndex, K::ReservedName},
                  "kopt_vec", Harmless);
  if (!H)
    return std::nullopt;
  std::string What;
  switch (H->K) {
  case K::Return:
    What = "a return statement";
    break;
  case K::Goto:
    What = "a goto";
    break;
  case K::Break:
    What = "a break out of the element loop";
    break;
  case K::Continue:
    What = "a continue of the element loop";
    break;
  case K::Barrier:
    What = "a barrier";
    break;
  case K::WarpCollective:
    What = "the warp collective '" + H->Name + "'";
    break;
  case K::ThreadIndex:
    What = "a use of " + H->Name;
    break;
  case K::ReservedName:
    What = "code kopt already vectorized";
    break;
  case K::Label:
    break;
  }
  return Refusal{"the element computation contains " + What,
                 lineCol(H->At->getBeginLoc(), Ctx)};
}

/// The local variables S refers to, once each, in source order.
std::vector<const VarDecl *> localsIn(const Stmt *S, ASTContext &Ctx) {
  std::vector<const VarDecl *> Vars;
  for (const BoundNodes &N :
       match(findAll(declRefExpr(to(varDecl(hasLocalStorage()).bind("v")))), *S,
             Ctx))
    if (const auto *V = N.getNodeAs<VarDecl>("v"); !is_contained(Vars, V))
      Vars.push_back(V);
  return Vars;
}

} // namespace

bool matchElementIndex(const Expr *Index, const VarDecl *Var, const Stmt *Body,
                       const FunctionDecl *Kernel, ASTContext &Ctx,
                       const Expr *&Offset) {
  Offset = nullptr;
  const Expr *E = stripCasts(Index);
  if (referencedVar(E) == Var)
    return true;
  // A local of the body that holds such an index (`int i = row * n + j;`)
  // and keeps it.
  if (const VarDecl *L = referencedVar(E);
      L && !isa<ParmVarDecl>(L) && L->hasLocalStorage() && L->getInit() &&
      !L->getType()->isReferenceType() && L->getType()->isIntegerType() &&
      Body->getSourceRange().fullyContains(L->getSourceRange()) &&
      !isModifiedIn(L, Body) && referencedVar(stripCasts(L->getInit())) != L)
    return matchElementIndex(L->getInit(), Var, Body, Kernel, Ctx, Offset);
  const auto *Add = dyn_cast<BinaryOperator>(E);
  if (!Add || Add->getOpcode() != BO_Add)
    return false;
  const Expr *Off = nullptr;
  if (referencedVar(Add->getRHS()) == Var)
    Off = Add->getLHS();
  else if (referencedVar(Add->getLHS()) == Var)
    Off = Add->getRHS();
  if (!Off || hasSideEffects(Off, Ctx) ||
      classifyIndex(Off, Kernel, Ctx).K != IndexClass::Uniform)
    return false;
  // Every variable of the offset must be declared outside Body and keep its
  // value in it.
  const SourceManager &SM = Ctx.getSourceManager();
  for (const VarDecl *V : localsIn(Off, Ctx))
    if (isModifiedIn(V, Body) ||
        (!isa<ParmVarDecl>(V) &&
         !SM.isBeforeInTranslationUnit(V->getLocation(), Body->getBeginLoc())))
      return false;
  Offset = Off;
  return true;
}

namespace {

/// Local variables declared outside Body that Body writes: state carried
/// from one element to the next (an accumulator, a "last seen" value).
std::vector<std::string> carriedState(const Stmt *Body, const VarDecl *Index,
                                      ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  std::vector<std::string> Names;
  for (const VarDecl *V : localsIn(Body, Ctx))
    if (V != Index &&
        SM.isBeforeInTranslationUnit(V->getLocation(), Body->getBeginLoc()) &&
        isModifiedIn(V, Body))
      Names.push_back(V->getNameAsString());
  return Names;
}

const AccessInfo *accessOf(const KernelInfo &K, const ArraySubscriptExpr *E) {
  for (const AccessInfo &A :
       concat<const AccessInfo>(K.Accesses, K.LocalPointerAccesses))
    if (A.Expr == E)
      return &A;
  return nullptr;
}

/// The variable an access is made through: its local pointer or parameter.
const VarDecl *baseOf(const AccessInfo &A) {
  return A.Through ? A.Through : A.BaseDecl;
}

/// Whether an access through a local pointer names the same elements for
/// every thread that runs R: the local is set before R, and its offset is
/// the same for all of them (R.PerBlock: the threads of a block).
bool sharedByRegion(const AccessInfo &A, const KernelInfo &K,
                    const ElementRegion &R, ASTContext &AC) {
  if (!A.Through)
    return true;
  std::optional<LocalPointer> L =
      matchLocalPointerAt(A.Through, A.Expr, K.Decl);
  if (!L || !AC.getSourceManager().isBeforeInTranslationUnit(
                A.Through->getLocation(), R.Body->getBeginLoc()))
    return false;
  return all_of(L->Offsets, [&](const Expr *Offset) {
    return classifyIndex(Offset, K.Decl, AC).K == IndexClass::Uniform &&
           (R.PerBlock || !mayDifferBetweenBlocks(Offset, K.Decl->getBody()));
  });
}

/// "the store to 'p[i]' runs only when 'p != NULL'".
std::string guardedAccess(const AccessInfo &A, const Stmt *Body,
                          ParentMap &Parents, ASTContext &AC) {
  const Stmt *Guard = guardOf(A.Expr, Body, Parents);
  return std::string(A.writes() ? "the store to '" : "the load of '") + A.Base +
         "[" + A.Index + "]' runs only when '" +
         oneLine(sourceText(Guard->getSourceRange(), AC)) + "'";
}

/// Which top-level statement of Body holds E (0 if Body is not compound).
size_t topLevelIndex(const Stmt *E, const Stmt *Body, ParentMap &Parents);

/// Whether the load L of an element runs before the store S of it, and
/// once per element: L lies in an earlier statement of Body than S, or in
/// the right-hand side of S's own plain assignment, which no loop inside
/// Body repeats.
bool loadedBeforeStored(const Expr *L, const Expr *S, const Stmt *Body,
                        ParentMap &Parents) {
  if (topLevelIndex(L, Body, Parents) < topLevelIndex(S, Body, Parents))
    return true;
  const Stmt *Up = Parents.getParentIgnoreParenImpCasts(const_cast<Expr *>(S));
  const auto *Assign = dyn_cast_or_null<BinaryOperator>(Up);
  if (!Assign || Assign->getOpcode() != BO_Assign ||
      Assign->getLHS()->IgnoreParenImpCasts() != S)
    return false;
  bool InRHS = false;
  for (const Stmt *P = L; P && P != Assign;
       P = Parents.getParent(const_cast<Stmt *>(P)))
    InRHS |= P == Assign->getRHS();
  if (!InRHS)
    return false;
  for (const Stmt *P = Assign; P && P != Body;
       P = Parents.getParent(const_cast<Stmt *>(P)))
    if (isa<ForStmt, WhileStmt, DoStmt, CXXForRangeStmt>(P))
      return false;
  return true;
}

/// Which top-level statement of Body holds E (0 if Body is not compound).
size_t topLevelIndex(const Stmt *E, const Stmt *Body, ParentMap &Parents) {
  const auto *CS = dyn_cast<CompoundStmt>(Body);
  if (!CS)
    return 0;
  const Stmt *S = E;
  while (S && Parents.getParent(const_cast<Stmt *>(S)) != CS)
    S = Parents.getParent(const_cast<Stmt *>(S));
  size_t Index = 0;
  for (const Stmt *Child : CS->body()) {
    if (Child == S)
      return Index;
    ++Index;
  }
  return Index;
}

} // namespace

bool isPlainLoad(const KernelInfo &K, const ArraySubscriptExpr *E) {
  const AccessInfo *A = accessOf(K, E);
  return A && A->K == AccessInfo::Load;
}

std::optional<Refusal> whyReadMayFollowWrite(const KernelInfo &K,
                                             const ElementRegion &R,
                                             const VectorPointer &P,
                                             ASTContext &AC) {
  if (!P.Writes || !P.Reads)
    return std::nullopt;
  ParentMap Parents(const_cast<Stmt *>(K.Decl->getBody()));
  // The statement that runs the write W once per element: its assignment,
  // with no loop between it and the body; null when a loop is there.
  auto OnceAssignment = [&](const Expr *W) -> const BinaryOperator * {
    const Stmt *S = Parents.getParent(const_cast<Expr *>(W));
    while (S && isa<ParenExpr>(S))
      S = Parents.getParent(const_cast<Stmt *>(S));
    const auto *B = dyn_cast_or_null<BinaryOperator>(S);
    if (!B || !B->isAssignmentOp() || B->getLHS()->IgnoreParens() != W)
      return nullptr;
    for (const Stmt *Up = B; Up && Up != R.Body;
         Up = Parents.getParent(const_cast<Stmt *>(Up)))
      if (isa<ForStmt, WhileStmt, DoStmt, CXXForRangeStmt>(Up))
        return nullptr;
    return B;
  };
  auto Within = [&](const Stmt *Inner, const Stmt *Outer) {
    for (const Stmt *Up = Inner; Up;
         Up = Parents.getParent(const_cast<Stmt *>(Up)))
      if (Up == Outer)
        return true;
    return false;
  };
  for (const ArraySubscriptExpr *W : P.Accesses) {
    const AccessInfo *WA = accessOf(K, W);
    if (!WA || !WA->writes())
      continue;
    size_t WIndex = topLevelIndex(W, R.Body, Parents);
    const BinaryOperator *Assign = OnceAssignment(W);
    for (const ArraySubscriptExpr *Rd : P.Accesses) {
      const AccessInfo *RA = accessOf(K, Rd);
      if (!RA || !RA->reads())
        continue;
      size_t RIndex = topLevelIndex(Rd, R.Body, Parents);
      if (RIndex < WIndex)
        continue;
      if (Assign && Rd == W && Assign->isCompoundAssignmentOp())
        continue;
      if (Assign && Assign->getOpcode() == BO_Assign &&
          Within(Rd, Assign->getRHS()))
        continue;
      std::string Read = "the read of '" + RA->Base + "[" + RA->Index +
                         "]' at " + str(RA->Loc);
      return Refusal{(RIndex > WIndex
                          ? Read + " follows the write at " + str(WA->Loc)
                          : Read + " and the write at " + str(WA->Loc) +
                                " share a statement of the loop body, where "
                                "their order is not checked") +
                         ": a staged element is read before the element's "
                         "iteration runs",
                     RA->Loc};
    }
  }
  return std::nullopt;
}

bool declaresVectorCarrier(const Stmt *S, ASTContext &Ctx) {
  for (const BoundNodes &N : match(findAll(declStmt().bind("d")), *S, Ctx))
    for (const Decl *D : N.getNodeAs<DeclStmt>("d")->decls())
      if (const auto *V = dyn_cast<VarDecl>(D);
          V && V->getIdentifier() && V->getName().starts_with("kopt_vec_"))
        return true;
  return false;
}

namespace {

/// `blockIdx.x * C + threadIdx.x` (in any order, through an unchanged
/// local) with C a constant equal to BlockX.
bool isNamedGlobalThreadIndex(const Expr *E, const Stmt *Scope, int64_t BlockX,
                              const ASTContext &Ctx) {
  E = stripCasts(followLocalInit(stripCasts(E), Scope));
  const auto *Add = dyn_cast<BinaryOperator>(E);
  if (!Add || Add->getOpcode() != BO_Add)
    return false;
  auto IsBase = [&](const Expr *X) {
    const auto *Mul = dyn_cast<BinaryOperator>(stripCasts(X));
    if (!Mul || Mul->getOpcode() != BO_Mul)
      return false;
    for (auto [Idx, Size] : {std::pair(Mul->getLHS(), Mul->getRHS()),
                             std::pair(Mul->getRHS(), Mul->getLHS())})
      if (isBuiltin(Idx, BuiltinVar::BlockIdx) &&
          evaluateInt(Size, Ctx, Scope) == BlockX)
        return true;
    return false;
  };
  auto IsTid = [](const Expr *X) {
    return isBuiltin(X, BuiltinVar::ThreadIdx);
  };
  return (IsBase(Add->getLHS()) && IsTid(Add->getRHS())) ||
         (IsTid(Add->getLHS()) && IsBase(Add->getRHS()));
}

} // namespace

/// `T i = gid; if (i < n) STMT` as the whole kernel body.
std::optional<ElementRegion> matchOnePerThread(const KernelInfo &K,
                                               std::optional<int64_t> BlockX) {
  const auto *Body = dyn_cast<CompoundStmt>(K.Decl->getBody());
  if (!Body || Body->size() != 2)
    return std::nullopt;
  const auto *DS = dyn_cast<DeclStmt>(Body->body_front());
  const auto *If = dyn_cast<IfStmt>(Body->body_back());
  if (!DS || !If || !DS->isSingleDecl() || If->getElse() || If->getInit() ||
      If->getConditionVariable())
    return std::nullopt;
  const auto *V = dyn_cast<VarDecl>(DS->getSingleDecl());
  if (!V || !V->getInit() ||
      !(isGlobalThreadIndex(V->getInit(), Body) ||
        (BlockX && isNamedGlobalThreadIndex(V->getInit(), Body, *BlockX,
                                            K.Decl->getASTContext()))))
    return std::nullopt;
  const auto *Cond =
      dyn_cast<BinaryOperator>(If->getCond()->IgnoreParenImpCasts());
  if (!Cond)
    return std::nullopt;
  ElementRegion R;
  R.Var = V;
  R.Body = If->getThen();
  R.OnePerThread = true;
  if (Cond->getOpcode() == BO_LT && referencedVar(Cond->getLHS()) == V)
    R.Bound = Cond->getRHS();
  else if (Cond->getOpcode() == BO_GT && referencedVar(Cond->getRHS()) == V)
    R.Bound = Cond->getLHS();
  else
    return std::nullopt;
  return R;
}

/// Decides whether Region can be vectorized and how; a Refusal otherwise.
Decision<VectorPlan> planVectorAccesses(const KernelInfo &K,
                                        const ElementRegion &R, ASTContext &AC,
                                        std::optional<uint64_t> Width,
                                        bool AllowCarried) {
  LineCol RegionLoc = lineCol(R.Body->getBeginLoc(), AC);
  auto Refuse = [&](const Twine &Msg, LineCol Loc) {
    return Refusal{Msg.str(), Loc.Line ? Loc : RegionLoc};
  };
  const Stmt *KernelBody = K.Decl->getBody();

  // Index arithmetic: v * W + e must not overflow where i < n did not.
  QualType IndexType = R.Var->getType();
  QualType BoundType = R.Bound->IgnoreParenImpCasts()->getType();
  if (!IndexType->isIntegerType() || AC.getTypeSize(IndexType) < 32)
    return Refuse("the index '" + R.Var->getName() + "' has type '" +
                      IndexType.getAsString() +
                      "', narrower than 32 bits: vector index arithmetic "
                      "could overflow",
                  lineCol(R.Var->getLocation(), AC));
  if (!BoundType->isIntegerType() ||
      AC.getTypeSize(BoundType) > AC.getTypeSize(IndexType))
    return Refuse("the index '" + R.Var->getName() + "' (" +
                      IndexType.getAsString() +
                      ") is narrower than its bound '" +
                      sourceText(R.Bound->getSourceRange(), AC) + "' (" +
                      BoundType.getAsString() +
                      "): vector index arithmetic could overflow",
                  lineCol(R.Bound->getBeginLoc(), AC));
  if (hasSideEffects(R.Bound, AC) ||
      classifyIndex(R.Bound, K.Decl, AC).K != IndexClass::Uniform)
    return Refuse("the bound '" + sourceText(R.Bound->getSourceRange(), AC) +
                      "' is not the same for all threads and iterations",
                  lineCol(R.Bound->getBeginLoc(), AC));
  if (isModifiedIn(R.Var, R.Body))
    return Refuse("the element computation modifies the index '" +
                      R.Var->getName() + "'",
                  lineCol(R.Var->getLocation(), AC));

  if (std::optional<Refusal> Why = scanElementCode(R.Body, AC, R))
    return *Why;

  // State carried across elements: vectorizing changes which thread
  // visits which elements, so per-thread results (partial sums) change.
  // That is only right when the kernel then combines all threads' values
  // in a way that does not depend on it, which the caller vouches for
  // (reassociate=true, or a proved first-index selection).
  std::vector<std::string> Carried = carriedState(R.Body, R.Var, AC);
  if (!Carried.empty() && !AllowCarried)
    return Refuse("the loop carries '" + join(Carried, "', '") +
                      "' from one element to the next; vectorizing changes "
                      "which thread accumulates which elements "
                      "(reassociate=true allows it)",
                  RegionLoc);

  // Sort the region's global accesses into element-wise ones and others.
  std::vector<const ArraySubscriptExpr *> Subscripts;
  for (const BoundNodes &N :
       match(findAll(arraySubscriptExpr().bind("a")), *R.Body, AC))
    Subscripts.push_back(N.getNodeAs<ArraySubscriptExpr>("a"));
  std::map<const VarDecl *, VectorPointer, BaseOrder> Vectorized;
  std::vector<const AccessInfo *> Others;
  // Element-wise accesses the rewrite cannot vectorize, so they would stay
  // scalar: through pointers that are neither kernel parameters nor locals
  // fixed to one (LocalPointers.h), and pointer arithmetic (`__ldcs(x +
  // i)`).
  std::vector<const Expr *> LeftScalar;
  for (const BoundNodes &N : match(
           findAll(binaryOperator(hasOperatorName("+"), hasType(pointerType()))
                       .bind("p")),
           *R.Body, AC)) {
    const auto *Add = N.getNodeAs<BinaryOperator>("p");
    const Expr *Index = Add->getLHS()->getType()->isPointerType()
                            ? Add->getRHS()
                            : Add->getLHS();
    const Expr *Offset = nullptr;
    if (matchElementIndex(Index, R.Var, R.Body, K.Decl, AC, Offset))
      LeftScalar.push_back(Add);
  }
  auto Tracked = [&](const ArraySubscriptExpr *E) -> const AccessInfo * {
    const AccessInfo *A = accessOf(K, E);
    return A && sharedByRegion(*A, K, R, AC) ? A : nullptr;
  };
  if (std::optional<Refusal> Why = untrackedStore(
          R.Body, [&](const ArraySubscriptExpr *E) { return Tracked(E); }, AC))
    return *Why;
  for (const ArraySubscriptExpr *E : Subscripts) {
    const AccessInfo *A = Tracked(E);
    const Expr *Offset = nullptr;
    if (!A) {
      // Not a global pointer parameter or a local fixed to one. Arrays
      // (shared, local) are not global memory; pointers may well be.
      if (E->getBase()->IgnoreParenImpCasts()->getType()->isPointerType() &&
          matchElementIndex(E->getIdx(), R.Var, R.Body, K.Decl, AC, Offset))
        LeftScalar.push_back(E);
      continue;
    }
    if (!matchElementIndex(E->getIdx(), R.Var, R.Body, K.Decl, AC, Offset)) {
      Others.push_back(A);
      continue;
    }
    if (A->K == AccessInfo::AddressOf)
      return Refuse("the address of '" + A->Base + "[" + A->Index +
                        "]' is taken",
                    A->Loc);
    std::string OffsetText =
        Offset ? sourceText(Offset->getSourceRange(), AC) : std::string();
    bool First = !Vectorized.count(baseOf(*A));
    VectorPointer &P = Vectorized[baseOf(*A)];
    if (!First && withoutSpaces(P.Offset) != withoutSpaces(OffsetText))
      return Refuse("'" + A->Base + "' is accessed at '" + A->Index +
                        "' and at offset '" + P.Offset +
                        "': not one contiguous range per thread",
                    A->Loc);
    P.Offset = OffsetText;
    P.Param = K.param(A->BaseDecl->getName());
    P.Name = A->Base;
    P.Reads |= A->reads();
    P.Writes |= A->writes();
    P.Accesses.push_back(E);
  }
  if (Vectorized.empty())
    return Refuse("no element-wise global access 'p[" + R.Var->getName() +
                      "]' to vectorize",
                  RegionLoc);
  // All of the element-wise accesses or none: with W elements per thread,
  // an access left scalar is strided across threads and loses the
  // coalescing it had (llm.c's layernorm_forward kernel 5 ran up to 1.5x
  // slower after a partial vectorization).
  if (!LeftScalar.empty()) {
    const Expr *E = LeftScalar.front();
    return Refuse("'" + sourceText(E->getSourceRange(), AC) +
                      "' is element-wise but not a subscript of a kernel "
                      "parameter or of a local fixed to one, so it would "
                      "stay scalar: vectorizing only "
                      "some element-wise accesses leaves the others "
                      "uncoalesced",
                  lineCol(E->getBeginLoc(), AC));
  }
  for (const AccessInfo *A : Others) {
    if (Vectorized.count(baseOf(*A)))
      return Refuse("'" + A->Base + "' is accessed at '" + A->Index +
                        "' as well as at '" + R.Var->getName() +
                        "': its accesses are not contiguous per thread",
                    A->Loc);
    if (A->writes() || A->K == AccessInfo::AddressOf)
      return Refuse("the store to '" + A->Base + "[" + A->Index +
                        "]' is not element-wise",
                    A->Loc);
  }

  // Element types and the vector width.
  unsigned WidestBytes = 0;
  for (auto &[Decl, P] : Vectorized) {
    QualType Pointee = Decl->getType()->getPointeeType();
    if (Pointee.isVolatileQualified())
      return Refuse("'" + P.Name + "' points to volatile memory",
                    lineCol(Decl->getLocation(), AC));
    // (A local pointer's value where the loop reads it is known:
    // matchLocalPointerAt.)
    if (isa<ParmVarDecl>(Decl) && isModifiedIn(Decl, KernelBody))
      return Refuse("the pointer '" + P.Name + "' is modified in the kernel",
                    lineCol(Decl->getLocation(), AC));
    if (Pointee->isIncompleteType() || !Pointee.isTriviallyCopyableType(AC))
      return Refuse("'" + P.Name +
                        "' has an element type that is "
                        "not trivially copyable",
                    lineCol(Decl->getLocation(), AC));
    P.Element = P.Param->PointeeType;
    P.ElementBytes = AC.getTypeSizeInChars(Pointee).getQuantity();
    if (!isPowerOf2_32(P.ElementBytes) || P.ElementBytes > VectorBytes)
      return Refuse("'" + P.Name + "' has " + Twine(P.ElementBytes) +
                        "-byte elements, which do not tile a 16-byte vector",
                    lineCol(Decl->getLocation(), AC));
    WidestBytes = std::max(WidestBytes, P.ElementBytes);
  }
  VectorPlan Result;
  std::optional<uint64_t> Requested = Width;
  Result.Width = Requested ? unsigned(*Requested) : VectorBytes / WidestBytes;
  if (Result.Width < 2 || !isPowerOf2_32(Result.Width))
    return Refuse(Requested ? "width=" + Twine(*Requested) +
                                  " is not a power of two of at least 2"
                            : Twine("the elements are already 16 bytes wide"),
                  RegionLoc);
  for (auto &[Decl, P] : Vectorized)
    if (Result.Width * P.ElementBytes > VectorBytes)
      return Refuse("width=" + Twine(Result.Width) + " needs " +
                        Twine(Result.Width * P.ElementBytes) +
                        "-byte accesses for '" + P.Name + "' (" + P.Element +
                        "); the widest is 16 bytes",
                    RegionLoc);

  // Aliasing between stores and loads of different pointers.
  std::map<const VarDecl *, std::vector<const AccessInfo *>, BaseOrder> Loads,
      Stores;
  // The parameter each base is fixed to: two bases may alias unless they
  // are fixed to different parameters one of which is __restrict__.
  std::map<const VarDecl *, const ParmVarDecl *> Roots;
  auto Record = [&](const AccessInfo *A) {
    Roots[baseOf(*A)] = A->BaseDecl;
    if (A->reads())
      Loads[baseOf(*A)].push_back(A);
    if (A->writes())
      Stores[baseOf(*A)].push_back(A);
  };
  for (const AccessInfo &A :
       concat<const AccessInfo>(K.Accesses, K.LocalPointerAccesses))
    for (auto &[Decl, P] : Vectorized)
      if (is_contained(P.Accesses, A.Expr))
        Record(&A);
  for (const AccessInfo *A : Others)
    Record(A);
  ParentMap Parents(const_cast<Stmt *>(KernelBody));
  auto Restrict = [&](const VarDecl *A, const VarDecl *B) {
    const ParmVarDecl *RA = Roots[A], *RB = Roots[B];
    return RA != RB && (RA->getType().isRestrictQualified() ||
                        RB->getType().isRestrictQualified());
  };
  for (auto &[StoreDecl, StoreList] : Stores) {
    for (auto &[LoadDecl, LoadList] : Loads) {
      if (StoreDecl == LoadDecl || Restrict(StoreDecl, LoadDecl))
        continue;
      std::string Pair = "the store to '" + StoreDecl->getNameAsString() +
                         "' may alias the load from '" +
                         LoadDecl->getNameAsString() + "'";
      if (!R.OnePerThread) {
        // Element-wise pairs are checked at run time (below).
        if (Vectorized.count(LoadDecl))
          continue;
        return Refuse(Pair + ", which is not element-wise here, so its "
                             "range is unknown: declare the pointers "
                             "__restrict__",
                      StoreList.front()->Loc);
      }
      for (const AccessInfo *L : LoadList)
        for (const AccessInfo *S : StoreList)
          if (topLevelIndex(L->Expr, R.Body, Parents) >
              topLevelIndex(S->Expr, R.Body, Parents))
            return Refuse(Pair + ", and the load at " + str(L->Loc) +
                              " follows the store at " + str(S->Loc),
                          L->Loc);
    }
  }
  // In a loop, a thread's W elements are loaded before any is computed and
  // stored after all are: a stored range that overlaps another element-wise
  // range (loaded, or stored in another order) may see or leave other
  // values than the original, even within one thread. Every access of both
  // lies in [base, base + bound) (stores are element-wise, or refused
  // above), so the rewrite checks each such pair for overlap at run time.
  // One element per thread keeps each thread's accesses in order; other
  // threads' elements were a data race in the original already.
  std::vector<std::pair<const VarDecl *, const VarDecl *>> Disjoint;
  if (!R.OnePerThread)
    for (auto &[StoreDecl, StoreList] : Stores)
      for (auto &[Decl, P] : Vectorized)
        if (Decl != StoreDecl && !Restrict(StoreDecl, Decl) &&
            (!Stores.count(Decl) || BaseOrder()(StoreDecl, Decl)))
          Disjoint.emplace_back(StoreDecl, Decl);

  // The vector accesses run for every element: each must stand for an
  // access the original makes for every element too. A store under a
  // condition (`if (p != NULL) p[i] = v;`) may not become an unconditional
  // store, and a pointer the original only reads under a condition (or
  // only writes) may not gain an unconditional load.
  for (auto &[Decl, P] : Vectorized) {
    const ArraySubscriptExpr *GuardedStore = nullptr, *GuardedLoad = nullptr;
    bool UnconditionalLoad = false;
    for (const ArraySubscriptExpr *E : P.Accesses) {
      const AccessInfo *A = accessOf(K, E);
      bool Always = runsWheneverBodyRuns(E, R.Body, Parents);
      if (A->writes()) {
        if (!Always && !GuardedStore)
          GuardedStore = E;
        P.FullyWritten |= Always && A->K == AccessInfo::Store;
      }
      if (A->reads()) {
        UnconditionalLoad |= Always;
        if (!Always && !GuardedLoad)
          GuardedLoad = E;
      }
    }
    if (GuardedStore)
      return Refuse(
          guardedAccess(*accessOf(K, GuardedStore), R.Body, Parents, AC) +
              ": a vector store would write every element",
          lineCol(GuardedStore->getBeginLoc(), AC));
    if (P.Reads && !UnconditionalLoad)
      return Refuse(
          guardedAccess(*accessOf(K, GuardedLoad), R.Body, Parents, AC) +
              ": a vector load would read every element",
          lineCol(GuardedLoad->getBeginLoc(), AC));
    Result.Pointers.push_back(P);
  }
  auto IndexOf = [&](const VarDecl *D) {
    return unsigned(find_if(Result.Pointers,
                            [&](const VectorPointer &V) {
                              return V.Name == D->getName();
                            }) -
                    Result.Pointers.begin());
  };
  for (auto [Stored, Other] : Disjoint) {
    Result.Disjoint.emplace_back(IndexOf(Stored), IndexOf(Other));
    bool LoadsFirst =
        !Stores.count(Other) &&
        Vectorized[Stored].ElementBytes == Vectorized[Other].ElementBytes &&
        all_of(Loads[Other], [&](const AccessInfo *L) {
          return all_of(Stores[Stored], [&](const AccessInfo *S) {
            return loadedBeforeStored(L->Expr, S->Expr, R.Body, Parents);
          });
        });
    if (LoadsFirst)
      Result.InPlace.insert(Result.Disjoint.back());
  }
  Result.SharedReads =
      sharedVectorReads(K, R, Result.Width, Subscripts, Parents, AC);
  return Result;
}

/// The rewritten kernel handles every element below the bound. That is
/// what the original did only if each launch started a thread per
/// element: its grid must be ceil(n / B), written `(n + B - 1) / B` (or
/// `(n + (B - 1)) / B`) with B the launch's block size and n the value the
/// launch passes for the bound, or constants whose product covers n. A
/// launch that started fewer threads processed a prefix the rewrite would
/// extend. Returns why coverage is not proven, or nothing.
std::optional<std::string>
whyNotCovering(const LaunchSite &L, const ElementRegion &R, ASTContext &HC) {
  std::string Launch = "the launch at " + str(L.Loc);
  const auto *BoundParam =
      dyn_cast_or_null<ParmVarDecl>(referencedVar(R.Bound));
  if (!BoundParam)
    return "the bound '" +
           sourceText(R.Bound->getSourceRange(), R.Var->getASTContext()) +
           "' is not a kernel parameter, so no launch can be shown to "
           "cover it";
  unsigned Index = BoundParam->getFunctionScopeIndex();
  if (!L.Call || Index >= L.Call->getNumArgs() || !L.Grid.Expr || !L.Block.Expr)
    return Launch + " does not show its grid, block and bound";
  const Stmt *Scope = L.CallerDecl ? L.CallerDecl->getBody() : nullptr;
  // The x extents of grid and block, as forms in the launching function.
  auto ExtentX = [&](const LaunchDim &D) -> const Expr * {
    if (!D.IsDim3)
      return D.Expr;
    const Expr *Init = followLocalInit(D.Expr, Scope)->IgnoreImplicit();
    const auto *C = dyn_cast<CXXConstructExpr>(Init);
    if (!C || C->getNumArgs() < 1 || isDim3(C->getArg(0)->getType()))
      return nullptr;
    return C->getArg(0);
  };
  const Expr *GridX = ExtentX(L.Grid), *BlockX = ExtentX(L.Block);
  if (!GridX || !BlockX)
    return Launch + " uses a dim3 grid or block kopt cannot read";
  AffineContext Forms(HC, Scope);
  std::optional<AffineForm> G = Forms.build(GridX);
  std::optional<AffineForm> B = Forms.build(BlockX);
  std::optional<AffineForm> N = Forms.build(L.Call->getArg(Index));
  if (G && B && N && coversCount(Forms, *G, *B, *N))
    return std::nullopt;
  return "cannot prove that " + Launch + " starts a thread for each of the '" +
         BoundParam->getNameAsString() + "' elements (grid '" + L.Grid.Text +
         "', expected ceil(n / block) as (n + block - 1) / block); the "
         "rewrite would cover elements the original did not";
}

} // namespace kopt
