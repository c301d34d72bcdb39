//===- HiddenPointers.cpp - Memory a kernel reaches past its parameters ---===//

#include "kopt/Analysis/HiddenPointers.h"

#include "clang/AST/DeclCXX.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace clang;
using namespace clang::ast_matchers;

namespace kopt {

bool holdsPointer(QualType T, const ASTContext &Ctx) {
  T = T.getCanonicalType();
  if (T->isPointerType() || T->isReferenceType() || T->isMemberPointerType() ||
      T->isBlockPointerType() || T->isNullPtrType())
    return true;
  if (const ArrayType *A = Ctx.getAsArrayType(T))
    return holdsPointer(A->getElementType(), Ctx);
  const RecordDecl *RD = T->getAsRecordDecl();
  if (!RD)
    return false; // a builtin, an enum, a vector
  RD = RD->getDefinition();
  if (!RD)
    return true;
  if (const auto *CRD = dyn_cast<CXXRecordDecl>(RD))
    for (const CXXBaseSpecifier &B : CRD->bases())
      if (holdsPointer(B.getType(), Ctx))
        return true;
  for (const FieldDecl *F : RD->fields())
    if (holdsPointer(F->getType(), Ctx))
      return true;
  return false;
}

namespace {

/// Why Body (of a function of the main file) may reach memory through a
/// pointer that is not a parameter's; adds the main-file functions it calls
/// to Todo.
std::optional<std::string>
hiddenInBody(const Stmt *Body, ASTContext &Ctx,
             std::vector<const FunctionDecl *> &Todo) {
  for (const BoundNodes &N :
       match(findAll(declRefExpr(to(varDecl(hasGlobalStorage()).bind("v")))),
             *Body, Ctx)) {
    const auto *V = N.getNodeAs<VarDecl>("v");
    if (holdsPointer(V->getType(), Ctx))
      return "it uses '" + V->getNameAsString() +
             "', a variable of static storage that holds a pointer";
  }
  if (!match(findAll(castExpr(hasCastKind(CK_IntegralToPointer)).bind("c")),
             *Body, Ctx)
           .empty())
    return std::string("it makes a pointer from an integer");
  const SourceManager &SM = Ctx.getSourceManager();
  for (const BoundNodes &N :
       match(findAll(callExpr(callee(functionDecl().bind("f")))), *Body, Ctx)) {
    const FunctionDecl *F = N.getNodeAs<FunctionDecl>("f")->getDefinition();
    if (F && F->hasBody() &&
        SM.isInMainFile(SM.getExpansionLoc(F->getLocation())))
      Todo.push_back(F);
  }
  return std::nullopt;
}

} // namespace

std::optional<std::string> hiddenPointer(const FunctionDecl *Kernel,
                                         ASTContext &Ctx) {
  for (const ParmVarDecl *P : Kernel->parameters()) {
    QualType T = P->getType();
    bool Holds = T->isPointerType() ? holdsPointer(T->getPointeeType(), Ctx)
                                    : holdsPointer(T, Ctx);
    if (Holds)
      return "parameter '" + P->getNameAsString() + "' (" +
             T.getAsString(Ctx.getPrintingPolicy()) +
             ") holds pointers the launches' buffers say nothing about";
  }
  std::vector<const FunctionDecl *> Todo = {Kernel};
  llvm::SmallPtrSet<const FunctionDecl *, 8> Seen;
  while (!Todo.empty()) {
    const FunctionDecl *F = Todo.back();
    Todo.pop_back();
    if (!Seen.insert(F).second || !F->getBody())
      continue;
    if (std::optional<std::string> Why = hiddenInBody(F->getBody(), Ctx, Todo))
      return F == Kernel ? *Why
                         : *Why + " (in '" + F->getNameAsString() +
                               "', which it calls)";
  }
  return std::nullopt;
}

} // namespace kopt
