//===- KernelFacts.cpp - What one kernel's body does ----------------------===//
//
// Parameters, attributes, loops, global accesses, barriers and the phases
// they cut, shared arrays and re-reads of one kernel, found with Clang's
// AST matchers. A node's phase is the number of barriers written before it.
//
//===----------------------------------------------------------------------===//

#include "kopt/Analysis/KernelInfo.h"
#include "kopt/Analysis/LocalPointers.h"

#include "clang/AST/Attr.h"
#include "clang/AST/ParentMap.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/DenseSet.h"

#include <map>
#include <set>

using namespace clang;
using namespace clang::ast_matchers;
using namespace llvm;

namespace kopt {

namespace {

std::string typeName(QualType T, const ASTContext &Ctx) {
  PrintingPolicy P(Ctx.getLangOpts());
  P.SuppressTagKeyword = true;
  return T.getAsString(P);
}

/// Every node of Body bound to "n" by Matcher, in traversal (source) order.
template <typename NodeT, typename MatcherT>
std::vector<const NodeT *> findAllIn(const Stmt *Body, ASTContext &Ctx,
                                     MatcherT Matcher) {
  std::vector<const NodeT *> Nodes;
  for (const BoundNodes &N : match(findAll(Matcher), *Body, Ctx))
    if (const auto *X = N.getNodeAs<NodeT>("n"))
      Nodes.push_back(X);
  return Nodes;
}

class KernelAnalysis {
public:
  KernelAnalysis(KernelInfo &K, const FunctionDecl *F, ASTContext &Ctx)
      : K(K), F(F), Ctx(Ctx), SM(Ctx.getSourceManager()),
        Parents(F->getBody()) {}

  void run() {
    const Stmt *Body = F->getBody();
    for (const CallExpr *C : findAllIn<CallExpr>(
             Body, Ctx, callExpr(callee(functionDecl())).bind("n"))) {
      if (!isBarrierCall(C) && !reachesBarrier(C->getDirectCallee()))
        continue;
      BarrierInfo B;
      B.Loc = lineCol(C->getBeginLoc(), Ctx);
      B.Callee = C->getDirectCallee()->getNameAsString();
      B.PhaseBefore = K.Barriers.size();
      K.Barriers.push_back(B);
      BarrierLocs.push_back(C->getBeginLoc());
    }
    K.NumPhases = K.Barriers.size() + 1;
    for (const ArraySubscriptExpr *E : findAllIn<ArraySubscriptExpr>(
             Body, Ctx,
             arraySubscriptExpr(
                 hasBase(ignoringParenImpCasts(declRefExpr(to(
                     parmVarDecl(hasType(hasCanonicalType(pointerType()))))))))
                 .bind("n")))
      addAccess(E);
    for (const ArraySubscriptExpr *E : findAllIn<ArraySubscriptExpr>(
             Body, Ctx,
             arraySubscriptExpr(hasBase(ignoringParenImpCasts(declRefExpr(
                                    to(varDecl(unless(parmVarDecl())))))))
                 .bind("n")))
      if (std::optional<LocalPointer> L = matchLocalPointerAt(
              referencedVar(E->getBase()->IgnoreParenImpCasts()), E, F))
        addAccess(E, L->Param, L->Var);
    for (const Stmt *S : findAllIn<Stmt>(
             Body, Ctx,
             stmt(anyOf(forStmt(), whileStmt(), doStmt())).bind("n")))
      addLoop(S);
    // (A Stmt-rooted findAll(varDecl()) does not see the declarations of a
    // DeclStmt: match the statements.)
    for (const DeclStmt *DS :
         findAllIn<DeclStmt>(Body, Ctx, declStmt().bind("n")))
      for (const Decl *D : DS->decls())
        if (const auto *V = dyn_cast<VarDecl>(D);
            V && V->hasAttr<CUDASharedAttr>())
          addSharedArray(V);
  }

private:
  /// A call of a function of this file that waits at a barrier, itself or
  /// through its callees, cuts the kernel into phases as __syncthreads does.
  bool reachesBarrier(const FunctionDecl *Callee) {
    const FunctionDecl *Def = Callee ? Callee->getDefinition() : nullptr;
    if (!Def || !Def->getBody())
      return false;
    auto [It, New] = BarrierFunctions.try_emplace(Def, false);
    if (!New)
      return It->second; // known, or being looked at (recursion)
    bool Found = false;
    for (const CallExpr *C : findAllIn<CallExpr>(
             Def->getBody(), Ctx, callExpr(callee(functionDecl())).bind("n")))
      if (isBarrierCall(C) || reachesBarrier(C->getDirectCallee())) {
        Found = true;
        break;
      }
    BarrierFunctions[Def] = Found;
    return Found;
  }

  unsigned phaseAt(SourceLocation L) const {
    unsigned Phase = 0;
    for (SourceLocation B : BarrierLocs)
      if (SM.isBeforeInTranslationUnit(B, L))
        ++Phase;
    return Phase;
  }

  void addAccess(const ArraySubscriptExpr *E, const ParmVarDecl *Root = nullptr,
                 const VarDecl *Through = nullptr) {
    const auto *P =
        Root ? Root
             : cast<ParmVarDecl>(
                   cast<DeclRefExpr>(E->getBase()->IgnoreParenImpCasts())
                       ->getDecl());
    AccessInfo A;
    A.K = accessKind(E);
    A.Loc = lineCol(E->getBeginLoc(), Ctx);
    A.Base = (Through ? static_cast<const VarDecl *>(Through) : P)
                 ->getNameAsString();
    A.BaseDecl = P;
    A.Through = Through;
    A.ElementType = typeName(E->getType().getUnqualifiedType(), Ctx);
    A.Index = sourceText(E->getIdx()->getSourceRange(), Ctx);
    A.Class = classifyIndex(E->getIdx(), F, Ctx);
    A.Phase = phaseAt(E->getBeginLoc());
    A.Expr = E;
    (Through ? K.LocalPointerAccesses : K.Accesses).push_back(A);
  }

