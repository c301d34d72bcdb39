//===- BodyHazards.cpp - What ties a loop body to its thread --------------===//

#include "kopt/Analysis/BodyHazards.h"
#include "kopt/Analysis/CudaAST.h"

#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMap.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/STLExtras.h"

using namespace clang;
using namespace clang::ast_matchers;

namespace kopt {

namespace {

/// CUDA's threadIdx.x & co. are property reads, PseudoObjectExprs in Clang's
/// AST; ASTMatchers has no node matcher for them.
const internal::VariadicDynCastAllOfMatcher<Stmt, PseudoObjectExpr>
    pseudoObjectExpr;

/// Does a loop (or, for a break, a switch) between S and Body catch it?
/// Parents come from Body's own tree: a template's instantiation shares
/// statements such as `break` with the template, and the context's parent
/// map may answer with the template's parent, whose loop is not in Body
/// (a break that leaves an instantiated loop was taken for one caught
/// inside it; fuzz/difftest found row-reduce splitting such a loop).
bool caughtInside(const Stmt *S, const Stmt *Body, const ParentMap &Parents,
                  bool SwitchCatches) {
  const Stmt *Child = S;
  for (unsigned Depth = 0; Child && Child != Body && Depth < 256; ++Depth) {
    const Stmt *P = Parents.getParent(Child);
    if (!P)
      return false;
    if (P != Body && (isa<ForStmt, WhileStmt, DoStmt, CXXForRangeStmt>(P) ||
                      (SwitchCatches && isa<SwitchStmt>(P))))
      return true;
    Child = P;
  }
  return false;
}

bool isWarpCollective(llvm::StringRef N) {
  for (llvm::StringRef Prefix :
       {"__shfl", "__syncwarp", "__ballot", "__any", "__all", "__activemask",
        "__match", "__reduce"})
    if (N.starts_with(Prefix))
      return true;
  return false;
}

} // namespace

std::optional<BodyHazard> firstHazard(const Stmt *Body, ASTContext &Ctx,
                                      llvm::ArrayRef<BodyHazard::Kind> Kinds,
                                      llvm::StringRef ReservedPrefix,
                                      llvm::ArrayRef<BuiltinVar> Harmless) {
  if (!Body)
    return std::nullopt;
  auto Wanted = [&](BodyHazard::Kind K) {
    return llvm::is_contained(Kinds, K);
  };
  static const char *BuiltinNames[] = {"threadIdx", "blockIdx", "blockDim",
                                       "gridDim"};
  std::optional<ParentMap> Parents; // built for the first break or continue
  auto parents = [&]() -> const ParentMap & {
    if (!Parents)
      Parents.emplace(const_cast<Stmt *>(Body));
    return *Parents;
  };
  auto Candidates =
      stmt(anyOf(returnStmt(), gotoStmt(), labelStmt(), breakStmt(),
                 continueStmt(), callExpr(), pseudoObjectExpr(), declRefExpr()))
          .bind("s");
  for (const BoundNodes &N : match(findAll(Candidates), *Body, Ctx)) {
    const auto *S = N.getNodeAs<Stmt>("s");
    BodyHazard H{BodyHazard::Return, S, ""};
    if (isa<ReturnStmt>(S)) {
      H.K = BodyHazard::Return;
    } else if (isa<GotoStmt>(S)) {
      H.K = BodyHazard::Goto;
    } else if (isa<LabelStmt>(S)) {
      H.K = BodyHazard::Label;
    } else if (isa<BreakStmt>(S)) {
      if (caughtInside(S, Body, parents(), /*SwitchCatches=*/true))
        continue;
      H.K = BodyHazard::Break;
    } else if (isa<ContinueStmt>(S)) {
      if (caughtInside(S, Body, parents(), /*SwitchCatches=*/false))
        continue;
      H.K = BodyHazard::Continue;
    } else if (const auto *C = dyn_cast<CallExpr>(S)) {
      if (isBarrierCall(C)) {
        H.K = BodyHazard::Barrier;
      } else {
        const FunctionDecl *FD = C->getDirectCallee();
        if (!FD || !FD->getIdentifier() || !isWarpCollective(FD->getName()))
          continue;
        H.K = BodyHazard::WarpCollective;
        H.Name = FD->getName().str();
      }
    } else if (const auto *PO = dyn_cast<PseudoObjectExpr>(S)) {
      std::optional<BuiltinRef> B = matchBuiltin(PO);
      if (!B || llvm::is_contained(Harmless, B->Var))
        continue;
      H.K = BodyHazard::ThreadIndex;
      H.Name = BuiltinNames[unsigned(B->Var)];
    } else if (const auto *Ref = dyn_cast<DeclRefExpr>(S)) {
      if (ReservedPrefix.empty() || !Ref->getDecl()->getIdentifier() ||
          !Ref->getDecl()->getName().starts_with(ReservedPrefix))
        continue;
      H.K = BodyHazard::ReservedName;
      H.Name = Ref->getDecl()->getNameAsString();
    } else {
      continue;
    }
    if (Wanted(H.K))
      return H;
  }
  return std::nullopt;
}

bool isReadOnlyLoad(llvm::StringRef Name) {
  return Name == "__ldg" || Name == "__ldca" || Name == "__ldcg" ||
         Name == "__ldcs" || Name == "__ldlu" || Name == "__ldcv";
}

std::optional<CallHazard> callHazard(const CallExpr *C, ASTContext &Ctx) {
  const FunctionDecl *F = C->getDirectCallee();
  std::string Name =
      F ? F->getNameAsString()
        : oneLine(sourceText(C->getCallee()->getSourceRange(), Ctx));
  if (isa<CUDAKernelCallExpr>(C))
    return CallHazard{CallHazard::Launch, Name};
  const SourceManager &SM = Ctx.getSourceManager();
  if (!F || (!F->getBuiltinID() &&
             !SM.isInSystemHeader(SM.getExpansionLoc(F->getLocation())) &&
             !(takesAndReturnsValues(F) && isPureFunction(F))))
    return CallHazard{CallHazard::Unanalyzed, Name};
  bool PointerArg = llvm::any_of(C->arguments(), [](const Expr *A) {
    return A->IgnoreParenImpCasts()->getType()->isPointerType();
  });
  llvm::StringRef N(Name);
  if ((PointerArg && !isReadOnlyLoad(N)) || C->getType()->isPointerType() ||
      N.contains("atomic") || N.contains("clock") || N.contains("printf") ||
      N.contains("trap") || N.contains("malloc") || N == "free" ||
      N.contains("nanosleep"))
    return CallHazard{CallHazard::Effects, Name};
  return std::nullopt;
}

} // namespace kopt
