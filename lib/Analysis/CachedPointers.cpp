//===- CachedPointers.cpp - Pointers whose elements may be kept ----------===//
//
// The rules are in CachedPointers.h.
//
//===----------------------------------------------------------------------===//

#include "kopt/Analysis/CachedPointers.h"
#include "kopt/Analysis/BodyHazards.h"
#include "kopt/Analysis/CudaAST.h"
#include "kopt/Analysis/LocalPointers.h"

#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <map>

using namespace clang;
using namespace clang::ast_matchers;
using namespace llvm;

namespace kopt {

namespace {

/// The row pointers of K's body fixed to P (LocalPointers.h).
std::vector<const VarDecl *> rowsOf(const ParmVarDecl *P, const KernelInfo &K,
                                    ASTContext &AC) {
  std::vector<const VarDecl *> Rows;
  // (A Stmt-rooted findAll(varDecl()) does not see the declarations of a
  // DeclStmt: match the statements.)
  for (const BoundNodes &N :
       match(findAll(declStmt().bind("d")), *K.Decl->getBody(), AC))
    for (const Decl *D : N.getNodeAs<DeclStmt>("d")->decls())
      if (const auto *V = dyn_cast<VarDecl>(D)) {
        std::optional<LocalPointer> L = matchLocalPointer(V, K.Decl);
        if (L && L->Param == P)
          Rows.push_back(V);
      }
  return Rows;
}

/// The arguments of K's calls of CUDA's load intrinsics (`__ldcs(x + c)`,
/// `__ldg(&x[i])`): pointers to const, read through.
std::vector<const Expr *> intrinsicLoadArgs(const KernelInfo &K,
                                            ASTContext &AC) {
  std::vector<const Expr *> Args;
  for (const BoundNodes &B :
       match(findAll(callExpr().bind("c")), *K.Decl->getBody(), AC)) {
    const auto *C = B.getNodeAs<CallExpr>("c");
    const FunctionDecl *F = C->getDirectCallee();
    if (F && F->getIdentifier() && isReadOnlyLoad(F->getName()) &&
        C->getNumArgs() == 1 &&
        C->getArg(0)->getType()->getPointeeType().isConstQualified())
      Args.push_back(C->getArg(0));
  }
  return Args;
}

} // namespace

// Every use of P and of the rows fixed to it must be a read `p[...]`, an
// argument of a load intrinsic or the declaration of such a row: then the
// only accesses to P's elements are reads.
std::string whyNotCacheable(const VarDecl *Base, const ParmVarDecl *P,
                            const KernelInfo &K, ASTContext &AC) {
  std::string Name = P->getNameAsString();
  const ParamInfo *PI = K.param(Name);
  std::vector<const VarDecl *> Rows = rowsOf(P, K, AC);
  std::vector<const Expr *> Loaded = intrinsicLoadArgs(K, AC);
  llvm::SmallPtrSet<const Stmt *, 16> InLoaded;
  for (const Expr *Arg : Loaded)
    forEachSubStmt(Arg, [&](const Stmt *S) { InLoaded.insert(S); });
  if (Base != P && !llvm::is_contained(Rows, Base))
    return "'" + Base->getNameAsString() +
           "' is assigned after its declaration";
  std::map<const VarDecl *, size_t> Reads;
  for (const AccessInfo &A :
       concat<const AccessInfo>(K.Accesses, K.LocalPointerAccesses)) {
    if (A.BaseDecl != P)
      continue;
    bool DeclaresRow = llvm::any_of(Rows, [&](const VarDecl *Row) {
      const auto *U =
          dyn_cast<UnaryOperator>(Row->getInit()->IgnoreParenImpCasts());
      return U && U->getOpcode() == UO_AddrOf &&
             U->getSubExpr()->IgnoreParens() == A.Expr;
    });
    if (DeclaresRow) // `&x[off]`: counted as the row's declaration below
      continue;
    if (InLoaded.count(A.Expr)) // `__ldg(&x[i])`: counted with the
      continue;                 // intrinsics' reads below
    if (A.K == AccessInfo::AddressOf)
      return "the address of an element of '" + A.Base + "' is taken (at " +
             str(A.Loc) + ")";
    if (A.K != AccessInfo::Load)
      return "'" + Name + "' is written" +
             (A.Through ? " through '" + A.Base + "'" : std::string()) +
             " (at " + str(A.Loc) + ")";
    ++Reads[A.Through ? A.Through : P];
  }
  std::vector<const VarDecl *> Pointers = {P};
  Pointers.insert(Pointers.end(), Rows.begin(), Rows.end());
  for (const VarDecl *X : Pointers) {
    size_t Explained = Reads[X];
    for (const Expr *Arg : Loaded)
      Explained += countReferences(Arg, X);
    for (const VarDecl *Row : Rows)
      if (Row != X)
        Explained += countReferences(Row->getInit(), X);
    if (countReferences(K.Decl->getBody(), X) != Explained)
      return "'" + X->getNameAsString() + "' is used other than by reading '" +
             X->getNameAsString() + "[...]'" +
             (Rows.empty() ? "" : " or declaring a row pointer");
  }
  QualType Pointee = P->getType()->getPointeeType();
  if (Pointee.isVolatileQualified() ||
      Base->getType()->getPointeeType().isVolatileQualified())
    return "'" + Base->getNameAsString() + "' points to volatile data";
  if (!PI || !PI->Restrict)
    return "'" + Name +
           "' is not __restrict__: a store through another pointer may "
           "change its elements between the loops";
  QualType T = Pointee.getUnqualifiedType();
  if (!T.isTriviallyCopyableType(AC))
    return "its element type '" + PI->PointeeType +
           "' is not trivially copyable";
  if (const CXXRecordDecl *RD = T->getAsCXXRecordDecl();
      RD && !RD->hasTrivialDefaultConstructor())
    return "its element type '" + PI->PointeeType +
           "' has no trivial default constructor";
  return "";
}

} // namespace kopt
