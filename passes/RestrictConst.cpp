//===- RestrictConst.cpp - const and __restrict__ on kernel pointers -----===//
//
// `const` on a pointee the kernel only reads documents intent and lets the
// compiler use the read-only path once the pointer is also __restrict__.
// `__restrict__` promises that no two pointers of the kernel reach the same
// memory; nvcc then keeps loads in registers across stores and may use
// ld.global.nc, and vectorize-loads can vectorize grid-stride loops.
//
// Legality:
//   const: every use of the parameter in the kernel is a read `p[i]`; the
//   kernel has one declaration (a changed redeclaration would declare a new
//   overload) and no references other than launches (a function pointer's
//   type would no longer match).
//   __restrict__: at every launch, each pointer argument is a distinct local
//   variable of the launching function whose only assignment is a
//   cudaMalloc-family call: distinct allocations cannot overlap. Pointers
//   that arrive from a caller (a launcher's parameters) prove nothing.
//
//===----------------------------------------------------------------------===//

#include "Options.h"
#include "kopt/Pass/Pass.h"

#include "clang/AST/ParentMap.h"
#include "clang/AST/TypeLoc.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"

#include <set>

using namespace clang;
using namespace llvm;

namespace kopt {

namespace {

bool isDeviceAllocation(const CallExpr *C) {
  const FunctionDecl *F = C ? C->getDirectCallee() : nullptr;
  if (!F || !F->getIdentifier())
    return false;
  return StringSwitch<bool>(F->getName())
      .Cases({"cudaMalloc", "cudaMallocAsync", "cudaMallocManaged",
              "cudaMallocPitch", "cudaMallocFromPoolAsync"},
             true)
      .Default(false);
}

/// True if V is a local of Body whose only write is being the output of a
/// cudaMalloc-family call (`cudaMalloc(&v, bytes)`, possibly cast).
bool isOwnAllocation(const VarDecl *V, const Stmt *Body) {
  if (!V || !V->hasLocalStorage() || isa<ParmVarDecl>(V) || !Body)
    return false;
  if (const Expr *Init = V->getInit())
    if (!Init->IgnoreParenImpCasts()->isNullPointerConstant(
            V->getASTContext(), Expr::NPC_ValueDependentIsNotNull))
      return false;
  ParentMap Parents(const_cast<Stmt *>(Body));
  ASTContext &Ctx = V->getASTContext();
  bool Allocated = false;
  for (const DeclRefExpr *Ref : referencesTo(Body, V, Ctx)) {
    // `cudaMalloc(&v, bytes)`: the one write allowed.
    const Stmt *P =
        Parents.getParentIgnoreParenImpCasts(const_cast<DeclRefExpr *>(Ref));
    if (const auto *U = dyn_cast_or_null<UnaryOperator>(P);
        U && U->getOpcode() == UO_AddrOf) {
      const Stmt *Use = Parents.getParent(const_cast<UnaryOperator *>(U));
      while (Use && isa<CastExpr, ParenExpr>(Use))
        Use = Parents.getParent(const_cast<Stmt *>(Use));
      const auto *Call = dyn_cast_or_null<CallExpr>(Use);
      if (isDeviceAllocation(Call) && Call->getNumArgs() > 0 &&
          stripCasts(Call->getArg(0)) == U) {
        Allocated = true;
        continue;
      }
    }
    // Any other use that may change it (an assignment, its address passed
    // elsewhere, a non-const reference) breaks the proof.
    if (isMutatedAt(Ref, Body, Ctx))
      return false;
  }
  return Allocated;
}

class RestrictConstPass : public KernelPass<RestrictConstOptions> {
  void runOnKernel(KernelContext &KC) override {
    PassContext &Ctx = KC.pass();
    const KernelInfo &K = KC.kernel();
    ASTContext &AC = Ctx.deviceContext();
    std::vector<const ParamInfo *> Pointers;
    for (const ParamInfo &P : K.Params)
      if (P.IsPointer && P.Decl)
        Pointers.push_back(&P);
    if (Pointers.empty())
      return;
    if (K.Decl->getPreviousDecl()) {
      Ctx.missed(K.Name, K.Loc,
                 "'" + K.Name +
                     "' is declared more than once: changing one declaration "
                     "would declare another kernel");
      return;
    }
    if (Ctx.info().hasUnknownLaunches(K.Name)) {
      Ctx.missed(K.Name, K.Loc,
                 "'" + K.Name +
                     "' is referenced other than by a <<<...>>> launch: a "
                     "function pointer's type would no longer match");
      return;
    }
    if (options().Const)
      for (const ParamInfo *P : Pointers)
        addConst(Ctx, K, *P, AC);
    if (options().Restrict)
      addRestrict(Ctx, K, Pointers, AC);
  }

