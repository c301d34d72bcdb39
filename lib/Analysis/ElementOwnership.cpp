//===- ElementOwnership.cpp - Which thread touches an element -------------===//
//
// vectorize-loads gives each thread W consecutive elements instead of one
// element every blockDim.x (or grid) elements: the two questions here say
// where that hand-over could change what the kernel computes, beside the
// plan's own checks (ElementwiseLoop.cpp).
//
//===----------------------------------------------------------------------===//

#include "kopt/Analysis/ElementwiseLoop.h"

#include "clang/AST/Attr.h"
#include "clang/AST/ParentMap.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/STLExtras.h"

#include <set>

using namespace clang;
using namespace llvm;

namespace kopt {

std::optional<Refusal>
untrackedStore(const Stmt *Body,
               function_ref<bool(const ArraySubscriptExpr *)> Known,
               ASTContext &AC) {
  std::optional<Refusal> Found;
  forEachSubStmt(Body, [&](const Stmt *S) {
    std::optional<WriteOf> W = Found ? std::nullopt : writeOf(S);
    if (!W || localWriteTarget(W->Target))
      return;
    const Expr *T = W->Target->IgnoreParenImpCasts();
    for (const auto *M = dyn_cast<MemberExpr>(T); M && !M->isArrow();
         M = dyn_cast<MemberExpr>(T))
      T = M->getBase()->IgnoreParenImpCasts();
    if (const auto *Sub = dyn_cast<ArraySubscriptExpr>(T)) {
      if (Known(Sub))
        return;
      const Expr *Root = Sub;
      while (const auto *In = dyn_cast<ArraySubscriptExpr>(Root)) {
        Root = In->getBase()->IgnoreParenImpCasts();
        if (Root->getType()->isPointerType())
          break;
      }
      if (const VarDecl *V = referencedVar(Root);
          V && V->hasAttr<CUDASharedAttr>() && !V->getType()->isPointerType())
        return;
    }
    Found = Refusal{"the store to '" +
                        oneLine(sourceText(W->Target->getSourceRange(), AC)) +
                        "' goes through a pointer that is neither a kernel "
                        "parameter nor a local fixed to one, so kopt cannot "
                        "tell which elements it may overlap",
                    lineCol(S->getBeginLoc(), AC)};
  });
  return Found;
}

std::optional<Refusal>
readBackElsewhere(const KernelInfo &K, const ElementRegion &R, ASTContext &AC) {
  const SourceManager &SM = AC.getSourceManager();
  auto Inside = [&](const Stmt *S) {
    return !SM.isBeforeInTranslationUnit(S->getBeginLoc(),
                                         R.Body->getBeginLoc()) &&
           !SM.isBeforeInTranslationUnit(R.Body->getEndLoc(), S->getEndLoc());
  };
  ParentMap Parents(const_cast<Stmt *>(K.Decl->getBody()));
  std::set<const Stmt *> LoopUp;
  for (const Stmt *P = R.Body; P; P = Parents.getParent(const_cast<Stmt *>(P)))
    LoopUp.insert(P);
  // O never runs in the same pass as the loop: the two lie in the two
  // branches of one if.
  auto Exclusive = [&](const Stmt *O) {
    const Stmt *Child = O;
    const Stmt *P = Parents.getParent(const_cast<Stmt *>(O));
    while (P && !LoopUp.count(P)) {
      Child = P;
      P = Parents.getParent(const_cast<Stmt *>(P));
    }
    const auto *If = dyn_cast_or_null<IfStmt>(P);
    if (!If || !If->getElse())
      return false;
    const Stmt *Other = If->getThen() == Child ? If->getElse() : If->getThen();
    return (Child == If->getThen() || Child == If->getElse()) &&
           LoopUp.count(Other);
  };
  // `&p[off]` initializing a local pointer names an address; the local's
  // own accesses are recorded as such.
  auto PointerInit = [&](const AccessInfo &A) {
    const auto *DS = dyn_cast_or_null<DeclStmt>(Parents.getParent(
        const_cast<Stmt *>(Parents.getParentIgnoreParenImpCasts(
            const_cast<ArraySubscriptExpr *>(A.Expr)))));
    return A.K == AccessInfo::AddressOf && DS;
  };
  std::vector<const AccessInfo *> In, Out;
  for (const AccessInfo &A :
       concat<const AccessInfo>(K.Accesses, K.LocalPointerAccesses))
    if (Inside(A.Expr))
      In.push_back(&A);
    else if (!PointerInit(A) && !Exclusive(A.Expr))
      Out.push_back(&A);
  if (In.empty())
    return std::nullopt;
  unsigned Phase = In.front()->Phase;
  for (const AccessInfo *O : Out) {
    if (R.PerBlock && O->Phase != Phase)
      continue;
    bool OWrites = O->writes() || O->K == AccessInfo::AddressOf;
    for (const AccessInfo *I : In) {
      bool IWrites = I->writes() || I->K == AccessInfo::AddressOf;
      if ((!OWrites && !IWrites) || O->BaseDecl != I->BaseDecl)
        continue;
      return Refusal{"'" + O->Base + "[" + O->Index + "]' at " + str(O->Loc) +
                         (OWrites ? " writes" : " reads") +
                         " memory the loop " + (IWrites ? "writes" : "reads") +
                         " ('" + I->Base + "[" + I->Index +
                         "]') with no "
                         "barrier between: the element was the same "
                         "thread's in the original and would be another "
                         "thread's",
                     lineCol(R.Body->getBeginLoc(), AC)};
    }
  }
  return std::nullopt;
}

} // namespace kopt
