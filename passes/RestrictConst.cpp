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
//   that arrive from a caller (a launcher's parameters) prove nothing here.
//   Either way the kernel may reach memory only through pointers based on
//   its pointer parameters (HiddenPointers.h): no pointer tables or structs
//   holding pointers among its parameters, no global pointer variables.
//
// Versioning (version=true): where the launches prove nothing, the kernel
// gets a __restrict__ copy that each launch runs only when the driver says
// its pointers lie in distinct allocations, checked at run time
// (RestrictVersion.h). Each launch must be a statement whose pointer
// arguments have no side effects (they are evaluated twice).
//
// A template kernel is decided in each instantiation the file launches
// (runOnInstances), with its types: its copy starts at `template`, and a
// launch with explicit arguments runs `k_kopt_restrict<float>`.
//
//===----------------------------------------------------------------------===//

#include "FileHelper.h"
#include "Options.h"
#include "RestrictVersion.h"
#include "SourceLayout.h"
#include "kopt/Analysis/HiddenPointers.h"
#include "kopt/Pass/Pass.h"

#include "clang/AST/Attr.h"
#include "clang/AST/ParentMap.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/TypeLoc.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"

#include <map>
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

/// Why `__restrict__ ` cannot be written before P's name; empty if it can.
std::string whyNotRestrictable(const ParmVarDecl *P) {
  if (P->getName().empty() || P->getLocation().isMacroID())
    return "a pointer parameter has no name or is written in a macro";
  // `float x[]` decays to a pointer, but `float __restrict__ x[]` would
  // qualify the element.
  if (P->getTypeSourceInfo()
          ->getTypeLoc()
          .getUnqualifiedLoc()
          .getAs<ArrayTypeLoc>())
    return "'" + P->getName().str() + "' is declared as an array";
  return "";
}

/// What restrict-const remembers from kernel to kernel of a file: whether
/// the run-time check is there already.
struct RestrictConstState {
  FileHelper Helper{DistinctAllocationsHelperName};
};

