//===- KernelInfo.cpp - Facts about the kernels of one source -------------===//

#include "kopt/Analysis/KernelInfo.h"

#include "clang/AST/Attr.h"
#include "clang/AST/ParentMap.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"

#include <set>
#include <tuple>

using namespace clang;
using namespace llvm;

namespace kopt {

StringRef LoopInfo::kindName(Kind K) {
  switch (K) {
  case GridStride:
    return "grid-stride";
  case BlockStride:
    return "block-stride";
  case Counted:
    return "counted";
  case Other:
    return "other";
  }
  llvm_unreachable("bad loop kind");
}

StringRef AccessInfo::kindName(Kind K) {
  switch (K) {
  case Load:
    return "load";
  case Store:
    return "store";
  case LoadStore:
    return "load-store";
  case AddressOf:
    return "address-of";
  }
  llvm_unreachable("bad access kind");
}

const ParamInfo *KernelInfo::param(StringRef N) const {
  for (const ParamInfo &P : Params)
    if (P.Name == N)
      return &P;
  return nullptr;
}

const KernelInfo *ProgramInfo::kernel(StringRef Name) const {
  for (const KernelInfo &K : Kernels)
    if (K.Name == Name)
      return &K;
  return nullptr;
}

std::vector<const LaunchSite *>
ProgramInfo::launchesOf(StringRef Kernel) const {
  std::vector<const LaunchSite *> Result;
  for (const LaunchSite &L : LaunchSites)
    if (L.Kernel == Kernel)
      Result.push_back(&L);
  return Result;
}

bool ProgramInfo::hasUnknownLaunches(StringRef Kernel) const {
  return is_contained(KernelsWithUnknownLaunches, Kernel);
}

std::optional<int64_t> ProgramInfo::knownBlockSize(const KernelInfo &K) const {
  if (K.LaunchBoundsMaxThreads)
    return K.LaunchBoundsMaxThreads;
  if (hasUnknownLaunches(K.Name))
    return std::nullopt;
  std::optional<int64_t> Size;
  for (const LaunchSite *L : launchesOf(K.Name)) {
    std::optional<int64_t> T = L->Block.Value.total();
    if (!T || (Size && *Size != *T))
      return std::nullopt;
    Size = T;
  }
  return Size;
}

namespace {

std::string typeName(QualType T, const ASTContext &Ctx) {
  PrintingPolicy P(Ctx.getLangOpts());
  P.SuppressTagKeyword = true;
  return T.getAsString(P);
}

bool isMainFileDecl(const Decl *D, const SourceManager &SM) {
  return SM.isInMainFile(SM.getExpansionLoc(D->getLocation()));
}

/// Walks one kernel body in source order.
class KernelBodyVisitor : public RecursiveASTVisitor<KernelBodyVisitor> {
public:
  KernelBodyVisitor(KernelInfo &K, const FunctionDecl *F, ASTContext &Ctx)
      : K(K), F(F), Ctx(Ctx), Parents(F->getBody()) {}

  bool VisitCallExpr(CallExpr *C) {
    if (isBarrierCall(C)) {
      BarrierInfo B;
      B.Loc = lineCol(C->getBeginLoc(), Ctx);
      B.Callee = C->getDirectCallee()->getNameAsString();
      B.PhaseBefore = Phase;
      K.Barriers.push_back(B);
      ++Phase;
    }
    return true;
  }

  bool VisitArraySubscriptExpr(ArraySubscriptExpr *E) {
    const auto *Ref =
        dyn_cast<DeclRefExpr>(E->getBase()->IgnoreParenImpCasts());
    const auto *P = Ref ? dyn_cast<ParmVarDecl>(Ref->getDecl()) : nullptr;
    if (!P || !P->getType()->isPointerType())
      return true;
    AccessInfo A;
    A.K = accessKind(E);
    A.Loc = lineCol(E->getBeginLoc(), Ctx);
    A.Base = P->getNameAsString();
    A.BaseDecl = P;
    A.ElementType = typeName(E->getType().getUnqualifiedType(), Ctx);
    A.Index = sourceText(E->getIdx()->getSourceRange(), Ctx);
    A.Class = classifyIndex(E->getIdx(), F, Ctx);
    A.Phase = Phase;
    A.Expr = E;
    K.Accesses.push_back(A);
    return true;
  }

