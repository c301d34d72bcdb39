//===- SharedVectorReads.cpp - Shared arrays read as vectors --------------===//
//
// The part of vectorize-loads' plan for `__shared__` arrays a region only
// reads element-wise (VectorPlan::SharedReads in ElementwiseLoop.h).
//
//===----------------------------------------------------------------------===//

#include "kopt/Analysis/ControlFlow.h"
#include "kopt/Analysis/ElementwiseLoop.h"

#include "clang/AST/Attr.h"
#include "llvm/ADT/STLExtras.h"

#include <map>

using namespace clang;
using namespace llvm;

namespace kopt {

namespace {

/// Whether E's value is read and nothing else is done with the element: an
/// lvalue-to-rvalue conversion, or a trivial copy (`__nv_bfloat16` is a
/// class passed by value).
bool isValueRead(const Expr *E, ParentMap &Parents) {
  const Stmt *Up = Parents.getParentIgnoreParens(const_cast<Expr *>(E));
  while (const auto *Cast = dyn_cast_or_null<ImplicitCastExpr>(Up)) {
    if (Cast->getCastKind() == CK_LValueToRValue)
      return true;
    if (Cast->getCastKind() != CK_NoOp)
      return false;
    Up = Parents.getParentIgnoreParens(const_cast<ImplicitCastExpr *>(Cast));
  }
  const auto *Copy = dyn_cast_or_null<CXXConstructExpr>(Up);
  return Copy && Copy->getNumArgs() == 1 &&
         Copy->getConstructor()->isCopyOrMoveConstructor() &&
         Copy->getConstructor()->isTrivial();
}

/// Whether every use of the array V in Body is the base of a subscript,
/// directly or through casts (shared-cache fills its row through
/// `reinterpret_cast<uint4 *>(row)[v]`): no pointer into it outlives its
/// expression.
bool onlySubscripted(const VarDecl *V, const Stmt *Body, ParentMap &Parents,
                     ASTContext &AC) {
  return all_of(referencesTo(Body, V, AC), [&](const DeclRefExpr *Ref) {
    const Stmt *Child = Ref;
    const Stmt *Up = Parents.getParent(const_cast<Stmt *>(Child));
    while (Up && isa<ParenExpr, ImplicitCastExpr, CXXReinterpretCastExpr,
                     CStyleCastExpr>(Up)) {
      Child = Up;
      Up = Parents.getParent(const_cast<Stmt *>(Up));
    }
    const auto *Sub = dyn_cast_or_null<ArraySubscriptExpr>(Up);
    return Sub && Sub->getBase() == Child;
  });
}

} // namespace

std::vector<VectorPointer>
sharedVectorReads(const KernelInfo &K, const ElementRegion &R, unsigned Width,
                  ArrayRef<const ArraySubscriptExpr *> Subscripts,
                  ParentMap &Parents, ASTContext &AC) {
  std::map<const VarDecl *, VectorPointer> Arrays;
  std::vector<const VarDecl *> Order, Rejected;
  for (const ArraySubscriptExpr *E : Subscripts) {
    const auto *Ref =
        dyn_cast<DeclRefExpr>(E->getBase()->IgnoreParenImpCasts());
    const auto *V = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
    if (!V || !V->hasAttr<CUDASharedAttr>() ||
        V->getParentFunctionOrMethod() != K.Decl || is_contained(Rejected, V))
      continue;
    const Expr *Offset = nullptr;
    if (!isValueRead(E, Parents) ||
        !matchElementIndex(E->getIdx(), R.Var, R.Body, K.Decl, AC, Offset)) {
      Rejected.push_back(V);
      continue;
    }
    std::string OffsetText =
        Offset ? sourceText(Offset->getSourceRange(), AC) : std::string();
    auto [It, First] = Arrays.try_emplace(V);
    VectorPointer &P = It->second;
    if (First) {
      Order.push_back(V);
      P.Name = V->getNameAsString();
      P.Offset = OffsetText;
    } else if (withoutSpaces(P.Offset) != withoutSpaces(OffsetText)) {
      Rejected.push_back(V);
      continue;
    }
    P.Reads = true;
    P.Accesses.push_back(E);
  }
  std::vector<VectorPointer> Result;
  for (const VarDecl *V : Order) {
    if (is_contained(Rejected, V))
      continue;
    VectorPointer &P = Arrays[V];
    // Every use of the array in the region is one of the reads above, the
    // loop's header does not use it, and no pointer into it lives on to
    // write it while the region runs.
    const auto *Loop = dyn_cast_or_null<ForStmt>(
        Parents.getParent(const_cast<Stmt *>(R.Body)));
    bool InHeader = Loop && (countReferences(Loop->getCond(), V) ||
                             countReferences(Loop->getInc(), V));
    const auto *Array = AC.getAsConstantArrayType(V->getType());
    if (!Array || InHeader || countReferences(R.Body, V) != P.Accesses.size() ||
        !onlySubscripted(V, K.Decl->getBody(), Parents, AC))
      continue;
    QualType Elem = Array->getElementType();
    if (Elem.isVolatileQualified() || Elem->isArrayType() ||
        !Elem.isTriviallyCopyableType(AC))
      continue;
    P.ElementBytes = AC.getTypeSizeInChars(Elem).getQuantity();
    unsigned Bytes = Width * P.ElementBytes;
    if (!isPowerOf2_32(P.ElementBytes) || Bytes > VectorBytes ||
        uint64_t(AC.getDeclAlign(V).getQuantity()) < Bytes)
      continue;
    // The original reads every element below the bound, so every vector
    // below it reads inside the array.
    if (none_of(P.Accesses, [&](const ArraySubscriptExpr *E) {
          return runsWheneverBodyRuns(E, R.Body, Parents);
        }))
      continue;
    P.Element =
        Elem.getUnqualifiedType().getAsString(PrintingPolicy(AC.getLangOpts()));
    P.StaticallyAligned = P.Offset.empty();
    Result.push_back(std::move(P));
  }
  return Result;
}

} // namespace kopt
