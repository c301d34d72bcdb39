//===- VectorPlan.cpp - Vector accesses of an element-wise region ---------===//
//
// planVectorAccesses (ElementwiseLoop.h): whether an element-wise region's
// loads and stores can move to vectors of a width, which pointers need a
// run-time alignment or overlap check, and which reads are shared.
//
//===----------------------------------------------------------------------===//
#include "ElementwiseHelpers.h"
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

#include <map>

using namespace clang;
using namespace clang::ast_matchers;
using namespace llvm;

namespace kopt {

using namespace elementwise;

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
                        (P.Offset.empty()
                             ? "' and at '" + R.Var->getNameAsString()
                             : "' and at offset '" + P.Offset) +
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

} // namespace kopt