  bool VisitForStmt(ForStmt *For) {
    LoopInfo L;
    L.For = For;
    L.Loc = lineCol(For->getBeginLoc(), Ctx);
    L.Phase = Phase;
    if (std::optional<CountedLoop> C = matchCountedLoop(For)) {
      L.Var = C->Var->getNameAsString();
      L.Bound = sourceText(C->Bound->getSourceRange(), Ctx);
      const Stmt *Body = F->getBody();
      if (isGlobalThreadIndex(C->Init, Body) && C->Step &&
          isGridStride(C->Step, Body))
        L.K = LoopInfo::GridStride;
      else if (isBlockStart(C->Init) && C->Step &&
               isBuiltin(C->Step, BuiltinVar::BlockDim))
        L.K = LoopInfo::BlockStride;
      else
        L.K = LoopInfo::Counted;
      std::optional<int64_t> Lo = evaluateInt(C->Init, Ctx, Body);
      std::optional<int64_t> Hi = evaluateInt(C->Bound, Ctx, Body);
      std::optional<int64_t> Step =
          C->Step ? evaluateInt(C->Step, Ctx, Body) : std::optional<int64_t>(1);
      if (Lo && Hi && Step && *Step > 0) {
        int64_t End = *Hi + (C->Inclusive ? 1 : 0);
        L.TripCount = End > *Lo ? (End - *Lo + *Step - 1) / *Step : 0;
      }
    }
    K.Loops.push_back(L);
    return true;
  }

  bool VisitWhileStmt(WhileStmt *W) { return addOtherLoop(W); }
  bool VisitDoStmt(DoStmt *D) { return addOtherLoop(D); }

  bool VisitVarDecl(VarDecl *V) {
    if (!V->hasAttr<CUDASharedAttr>())
      return true;
    SharedArrayInfo S;
    S.Name = V->getNameAsString();
    S.Type = typeName(V->getType(), Ctx);
    S.Loc = lineCol(V->getLocation(), Ctx);
    QualType T = V->getType();
    if (isa<IncompleteArrayType>(
            T.getTypePtr()->getUnqualifiedDesugaredType())) {
      S.Dynamic = true;
    } else {
      int64_t N = 1;
      while (const auto *CA = Ctx.getAsConstantArrayType(T)) {
        N *= CA->getSize().getSExtValue();
        T = CA->getElementType();
      }
      S.Elements = N;
    }
    K.SharedArrays.push_back(S);
    return true;
  }

private:
  bool addOtherLoop(Stmt *S) {
    LoopInfo L;
    L.K = LoopInfo::Other;
    L.Loc = lineCol(S->getBeginLoc(), Ctx);
    L.Phase = Phase;
    K.Loops.push_back(L);
    return true;
  }

  /// `threadIdx.x` or `threadIdx.x + <uniform>`.
  bool isBlockStart(const Expr *Init) {
    // `const int tid = threadIdx.x; for (int j = tid; ...)` is common.
    const Expr *E = stripCasts(followLocalInit(stripCasts(Init), F->getBody()));
    if (isBuiltin(E, BuiltinVar::ThreadIdx))
      return true;
    const auto *Add = dyn_cast<BinaryOperator>(E);
    if (!Add || Add->getOpcode() != BO_Add)
      return false;
    for (auto [Tid, Rest] : {std::pair(Add->getLHS(), Add->getRHS()),
                             std::pair(Add->getRHS(), Add->getLHS())})
      if (isBuiltin(Tid, BuiltinVar::ThreadIdx) &&
          classifyIndex(Rest, F, Ctx).K == IndexClass::Uniform)
        return true;
    return false;
  }

  AccessInfo::Kind accessKind(const Expr *E) {
    const Stmt *Child = E;
    const Stmt *P =
        Parents.getParentIgnoreParenImpCasts(const_cast<Stmt *>(Child));
    // p[i].x = ... writes part of the element.
    while (P && isa<MemberExpr>(P)) {
      Child = P;
      P = Parents.getParentIgnoreParenImpCasts(const_cast<Stmt *>(P));
    }
    if (std::optional<WriteOf> W = writeOf(P))
      if (W->Target->IgnoreParenImpCasts() == Child)
        return W->Plain ? AccessInfo::Store : AccessInfo::LoadStore;
    if (const auto *U = dyn_cast_or_null<UnaryOperator>(P))
      if (U->getOpcode() == UO_AddrOf)
        return AccessInfo::AddressOf;
    return AccessInfo::Load;
  }