class RestrictConstPass
    : public KernelPass<RestrictConstOptions, RestrictConstState> {
  bool rewritesInstances() const override { return true; }
  void beginFile(PassContext &Ctx) override {
    State.Helper.beginFile(Ctx.hostContext());
  }

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
    std::vector<const ParmVarDecl *> Consted;
    if (options().Const)
      for (const ParamInfo *P : Pointers)
        if (addConst(Ctx, K, *P, AC))
          Consted.push_back(P->Decl);
    if (options().Restrict)
      addRestrict(Ctx, K, Pointers, Consted, AC);
  }

  /// True when every reference to P in the kernel is a load `p[i]`: the
  /// kernel neither writes through it nor hands it on.
  static bool onlyLoaded(const KernelInfo &K, const ParmVarDecl *P) {
    size_t Reads = 0;
    for (const AccessInfo &A : K.Accesses)
      if (A.BaseDecl == P) {
        if (A.K != AccessInfo::Load)
          return false;
        ++Reads;
      }
    return countReferences(K.Decl->getBody(), P) == Reads;
  }

  /// True when const was added to P.
  bool addConst(PassContext &Ctx, const KernelInfo &K, const ParamInfo &P,
                ASTContext &AC) {
    if (P.PointeeConst)
      return false;
    LineCol Loc = lineCol(P.Decl->getLocation(), AC);
    for (const AccessInfo &A : K.Accesses)
      if (A.BaseDecl == P.Decl && A.K != AccessInfo::Load)
        return false; // written: nothing to say
    if (!onlyLoaded(K, P.Decl)) {
      Ctx.missed(K.Name, Loc,
                 "'" + P.Name +
                     "' is used other than by reads 'p[i]': kopt cannot "
                     "prove the kernel never writes through it");
      return false;
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
      return false;
    }
    if (Error E = Ctx.edits().insertBefore(PTL.getPointeeLoc().getBeginLoc(),
                                           "const ", AC)) {
      Ctx.missed(K.Name, Loc, "const not added: " + toString(std::move(E)));
      return false;
    }
    Ctx.applied(K.Name, Loc,
                "added const to '" + P.Name + "': the kernel only reads it");
    return true;
  }

  /// Why launch L does not prove the pointers distinct; empty if it does.
  static std::string whyMayOverlap(const LaunchSite &L,
                                   const std::vector<const ParamInfo *> &Ptrs,
                                   ASTContext &HC) {
    std::set<const VarDecl *> Seen;
    const Stmt *Body = L.CallerDecl ? L.CallerDecl->getBody() : nullptr;
    for (const ParamInfo *P : Ptrs) {
      unsigned Index = P->Decl->getFunctionScopeIndex();
      if (Index >= L.Call->getNumArgs())
        return "the launch at " + str(L.Loc) + " has too few arguments";
      const VarDecl *V = referencedVar(L.Call->getArg(Index));
      if (!isOwnAllocation(V, Body) || !Seen.insert(V).second)
        return "the launch at " + str(L.Loc) + " passes '" +
               sourceText(L.Call->getArg(Index)->getSourceRange(), HC) +
               "' for '" + P->Name +
               "', which is not a distinct buffer cudaMalloc'd there, so the "
               "buffers may overlap";
    }
    return "";
  }

  void addRestrict(PassContext &Ctx, const KernelInfo &K,
                   const std::vector<const ParamInfo *> &Pointers,
                   const std::vector<const ParmVarDecl *> &Consted,
                   ASTContext &AC) {
    if (Pointers.size() < 2 ||
        all_of(Pointers, [](const ParamInfo *P) { return P->Restrict; }))
      return;
    // Distinct allocations say nothing of pointers the kernel finds
    // elsewhere (a pointer table, a struct, a global).
    if (std::optional<std::string> Why = hiddenPointer(K.Decl, AC)) {
      Ctx.missed(K.Name, K.Loc, "__restrict__ not added: " + *Why);
      return;
    }
    std::vector<const LaunchSite *> Launches = Ctx.info().launchesOf(K.Name);
    if (Launches.empty()) {
      Ctx.missed(K.Name, K.Loc,
                 "__restrict__ not added: no launch site of '" + K.Name +
                     "' in this file shows its buffers");
      return;
    }
    for (const LaunchSite *L : Launches)
      if (std::string Why = whyMayOverlap(*L, Pointers, Ctx.hostContext());
          !Why.empty()) {
        if (options().Version)
          return version(Ctx, K, Pointers, Consted, Launches, Why);
        Ctx.missed(K.Name, K.Loc, "__restrict__ not added: " + Why);
        return;
      }
    for (const ParamInfo *P : Pointers)
      if (std::string Why = whyNotRestrictable(P->Decl);
          !P->Restrict && !Why.empty()) {
        Ctx.missed(K.Name, K.Loc, "__restrict__ not added: " + Why);
        return;
      }
    std::vector<std::string> Names;
    for (const ParamInfo *P : Pointers) {
      if (P->Restrict)
        continue;
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

  /// Why launch L cannot choose between the copy and the original.
  static std::string whyNotVersioned(const LaunchSite &L,
                                     const std::vector<const ParamInfo *> &Ptrs,
                                     ASTContext &HC) {
    std::string At = "the launch at " + str(L.Loc);
    if (std::string Why = whyNotReplaceableLaunch(L, HC); !Why.empty())
      return At + " " + Why;
    std::map<const VarDecl *, const ParamInfo *> Passed;
    for (const ParamInfo *P : Ptrs) {
      unsigned Index = P->Decl->getFunctionScopeIndex();
      if (Index >= L.Call->getNumArgs())
        return At + " has too few arguments";
      const Expr *Arg = L.Call->getArg(Index);
      std::string Text = "'" + sourceText(Arg->getSourceRange(), HC) + "'";
      if (hasSideEffects(Arg, HC))
        return At + " passes " + Text + " for '" + P->Name +
               "', which has side effects (it would be evaluated twice)";
      // The check would always fail there when either parameter is
      // written (the copy would never run); when both are only read it
      // could pass, but such launches are rare: refused all the same.
      if (const VarDecl *V = referencedVar(Arg)) {
        auto [It, New] = Passed.emplace(V, P);
        if (!New)
          return At + " passes " + Text + " for both '" + It->second->Name +
                 "' and '" + P->Name + "'";
      }
    }
    return "";
  }

  /// Adds the __restrict__ copy and makes every launch choose it at run
  /// time (see the file comment); Why says why the launches prove nothing.
  void version(PassContext &Ctx, const KernelInfo &K,
               const std::vector<const ParamInfo *> &Pointers,
               const std::vector<const ParmVarDecl *> &Consted,
               const std::vector<const LaunchSite *> &Launches,
               const std::string &Why) {
    ASTContext &AC = Ctx.deviceContext();
    ASTContext &HC = Ctx.hostContext();
    std::string Copy = K.Name + RestrictCopySuffix;
    auto Missed = [&](const Twine &Reason) {
      Ctx.missed(K.Name, K.Loc,
                 "__restrict__ not added: " + Why +
                     "; no run-time version: " + Reason);
    };
    if (StringRef(K.Name).contains("_kopt_"))
      return Missed("'" + K.Name + "' is a copy kopt made");
    if (Ctx.info().kernel(Copy))
      return Missed("'" + Copy + "' exists already");
    if (!ast_matchers::match(
             ast_matchers::findAll(ast_matchers::cudaKernelCallExpr()),
             *K.Decl->getBody(), AC)
             .empty())
      return Missed("it launches kernels itself (its copy would be a new "
                    "launcher)");
    std::vector<const ParmVarDecl *> Restrict;
    for (const ParamInfo *P : Pointers) {
      if (P->Restrict)
        continue;
      if (std::string Why = whyNotRestrictable(P->Decl); !Why.empty())
        return Missed(Why);
      Restrict.push_back(P->Decl);
    }
    for (const LaunchSite *L : Launches)
      if (std::string No = whyNotVersioned(*L, Pointers, HC); !No.empty())
        return Missed(No);
    std::optional<std::string> Text =
        restrictCopy(K.Decl, Restrict, Consted, AC, Ctx.source().Code);
    if (!Text)
      return Missed("the kernel is written in a macro");
    EditSet Edits(Ctx.source().Path);
    SourceLocation End =
        AC.getSourceManager().getExpansionLoc(K.Decl->getBody()->getEndLoc());
    if (Error E = Edits.insertAfterToken(End, "\n\n" + *Text, AC))
      return Missed(toString(std::move(E)));
    bool AddsHelper = false;
    for (const LaunchSite *L : Launches) {
      std::vector<CheckedPointer> Checked;
      for (const ParamInfo *P : Pointers) {
        unsigned Index = P->Decl->getFunctionScopeIndex();
        if (!L->Call->getArg(Index)
                 ->IgnoreParenImpCasts()
                 ->isNullPointerConstant(HC, Expr::NPC_ValueDependentIsNotNull))
          Checked.push_back({Index, !onlyLoaded(K, P->Decl)});
      }
      AddsHelper |= Checked.size() >= 2;
      std::optional<std::string> Launch = versionedLaunch(L->Call, Checked, HC);
      auto Off = stmtOffsets(L->Call, HC);
      if (!Launch || !Off)
        return Missed("the launch at " + str(L->Loc) +
                      " is written in a macro");
      if (Error E =
              Edits.replaceChars(Off->first, Off->second - Off->first, *Launch))
        return Missed(toString(std::move(E)));
    }
    Expected<bool> Added =
        AddsHelper ? State.Helper.addBefore(
                         Ctx.info(), distinctAllocationsHelper(), Edits, HC)
                   : Expected<bool>(false);
    if (!Added)
      return Missed(toString(Added.takeError()));
    if (Error E = Ctx.edits().merge(Edits))
      return Missed(toString(std::move(E)));
    State.Helper.committed(*Added);
    std::vector<std::string> Names;
    for (const ParmVarDecl *P : Restrict)
      Names.push_back(P->getName().str());
    Ctx.applied(K.Name, K.Loc,
                "added __restrict__ to '" + join(Names, "', '") +
                    "' in a copy '" + Copy + "' that " +
                    Twine(Launches.size()) + " launch" +
                    (Launches.size() > 1 ? "es run" : " runs") +
                    " when the driver says the pointers lie in distinct "
                    "allocations, the original otherwise (" +
                    Why + ")");
  }
};

} // namespace

std::unique_ptr<Pass> createRestrictConstPass() {
  return std::make_unique<RestrictConstPass>();
}

} // namespace kopt