  void addLoop(const Stmt *S) {
    LoopInfo L;
    L.Loc = lineCol(S->getBeginLoc(), Ctx);
    L.Phase = phaseAt(S->getBeginLoc());
    L.K = LoopInfo::Other;
    const auto *For = dyn_cast<ForStmt>(S);
    L.For = For;
    if (For)
      classifyFor(For, L);
    K.Loops.push_back(L);
  }

  void classifyFor(const ForStmt *For, LoopInfo &L) {
    std::optional<CountedLoop> C = matchCountedLoop(For);
    if (!C)
      return;
    L.Var = C->Var->getNameAsString();
    L.Bound = sourceText(C->Bound->getSourceRange(), Ctx);
    const Stmt *Body = F->getBody();
    if (isGlobalThreadIndex(C->Init, Body) && C->Step &&
        isGridStride(C->Step, Body))
      L.K = LoopInfo::GridStride;
    else if (isBlockStart(C->Init) && C->Step &&
             isBuiltin(followLocalInit(stripCasts(C->Step), Body),
                       BuiltinVar::BlockDim))
      L.K = LoopInfo::BlockStride;
    else
      L.K = LoopInfo::Counted;
    if (L.K == LoopInfo::Counted && C->Step) {
      // `blockIdx.x * BLOCK + threadIdx.x; i += BLOCK * gridDim.x`: a
      // grid-stride loop where every launch runs BLOCK threads.
      std::optional<BlockTerm> Start =
          matchGlobalThreadIndex(C->Init, Body, Ctx);
      std::optional<BlockTerm> Stride = matchGridStride(C->Step, Body, Ctx);
      if (Start && Stride && Start->Constant &&
          Start->Constant == Stride->Constant)
        L.GridStartConstBlock = Start->Constant;
    }
    if (L.K == LoopInfo::Counted && C->Step && isBlockStart(C->Init)) {
      // A step every launch may fix to blockDim.x (markLaunchedBlockStrides).
      L.ThreadStartConstStep = evaluateInt(C->Step, Ctx, Body);
      const auto *P = dyn_cast_or_null<ParmVarDecl>(referencedVar(C->Step));
      if (P && P->getType()->isIntegerType() &&
          !P->getType().isVolatileQualified() && !isModifiedIn(P, Body))
        L.ThreadStartParamStep = P->getFunctionScopeIndex();
    }
    std::optional<int64_t> Lo = evaluateInt(C->Init, Ctx, Body);
    std::optional<int64_t> Hi = evaluateInt(C->Bound, Ctx, Body);
    std::optional<int64_t> Step =
        C->Step ? evaluateInt(C->Step, Ctx, Body) : std::optional<int64_t>(1);
    if (Lo && Hi && Step && *Step > 0) {
      int64_t End = *Hi + (C->Inclusive ? 1 : 0);
      L.TripCount = End > *Lo ? (End - *Lo + *Step - 1) / *Step : 0;
    }
  }

  void addSharedArray(const VarDecl *V) {
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
  const SourceManager &SM;
  ParentMap Parents;
  std::vector<SourceLocation> BarrierLocs;
  std::map<const FunctionDecl *, bool> BarrierFunctions;
};

void findReReads(KernelInfo &K) {
  DenseSet<const ParmVarDecl *> Written;
  for (const AccessInfo &A : K.Accesses)
    if (A.writes() || A.K == AccessInfo::AddressOf)
      Written.insert(A.BaseDecl);
  // Every later read of an element pairs with every earlier one.
  for (size_t I = 0; I < K.Accesses.size(); ++I) {
    const AccessInfo &First = K.Accesses[I];
    if (!First.reads())
      continue;
    std::string Index = withoutSpaces(First.Index);
    for (size_t J = I + 1; J < K.Accesses.size(); ++J) {
      const AccessInfo &Again = K.Accesses[J];
      if (!Again.reads() || Again.BaseDecl != First.BaseDecl ||
          withoutSpaces(Again.Index) != Index)
        continue;
      K.ReReads.push_back({First.Base, First.Index, First.Loc, Again.Loc,
                           First.Phase, Again.Phase,
                           Written.contains(First.BaseDecl)});
    }
  }
}

} // namespace

std::string whyNotLaunchedBlockX(const KernelInfo &K, int64_t C) {
  std::string Prefix = "the constant " + std::to_string(C) +
                       " stands for blockDim.x only where every launch runs " +
                       std::to_string(C) + " threads in x, and ";
  if (K.LaunchedBlockX)
    return Prefix + "every launch runs " + std::to_string(*K.LaunchedBlockX);
  return Prefix + "the launches in this file do not all run one constant "
                  "block";
}

const LoopInfo *loopOf(const KernelInfo &K, const ForStmt *For) {
  for (const LoopInfo &L : K.Loops)
    if (L.For == For)
      return &L;
  return nullptr;
}

KernelInfo analyzeKernel(const FunctionDecl *FD, ASTContext &Ctx) {
  KernelInfo K;
  K.Name = FD->getQualifiedNameAsString();
  K.Loc = lineCol(FD->getLocation(), Ctx);
  K.IsTemplate = FD->getDescribedFunctionTemplate() != nullptr;
  K.TemplateArgs = templateArgumentsText(FD);
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
    KernelAnalysis(K, FD, Ctx).run();
    findReReads(K);
  }
  return K;
}

} // namespace kopt