  KernelInfo &K;
  const FunctionDecl *F;
  ASTContext &Ctx;
  ParentMap Parents;
  unsigned Phase = 0;
};

void findReReads(KernelInfo &K) {
  DenseSet<const ParmVarDecl *> Written;
  for (const AccessInfo &A : K.Accesses)
    if (A.writes() || A.K == AccessInfo::AddressOf)
      Written.insert(A.BaseDecl);
  std::set<std::tuple<std::string, std::string, unsigned, unsigned>> Seen;
  for (size_t I = 0; I < K.Accesses.size(); ++I) {
    const AccessInfo &First = K.Accesses[I];
    if (!First.reads() || Written.contains(First.BaseDecl))
      continue;
    for (size_t J = I + 1; J < K.Accesses.size(); ++J) {
      const AccessInfo &Again = K.Accesses[J];
      if (!Again.reads() || Again.BaseDecl != First.BaseDecl ||
          Again.Phase <= First.Phase ||
          withoutSpaces(Again.Index) != withoutSpaces(First.Index))
        continue;
      if (!Seen.insert({First.Base, withoutSpaces(First.Index), First.Phase,
                        Again.Phase})
               .second)
        continue;
      K.ReReads.push_back({First.Base, First.Index, First.Loc, Again.Loc,
                           First.Phase, Again.Phase});
    }
  }
}

KernelInfo analyzeKernel(const FunctionDecl *FD, bool IsTemplate,
                         ASTContext &Ctx) {
  KernelInfo K;
  K.Name = FD->getQualifiedNameAsString();
  K.Loc = lineCol(FD->getLocation(), Ctx);
  K.IsTemplate = IsTemplate;
  K.Decl = FD;
  for (const ParmVarDecl *P : FD->parameters()) {
    ParamInfo PI;
    PI.Name = P->getNameAsString();
    PI.Type = typeName(P->getType(), Ctx);
    PI.Decl = P;
    if (P->getType()->isPointerType()) {
      PI.IsPointer = true;
      QualType Pointee = P->getType()->getPointeeType();
      PI.PointeeConst = Pointee.isConstQualified();
      PI.PointeeType = typeName(Pointee.getUnqualifiedType(), Ctx);
      PI.Restrict = P->getType().isRestrictQualified();
    }
    K.Params.push_back(PI);
  }
  for (const Attr *A : FD->attrs()) {
    if (A->isImplicit())
      continue;
    if (const auto *LB = dyn_cast<CUDALaunchBoundsAttr>(A)) {
      K.LaunchBoundsMaxThreads = evaluateInt(LB->getMaxThreads(), Ctx, nullptr);
      if (LB->getMinBlocks())
        K.LaunchBoundsMinBlocks = evaluateInt(LB->getMinBlocks(), Ctx, nullptr);
      K.Attributes.push_back("launch_bounds");
    } else {
      K.Attributes.push_back(A->getSpelling());
    }
  }
  if (FD->getBody()) {
    KernelBodyVisitor V(K, FD, Ctx);
    V.TraverseStmt(FD->getBody());
    K.NumPhases = K.Barriers.size() + 1;
    findReReads(K);
  }
  return K;
}

/// Finds kernel definitions of the main file in the device AST.
class KernelFinder : public RecursiveASTVisitor<KernelFinder> {
public:
  explicit KernelFinder(ASTContext &Ctx) : Ctx(Ctx) {}
  bool VisitFunctionDecl(FunctionDecl *FD) {
    if (!FD->hasAttr<CUDAGlobalAttr>() || !FD->doesThisDeclarationHaveABody() ||
        !isMainFileDecl(FD, Ctx.getSourceManager()))
      return true;
    if (FD->isTemplateInstantiation())
      return true;
    Kernels.push_back(
        analyzeKernel(FD, FD->getDescribedFunctionTemplate() != nullptr, Ctx));
    return true;
  }
  ASTContext &Ctx;
  std::vector<KernelInfo> Kernels;
};

LaunchDim launchDim(const Expr *Arg, ASTContext &Ctx, const Stmt *Scope) {
  LaunchDim D;
  const Expr *User = userWrittenLaunchArg(Arg);
  if (!User)
    return D;
  D.Expr = User;
  D.Text = sourceText(User->getSourceRange(), Ctx);
  D.IsDim3 = isDim3(User->getType());
  if (Arg->getType()->isIntegerType() && !D.IsDim3) {
    D.Value.X = evaluateInt(User, Ctx, Scope);
  } else {
    D.Value = evaluateDim(User, Ctx, Scope);
  }
  if (!D.Value.total())
    D.WhyUnknown = whyNotConstant(User, Ctx, Scope);
  return D;
}

/// Finds launch sites, and kernel references that are not launches, in the
/// host AST.
class LaunchFinder : public RecursiveASTVisitor<LaunchFinder> {
public:
  explicit LaunchFinder(ASTContext &Ctx) : Ctx(Ctx) {}