  void addConst(PassContext &Ctx, const KernelInfo &K, const ParamInfo &P,
                ASTContext &AC) {
    if (P.PointeeConst)
      return;
    LineCol Loc = lineCol(P.Decl->getLocation(), AC);
    size_t Reads = 0;
    for (const AccessInfo &A : K.Accesses)
      if (A.BaseDecl == P.Decl) {
        if (A.K != AccessInfo::Load)
          return; // written: nothing to say
        ++Reads;
      }
    if (countReferences(K.Decl->getBody(), P.Decl) != Reads) {
      Ctx.missed(K.Name, Loc,
                 "'" + P.Name +
                     "' is used other than by reads 'p[i]': kopt cannot "
                     "prove the kernel never writes through it");
      return;
    }
    PointerTypeLoc PTL = P.Decl->getTypeSourceInfo()
                             ->getTypeLoc()
                             .getUnqualifiedLoc()
                             .getAs<PointerTypeLoc>();
    if (!PTL || P.Decl->getType()->getPointeeType()->isPointerType()) {
      Ctx.missed(K.Name, Loc,
                 "'" + P.Name +
                     "' is not spelled as 'T *' (a typedef or a pointer to "
                     "pointer): const not added");
      return;
    }
    if (Error E = Ctx.edits().insertBefore(PTL.getPointeeLoc().getBeginLoc(),
                                           "const ", AC)) {
      Ctx.missed(K.Name, Loc, "const not added: " + toString(std::move(E)));
      return;
    }
    Ctx.applied(K.Name, Loc,
                "added const to '" + P.Name + "': the kernel only reads it");
  }

  void addRestrict(PassContext &Ctx, const KernelInfo &K,
                   const std::vector<const ParamInfo *> &Pointers,
                   ASTContext &AC) {
    if (Pointers.size() < 2 ||
        all_of(Pointers, [](const ParamInfo *P) { return P->Restrict; }))
      return;
    std::vector<const LaunchSite *> Launches = Ctx.info().launchesOf(K.Name);
    if (Launches.empty()) {
      Ctx.missed(K.Name, K.Loc,
                 "__restrict__ not added: no launch site of '" + K.Name +
                     "' in this file shows its buffers");
      return;
    }
    for (const LaunchSite *L : Launches) {
      std::set<const VarDecl *> Seen;
      const Stmt *Body = L->CallerDecl ? L->CallerDecl->getBody() : nullptr;
      for (const ParamInfo *P : Pointers) {
        unsigned Index = P->Decl->getFunctionScopeIndex();
        if (Index >= L->Call->getNumArgs())
          return;
        const VarDecl *V = referencedVar(L->Call->getArg(Index));
        if (!isOwnAllocation(V, Body) || !Seen.insert(V).second) {
          Ctx.missed(K.Name, K.Loc,
                     "__restrict__ not added: the launch at " + str(L->Loc) +
                         " passes '" +
                         sourceText(L->Call->getArg(Index)->getSourceRange(),
                                    Ctx.hostContext()) +
                         "' for '" + P->Name +
                         "', which is not a distinct buffer cudaMalloc'd "
                         "there, so the buffers may overlap");
          return;
        }
      }
    }
    std::vector<std::string> Names;
    for (const ParamInfo *P : Pointers) {
      if (P->Restrict)
        continue;
      if (P->Decl->getName().empty() || P->Decl->getLocation().isMacroID()) {
        Ctx.missed(K.Name, K.Loc,
                   "__restrict__ not added: a pointer parameter has no name "
                   "or is written in a macro");
        return;
      }
      if (Error E = Ctx.edits().insertBefore(P->Decl->getLocation(),
                                             "__restrict__ ", AC)) {
        Ctx.missed(K.Name, K.Loc,
                   "__restrict__ not added: " + toString(std::move(E)));
        return;
      }
      Names.push_back(P->Name);
    }
    Ctx.applied(K.Name, K.Loc,
                "added __restrict__ to '" + join(Names, "', '") +
                    "': every launch passes distinct cudaMalloc'd buffers");
  }
};

} // namespace

std::unique_ptr<Pass> createRestrictConstPass() {
  return std::make_unique<RestrictConstPass>();
}

} // namespace kopt