  bool TraverseFunctionDecl(FunctionDecl *FD) {
    const FunctionDecl *Saved = Current;
    Current = FD;
    bool R = RecursiveASTVisitor::TraverseFunctionDecl(FD);
    Current = Saved;
    return R;
  }
  bool TraverseCXXMethodDecl(CXXMethodDecl *MD) {
    const FunctionDecl *Saved = Current;
    Current = MD;
    bool R = RecursiveASTVisitor::TraverseCXXMethodDecl(MD);
    Current = Saved;
    return R;
  }

  bool VisitCUDAKernelCallExpr(CUDAKernelCallExpr *Call) {
    const SourceManager &SM = Ctx.getSourceManager();
    if (!SM.isInMainFile(SM.getExpansionLoc(Call->getBeginLoc())))
      return true;
    const FunctionDecl *Callee = Call->getDirectCallee();
    if (!Callee)
      return true;
    if (const auto *Ref =
            dyn_cast<DeclRefExpr>(Call->getCallee()->IgnoreParenImpCasts()))
      LaunchRefs.insert(Ref);
    LaunchSite L;
    L.Kernel = Callee->getQualifiedNameAsString();
    L.Caller = Current ? Current->getQualifiedNameAsString() : "";
    L.CallerDecl = Current;
    L.Loc = lineCol(Call->getBeginLoc(), Ctx);
    L.Call = Call;
    const CallExpr *Config = Call->getConfig();
    const Stmt *Scope = Current ? Current->getBody() : nullptr;
    if (Config && Config->getNumArgs() >= 2) {
      L.Grid = launchDim(Config->getArg(0), Ctx, Scope);
      L.Block = launchDim(Config->getArg(1), Ctx, Scope);
      if (Config->getNumArgs() > 2)
        L.SharedBytes = launchDim(Config->getArg(2), Ctx, Scope);
      if (Config->getNumArgs() > 3) {
        const Expr *S = userWrittenLaunchArg(Config->getArg(3));
        if (S) {
          L.Stream.Expr = S;
          L.Stream.Text = sourceText(S->getSourceRange(), Ctx);
        }
      }
    }
    Sites.push_back(L);
    return true;
  }

  bool VisitDeclRefExpr(DeclRefExpr *Ref) {
    const auto *FD = dyn_cast<FunctionDecl>(Ref->getDecl());
    if (FD && FD->hasAttr<CUDAGlobalAttr>() && !LaunchRefs.contains(Ref))
      OtherRefs.insert(FD->getQualifiedNameAsString());
    return true;
  }

  ASTContext &Ctx;
  const FunctionDecl *Current = nullptr;
  std::vector<LaunchSite> Sites;
  DenseSet<const DeclRefExpr *> LaunchRefs;
  std::set<std::string> OtherRefs;
};

} // namespace

ProgramInfo analyzeProgram(ParsedSource &Source, StringRef GpuArch) {
  ProgramInfo Info;
  Info.File = Source.Path;
  Info.GpuArch = GpuArch.str();
  ASTContext &DeviceCtx = Source.Device->getASTContext();
  KernelFinder KF(DeviceCtx);
  KF.TraverseDecl(DeviceCtx.getTranslationUnitDecl());
  Info.Kernels = std::move(KF.Kernels);

  ASTContext &HostCtx = Source.Host->getASTContext();
  LaunchFinder LF(HostCtx);
  LF.TraverseDecl(HostCtx.getTranslationUnitDecl());
  Info.LaunchSites = std::move(LF.Sites);
  Info.KernelsWithUnknownLaunches.assign(LF.OtherRefs.begin(),
                                         LF.OtherRefs.end());
  return Info;
}

} // namespace kopt
