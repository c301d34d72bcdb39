//===- VectorizeLoads.cpp - 16-byte global loads and stores ---------------===//
//
// Element-wise kernels that load and store one 4-byte or 2-byte element per
// access issue four to eight times more memory instructions than needed.
// This pass gives each thread W consecutive elements and moves them with one
// 16-byte access per pointer (float4, or uint4 carrying 8 halves).
//
// Two shapes are recognized:
//   * a grid-stride loop `for (T i = gid; i < n; i += blockDim.x * gridDim.x)`
//     (its trip count adapts to the grid, so the launch is unchanged);
//   * one element per thread, `T i = gid; if (i < n) { ... }`: the kernel
//     then covers W elements per thread and every launch site's grid is
//     divided by W (rounded up), so all elements are still covered.
// Both get a scalar tail for sizes that are not multiples of W and fall back
// to the original scalar code when a pointer is not aligned to the vector.
//
// Legality (each failure is a missed remark):
//   * every access to a vectorized pointer is exactly `p[i]` with the
//     element index i; other pointers are only read;
//   * the element computation has no barrier, warp collective, return,
//     break/continue of the loop, or use of thread/block indices (the
//     element-to-thread mapping changes);
//   * a store may not alias a load from another pointer: both shapes accept
//     __restrict__ pointers. One-element-per-thread kernels also accept plain
//     pointers when, in each element, all loads precede the stores: exact
//     aliasing (in-place) then reads the same values, and any partial overlap
//     would already be a data race between threads in the original kernel;
//   * the index type is at least 32 bits and as wide as the bound's type,
//     so `v * W + e` stays below the bound and cannot overflow.
//
//===----------------------------------------------------------------------===//

#include "Options.h"
#include "kopt/Pass/Pass.h"

#include "SourceLayout.h"
#include "kopt/Analysis/AffineForm.h"
#include "kopt/Analysis/ControlFlow.h"
#include "kopt/Analysis/IndexSets.h"

#include "clang/AST/ParentMap.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <map>

using namespace clang;
using namespace llvm;

namespace kopt {

namespace {

constexpr unsigned VectorBytes = 16;

/// The statement run once per element, and what names the element.
struct Region {
  const VarDecl *Var = nullptr; ///< element index
  const Stmt *Body = nullptr;   ///< run once per element
  const Expr *Bound = nullptr;  ///< elements are Var < Bound
  bool OnePerThread = false;
};

/// Orders parameters as declared, so remarks and code are deterministic.
struct ParamOrder {
  bool operator()(const ParmVarDecl *A, const ParmVarDecl *B) const {
    return A->getFunctionScopeIndex() < B->getFunctionScopeIndex();
  }
};

/// One pointer whose `p[i]` accesses become vector accesses.
struct VectorPointer {
  const ParamInfo *Param = nullptr;
  std::string Element;
  unsigned ElementBytes = 0;
  bool Reads = false;
  bool Writes = false;
  /// Set when some store writes every element unconditionally, so the
  /// carrier needs no initial load.
  bool FullyWritten = false;
  std::vector<const ArraySubscriptExpr *> Accesses;
  /// The uniform offset of `p[off + i]` (empty for `p[i]`), as written.
  std::string Offset;

  std::string carrierName() const { return "kopt_vec_" + Param->Name; }
  /// The address of element 0 of the vectorized range.
  std::string base() const {
    return Offset.empty() ? Param->Name : Param->Name + " + (" + Offset + ")";
  }
};

struct Plan {
  unsigned Width = 0;
  std::vector<VectorPointer> Pointers;
};

/// A reason the region cannot be vectorized, with its location.
struct Refusal {
  std::string Message;
  LineCol Loc;
};

/// Scans the per-element code for constructs that tie it to its thread or
/// leave the element computation early.
class BodyScanner : public RecursiveASTVisitor<BodyScanner> {
public:
  explicit BodyScanner(ASTContext &Ctx) : Ctx(Ctx) {}

  bool TraverseForStmt(ForStmt *S) {
    return nested([&] { return RecursiveASTVisitor::TraverseForStmt(S); });
  }
  bool TraverseWhileStmt(WhileStmt *S) {
    return nested([&] { return RecursiveASTVisitor::TraverseWhileStmt(S); });
  }
  bool TraverseDoStmt(DoStmt *S) {
    return nested([&] { return RecursiveASTVisitor::TraverseDoStmt(S); });
  }
  bool TraverseSwitchStmt(SwitchStmt *S) {
    ++BreakDepth;
    bool R = RecursiveASTVisitor::TraverseSwitchStmt(S);
    --BreakDepth;
    return R;
  }

  bool VisitReturnStmt(ReturnStmt *S) {
    return refuse(S, "a return statement");
  }
  bool VisitGotoStmt(GotoStmt *S) { return refuse(S, "a goto"); }
  bool VisitBreakStmt(BreakStmt *S) {
    return BreakDepth ? true : refuse(S, "a break out of the element loop");
  }
  bool VisitContinueStmt(ContinueStmt *S) {
    return LoopDepth ? true : refuse(S, "a continue of the element loop");
  }
  bool VisitCallExpr(CallExpr *C) {
    if (isBarrierCall(C))
      return refuse(C, "a barrier");
    if (const FunctionDecl *FD = C->getDirectCallee();
        FD && FD->getIdentifier()) {
      StringRef N = FD->getName();
      for (StringRef Prefix : {"__shfl", "__syncwarp", "__ballot", "__any",
                               "__all", "__activemask", "__match", "__reduce"})
        if (N.starts_with(Prefix))
          return refuse(C, "the warp collective '" + N.str() + "'");
    }
    return true;
  }
  bool VisitPseudoObjectExpr(PseudoObjectExpr *E) {
    if (std::optional<BuiltinRef> B = matchBuiltin(E)) {
      static const char *Names[] = {"threadIdx", "blockIdx", "blockDim",
                                    "gridDim"};
      return refuse(E, std::string("a use of ") + Names[unsigned(B->Var)]);
    }
    return true;
  }
  bool VisitDeclRefExpr(DeclRefExpr *E) {
    if (E->getDecl()->getName().starts_with("kopt_vec"))
      return refuse(E, "code kopt already vectorized");
    return true;
  }

  std::optional<Refusal> Result;

private:
  template <typename Fn> bool nested(Fn F) {
    ++LoopDepth;
    ++BreakDepth;
    bool R = F();
    --LoopDepth;
    --BreakDepth;
    return R;
  }
  bool refuse(const Stmt *S, const std::string &What) {
    Result = Refusal{"the element computation contains " + What,
                     lineCol(S->getBeginLoc(), Ctx)};
    return false;
  }

  ASTContext &Ctx;
  unsigned LoopDepth = 0, BreakDepth = 0;
};

class SubscriptCollector : public RecursiveASTVisitor<SubscriptCollector> {
public:
  bool VisitArraySubscriptExpr(ArraySubscriptExpr *E) {
    Found.push_back(E);
    return true;
  }
  std::vector<const ArraySubscriptExpr *> Found;
};

/// Matches an element-wise index: `i`, `off + i` or `i + off`, where off
/// is the same for all threads and loop iterations and is computed before
/// Body (its carrier is loaded there). Sets Offset to off, or nullptr.
bool matchElementIndex(const Expr *Index, const VarDecl *Var, const Stmt *Body,
                       const FunctionDecl *Kernel, ASTContext &Ctx,
                       const Expr *&Offset) {
  Offset = nullptr;
  const Expr *E = stripCasts(Index);
  if (referencedVar(E) == Var)
    return true;
  const auto *Add = dyn_cast<BinaryOperator>(E);
  if (!Add || Add->getOpcode() != BO_Add)
    return false;
  const Expr *Off = nullptr;
  if (referencedVar(Add->getRHS()) == Var)
    Off = Add->getLHS();
  else if (referencedVar(Add->getLHS()) == Var)
    Off = Add->getRHS();
  if (!Off || hasSideEffects(Off, Ctx) ||
      classifyIndex(Off, Kernel, Ctx).K != IndexClass::Uniform)
    return false;
  // Every variable of the offset must be declared outside Body and keep its
  // value in it.
  SourceRange BodyRange = Body->getSourceRange();
  const SourceManager &SM = Ctx.getSourceManager();
  bool Invariant = true;
  std::function<void(const Stmt *)> Check = [&](const Stmt *S) {
    if (const auto *Ref = dyn_cast<DeclRefExpr>(S))
      if (const auto *V = dyn_cast<VarDecl>(Ref->getDecl()))
        if (V->hasLocalStorage() &&
            (isModifiedIn(V, Body) ||
             (!SM.isBeforeInTranslationUnit(V->getLocation(),
                                            BodyRange.getBegin()) &&
              !isa<ParmVarDecl>(V))))
          Invariant = false;
    for (const Stmt *C : S->children())
      if (C)
        Check(C);
  };
  Check(Off);
  if (!Invariant)
    return false;
  Offset = Off;
  return true;
}

/// Local variables declared outside Body that Body writes: state carried
/// from one element to the next (an accumulator, a "last seen" value).
std::vector<std::string> carriedState(const Stmt *Body, const VarDecl *Index,
                                      ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  SourceLocation Begin = Body->getBeginLoc();
  std::vector<std::string> Names;
  auto Note = [&](const Expr *Target) {
    const VarDecl *V = referencedVar(Target);
    if (!V || V == Index || !V->hasLocalStorage())
      return;
    if (!SM.isBeforeInTranslationUnit(V->getLocation(), Begin))
      return;
    std::string N = V->getNameAsString();
    if (!is_contained(Names, N))
      Names.push_back(N);
  };
  std::function<void(const Stmt *)> Walk = [&](const Stmt *S) {
    if (std::optional<WriteOf> W = writeOf(S))
      Note(W->Target);
    for (const Stmt *C : S->children())
      if (C)
        Walk(C);
  };
  Walk(Body);
  return Names;
}

/// Our own output: a variable named like the carriers this pass declares.
bool declaresVectorCarrier(const Stmt *S) {
  if (const auto *DS = dyn_cast<DeclStmt>(S))
    for (const Decl *D : DS->decls())
      if (const auto *V = dyn_cast<VarDecl>(D))
        if (V->getName().starts_with("kopt_vec_"))
          return true;
  for (const Stmt *C : S->children())
    if (C && declaresVectorCarrier(C))
      return true;
  return false;
}

/// The vector type that carries Bytes bytes of Element.
std::string carrierType(StringRef Element, unsigned Bytes) {
  if (Element == "float")
    return Bytes == 16 ? "float4" : Bytes == 8 ? "float2" : "float";
  if (Element == "double" && Bytes == 16)
    return "double2";
  switch (Bytes) {
  case 16:
    return "uint4";
  case 8:
    return "uint2";
  case 4:
    return "unsigned int";
  default:
    return "unsigned short";
  }
}

class VectorizeLoadsPass : public KernelPass<VectorizeLoadsOptions> {
  void runOnKernel(KernelContext &KC) override {
    PassContext &Ctx = KC.pass();
    const KernelInfo &K = KC.kernel();
    if (K.IsTemplate) {
      Ctx.missed(K.Name, K.Loc, "template kernels are not vectorized yet");
      return;
    }
    if (!K.Decl->getBody())
      return;
    if (declaresVectorCarrier(K.Decl->getBody())) {
      Ctx.missed(K.Name, K.Loc,
                 "'" + K.Name + "' was already vectorized by kopt");
      return;
    }
    bool Found = false;
    for (const LoopInfo &L : K.Loops) {
      if ((L.K != LoopInfo::GridStride && L.K != LoopInfo::BlockStride) ||
          !L.For)
        continue;
      Found = true;
      vectorizeStridedLoop(Ctx, K, L);
    }
    if (Found)
      return;
    if (std::optional<Region> R = matchOnePerThread(K)) {
      vectorizeOnePerThread(Ctx, K, *R);
      return;
    }
    Ctx.missed(K.Name, K.Loc,
               "no grid-stride or block-stride loop and no "
               "one-element-per-thread guard "
               "'T i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) "
               "{...}' in '" +
                   K.Name + "'");
  }

  /// `T i = gid; if (i < n) STMT` as the whole kernel body.
  std::optional<Region> matchOnePerThread(const KernelInfo &K) {
    const auto *Body = dyn_cast<CompoundStmt>(K.Decl->getBody());
    if (!Body || Body->size() != 2)
      return std::nullopt;
    const auto *DS = dyn_cast<DeclStmt>(Body->body_front());
    const auto *If = dyn_cast<IfStmt>(Body->body_back());
    if (!DS || !If || !DS->isSingleDecl() || If->getElse() || If->getInit() ||
        If->getConditionVariable())
      return std::nullopt;
    const auto *V = dyn_cast<VarDecl>(DS->getSingleDecl());
    if (!V || !V->getInit() || !isGlobalThreadIndex(V->getInit(), Body))
      return std::nullopt;
    const auto *Cond =
        dyn_cast<BinaryOperator>(If->getCond()->IgnoreParenImpCasts());
    if (!Cond)
      return std::nullopt;
    Region R;
    R.Var = V;
    R.Body = If->getThen();
    R.OnePerThread = true;
    if (Cond->getOpcode() == BO_LT && referencedVar(Cond->getLHS()) == V)
      R.Bound = Cond->getRHS();
    else if (Cond->getOpcode() == BO_GT && referencedVar(Cond->getRHS()) == V)
      R.Bound = Cond->getLHS();
    else
      return std::nullopt;
    return R;
  }

  /// Decides whether Region can be vectorized and how; a Refusal otherwise.
  std::variant<Plan, Refusal> plan(PassContext &Ctx, const KernelInfo &K,
                                   const Region &R) {
    ASTContext &AC = Ctx.deviceContext();
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

    BodyScanner Scanner(AC);
    Scanner.TraverseStmt(const_cast<Stmt *>(R.Body));
    if (Scanner.Result)
      return *Scanner.Result;

    // State carried across elements: vectorizing changes which thread
    // visits which elements, so per-thread results (partial sums) change.
    // That is only right when the kernel then combines all threads' values
    // with an associative operation, which the user must vouch for.
    std::vector<std::string> Carried = carriedState(R.Body, R.Var, AC);
    if (!Carried.empty() && !options().Reassociate)
      return Refuse("the loop carries '" + join(Carried, "', '") +
                        "' from one element to the next; vectorizing changes "
                        "which thread accumulates which elements "
                        "(reassociate=true allows it)",
                    RegionLoc);

    // Sort the region's global accesses into element-wise ones and others.
    SubscriptCollector Collector;
    Collector.TraverseStmt(const_cast<Stmt *>(R.Body));
    std::map<const ParmVarDecl *, VectorPointer, ParamOrder> Vectorized;
    std::vector<const AccessInfo *> Others;
    for (const ArraySubscriptExpr *E : Collector.Found) {
      const AccessInfo *A = nullptr;
      for (const AccessInfo &Candidate : K.Accesses)
        if (Candidate.Expr == E)
          A = &Candidate;
      if (!A)
        continue; // not a global pointer parameter
      const Expr *Offset = nullptr;
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
      bool First = !Vectorized.count(A->BaseDecl);
      VectorPointer &P = Vectorized[A->BaseDecl];
      if (!First && withoutSpaces(P.Offset) != withoutSpaces(OffsetText))
        return Refuse("'" + A->Base + "' is accessed at '" + A->Index +
                          "' and at offset '" + P.Offset +
                          "': not one contiguous range per thread",
                      A->Loc);
      P.Offset = OffsetText;
      P.Param = K.param(A->Base);
      P.Reads |= A->reads();
      P.Writes |= A->writes();
      P.Accesses.push_back(E);
    }
    if (Vectorized.empty())
      return Refuse("no element-wise global access 'p[" + R.Var->getName() +
                        "]' to vectorize",
                    RegionLoc);
    for (const AccessInfo *A : Others) {
      if (Vectorized.count(A->BaseDecl))
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
        return Refuse("'" + P.Param->Name + "' points to volatile memory",
                      lineCol(Decl->getLocation(), AC));
      if (isModifiedIn(Decl, KernelBody))
        return Refuse("the pointer '" + P.Param->Name +
                          "' is modified in the kernel",
                      lineCol(Decl->getLocation(), AC));
      if (Pointee->isIncompleteType() || !Pointee.isTriviallyCopyableType(AC))
        return Refuse("'" + P.Param->Name +
                          "' has an element type that is "
                          "not trivially copyable",
                      lineCol(Decl->getLocation(), AC));
      P.Element = P.Param->PointeeType;
      P.ElementBytes = AC.getTypeSizeInChars(Pointee).getQuantity();
      if (!isPowerOf2_32(P.ElementBytes) || P.ElementBytes > VectorBytes)
        return Refuse("'" + P.Param->Name + "' has " + Twine(P.ElementBytes) +
                          "-byte elements, which do not tile a 16-byte vector",
                      lineCol(Decl->getLocation(), AC));
      WidestBytes = std::max(WidestBytes, P.ElementBytes);
    }
    Plan Result;
    std::optional<uint64_t> Requested = options().Width;
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
                          "-byte accesses for '" + P.Param->Name + "' (" +
                          P.Element + "); the widest is 16 bytes",
                      RegionLoc);

    // Aliasing between stores and loads of different pointers.
    std::map<const ParmVarDecl *, std::vector<const AccessInfo *>, ParamOrder>
        Loads, Stores;
    auto Record = [&](const AccessInfo *A) {
      if (A->reads())
        Loads[A->BaseDecl].push_back(A);
      if (A->writes())
        Stores[A->BaseDecl].push_back(A);
    };
    for (const AccessInfo &A : K.Accesses)
      for (auto &[Decl, P] : Vectorized)
        if (is_contained(P.Accesses, A.Expr))
          Record(&A);
    for (const AccessInfo *A : Others)
      Record(A);
    ParentMap Parents(const_cast<Stmt *>(KernelBody));
    for (auto &[StoreDecl, StoreList] : Stores) {
      for (auto &[LoadDecl, LoadList] : Loads) {
        if (StoreDecl == LoadDecl ||
            StoreDecl->getType().isRestrictQualified() ||
            LoadDecl->getType().isRestrictQualified())
          continue;
        std::string Pair = "the store to '" + StoreDecl->getNameAsString() +
                           "' may alias the load from '" +
                           LoadDecl->getNameAsString() + "'";
        if (!R.OnePerThread)
          return Refuse(Pair + ": declare the pointers __restrict__",
                        StoreList.front()->Loc);
        for (const AccessInfo *L : LoadList)
          for (const AccessInfo *S : StoreList)
            if (topLevelIndex(L->Expr, R.Body, Parents) >
                topLevelIndex(S->Expr, R.Body, Parents))
              return Refuse(Pair + ", and the load at " + str(L->Loc) +
                                " follows the store at " + str(S->Loc),
                            L->Loc);
      }
    }

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
        return Refuse(guardedAccess(*accessOf(K, GuardedStore), R.Body,
                                    Parents, AC) +
                          ": a vector store would write every element",
                      lineCol(GuardedStore->getBeginLoc(), AC));
      if (P.Reads && !UnconditionalLoad)
        return Refuse(guardedAccess(*accessOf(K, GuardedLoad), R.Body,
                                    Parents, AC) +
                          ": a vector load would read every element",
                      lineCol(GuardedLoad->getBeginLoc(), AC));
      Result.Pointers.push_back(P);
    }
    return Result;
  }

  static const AccessInfo *accessOf(const KernelInfo &K,
                                    const ArraySubscriptExpr *E) {
    for (const AccessInfo &A : K.Accesses)
      if (A.Expr == E)
        return &A;
    return nullptr;
  }

  /// "the store to 'p[i]' runs only when 'p != NULL'".
  static std::string guardedAccess(const AccessInfo &A, const Stmt *Body,
                                   ParentMap &Parents, ASTContext &AC) {
    const Stmt *Guard = guardOf(A.Expr, Body, Parents);
    return std::string(A.writes() ? "the store to '" : "the load of '") +
           A.Base + "[" + A.Index + "]' runs only when '" +
           oneLine(sourceText(Guard->getSourceRange(), AC)) + "'";
  }

  /// Which top-level statement of Body holds E (0 if Body is not compound).
  static size_t topLevelIndex(const Stmt *E, const Stmt *Body,
                              ParentMap &Parents) {
    const auto *CS = dyn_cast<CompoundStmt>(Body);
    if (!CS)
      return 0;
    const Stmt *S = E;
    while (S && Parents.getParent(const_cast<Stmt *>(S)) != CS)
      S = Parents.getParent(const_cast<Stmt *>(S));
    size_t Index = 0;
    for (const Stmt *Child : CS->body()) {
      if (Child == S)
        return Index;
      ++Index;
    }
    return Index;
  }

  /// The code that loads the carriers, runs Body once per element and stores
  /// the carriers back. VectorIndex names the vector (in elements / W).
  std::string vectorCode(PassContext &Ctx, const Region &R, const Plan &P,
                         StringRef VectorIndex, StringRef IndexType,
                         StringRef Indent, std::string &BodyError) {
    ASTContext &AC = Ctx.deviceContext();
    StringRef Code = Ctx.source().Code;
    std::optional<std::pair<unsigned, unsigned>> BodyRange =
        stmtOffsets(R.Body, AC);
    if (!BodyRange) {
      BodyError = "the element computation is written in a macro";
      return "";
    }
    std::vector<std::tuple<unsigned, unsigned, std::string>> Replacements;
    std::string Loads, Stores;
    std::string W = std::to_string(P.Width);
    for (const VectorPointer &V : P.Pointers) {
      unsigned Bytes = P.Width * V.ElementBytes;
      std::string Carrier = carrierType(V.Element, Bytes);
      bool ConstCarrier = !V.Writes;
      std::string Elem = (ConstCarrier ? "const " : "") + V.Element;
      for (const ArraySubscriptExpr *E : V.Accesses) {
        std::optional<std::pair<unsigned, unsigned>> Off = exprOffsets(E, AC);
        if (!Off || Off->first < BodyRange->first ||
            Off->second > BodyRange->second) {
          BodyError =
              "an access to '" + V.Param->Name + "' is written in a macro";
          return "";
        }
        Replacements.emplace_back(Off->first, Off->second - Off->first,
                                  "reinterpret_cast<" + Elem + " *>(&" +
                                      V.carrierName() + ")[kopt_e]");
      }
      if (V.Reads || !V.FullyWritten) {
        std::string Load = "reinterpret_cast<const " + Carrier + " *>(" +
                           V.base() + ")[" + VectorIndex.str() + "]";
        Loads += Indent.str() + (ConstCarrier ? "const " : "") + Carrier + " " +
                 V.carrierName() + " = " + Load + ";\n";
      } else {
        Loads += Indent.str() + Carrier + " " + V.carrierName() + ";\n";
      }
      if (V.Writes)
        Stores += Indent.str() + "reinterpret_cast<" + Carrier + " *>(" +
                  V.base() + ")[" + VectorIndex.str() +
                  "] = " + V.carrierName() + ";\n";
    }
    // A compound body's statements go straight into the element loop.
    unsigned Begin = BodyRange->first, End = BodyRange->second;
    if (const auto *CS = dyn_cast<CompoundStmt>(R.Body)) {
      const SourceManager &SM = AC.getSourceManager();
      Begin = SM.getFileOffset(CS->getLBracLoc()) + 1;
      End = SM.getFileOffset(CS->getRBracLoc());
    }
    std::string Body =
        StringRef(splice(Code, Begin, End, Replacements)).trim().str();
    std::string BodyIndent = indentAt(Code, BodyRange->first);
    if (isa<CompoundStmt>(R.Body) && !R.Body->children().empty())
      BodyIndent = indentAt(Code, AC.getSourceManager().getFileOffset(
                                      (*R.Body->child_begin())->getBeginLoc()));
    std::string Extra = Indent.str() + "  ";
    Extra =
        Extra.size() > BodyIndent.size() ? Extra.substr(BodyIndent.size()) : "";
    if (Body.empty())
      Body = ";";
    // The element index is declared only if the body still uses it.
    std::string IndexDecl;
    if (countReferences(R.Body, R.Var) > Replacements.size())
      IndexDecl = Indent.str() + "  const " + IndexType.str() + " " +
                  R.Var->getNameAsString() + " = " + VectorIndex.str() + " * " +
                  W + " + kopt_e;\n";
    return Loads + "#pragma unroll\n" + Indent.str() +
           "for (int kopt_e = 0; kopt_e < " + W + "; ++kopt_e) {\n" +
           IndexDecl + Indent.str() + "  " + reindent(Body, Extra) + "\n" +
           Indent.str() + "}\n" + Stores;
  }

  std::string alignmentCheck(const Plan &P,
                             const std::string &ContinuationIndent) {
    std::string S;
    for (const VectorPointer &V : P.Pointers) {
      if (!S.empty())
        S += " &&\n" + ContinuationIndent;
      S += "reinterpret_cast<unsigned long long>(" + V.base() + ") % " +
           std::to_string(P.Width * V.ElementBytes) + " == 0";
    }
    return S;
  }

  std::string describe(const Plan &P) {
    std::string Names;
    for (const VectorPointer &V : P.Pointers)
      Names += (Names.empty() ? "'" : ", '") + V.Param->Name + "' as " +
               carrierType(V.Element, P.Width * V.ElementBytes) + " (" +
               std::to_string(P.Width) + " x " + V.Element + ")";
    return Names;
  }

  void vectorizeStridedLoop(PassContext &Ctx, const KernelInfo &K,
                            const LoopInfo &L) {
    ASTContext &AC = Ctx.deviceContext();
    StringRef Code = Ctx.source().Code;
    std::string What =
        (LoopInfo::kindName(L.K) + " loop not vectorized: ").str();
    std::optional<CountedLoop> CL = matchCountedLoop(L.For);
    if (!CL || !isa<DeclStmt>(L.For->getInit())) {
      Ctx.missed(K.Name, L.Loc,
                 What + "it does not declare its index in its init statement");
      return;
    }
    // Threads must start at 0, 1, ..., STEP-1 so that they partition the
    // range: vector v then covers elements [v*W, v*W+W) exactly once.
    if (L.K == LoopInfo::BlockStride &&
        !isBuiltin(stripCasts(followLocalInit(stripCasts(CL->Init),
                                              K.Decl->getBody())),
                   BuiltinVar::ThreadIdx)) {
      Ctx.missed(K.Name, L.Loc,
                 What + "it starts at an offset from threadIdx.x; only loops "
                        "starting at threadIdx.x are supported");
      return;
    }
    Region R;
    R.Var = CL->Var;
    R.Body = L.For->getBody();
    R.Bound = CL->Bound;
    std::variant<Plan, Refusal> Decision = plan(Ctx, K, R);
    if (auto *Why = std::get_if<Refusal>(&Decision)) {
      Ctx.missed(K.Name, Why->Loc, What + Why->Message);
      return;
    }
    const Plan &P = std::get<Plan>(Decision);
    std::optional<std::pair<unsigned, unsigned>> LoopRange =
        stmtOffsets(L.For, AC);
    if (!LoopRange) {
      Ctx.missed(K.Name, L.Loc, What + "it is written in a macro");
      return;
    }
    if (hasSideEffects(CL->Init, AC) || hasSideEffects(CL->Step, AC)) {
      Ctx.missed(K.Name, L.Loc,
                 What + "its init or step has side effects (they are "
                        "evaluated again for the scalar tail)");
      return;
    }
    std::string Indent = indentAt(Code, LoopRange->first);
    std::string I1 = Indent + "  ", I2 = Indent + "    ",
                I3 = Indent + "      ";
    std::string IndexType = R.Var->getType().getUnqualifiedType().getAsString(
        PrintingPolicy(AC.getLangOpts()));
    std::string W = std::to_string(P.Width);
    std::string Init = sourceText(CL->Init->getSourceRange(), AC);
    std::string Step = sourceText(CL->Step->getSourceRange(), AC);
    std::string Bound = sourceText(CL->Bound->getSourceRange(), AC);
    std::string Var = R.Var->getNameAsString();
    std::string Error;
    std::string Vector = vectorCode(Ctx, R, P, "kopt_v", IndexType, I3, Error);
    if (!Error.empty()) {
      Ctx.missed(K.Name, L.Loc, What + Error);
      return;
    }
    std::optional<std::pair<unsigned, unsigned>> BodyRange =
        stmtOffsets(R.Body, AC);
    // Copies of the loop move from Indent to I2.
    std::string Deeper = I2.substr(Indent.size());
    std::string ScalarBody =
        (isa<CompoundStmt>(R.Body) ? " " : "\n" + I3) +
        reindent(Code.slice(BodyRange->first, BodyRange->second), Deeper);
    std::string Original =
        reindent(Code.slice(LoopRange->first, LoopRange->second), Deeper);

    std::string Text =
        "{\n" + I1 + "// kopt vectorize-loads: " + W +
        " elements per access and a scalar tail;\n" + I1 +
        "// the original loop runs when a pointer is not aligned.\n" + I1 +
        "const auto kopt_n = " + Bound + ";\n" + I1 + "if (" +
        alignmentCheck(P, I1 + "    ") + ") {\n" + I2 + "for (" + IndexType +
        " kopt_v = " + Init + "; kopt_v < kopt_n / " + W +
        "; kopt_v += " + Step + ") {\n" + Vector + I2 + "}\n" + I2 + "for (" +
        IndexType + " " + Var + " = kopt_n / " + W + " * " + W + " + " + Init +
        "; " + Var + " < kopt_n; " + Var + " += " + Step + ")" + ScalarBody +
        "\n" + I1 + "} else {\n" + I2 + Original + "\n" + I1 + "}\n" + Indent +
        "}";
    if (llvm::Error E = Ctx.edits().replaceChars(
            LoopRange->first, LoopRange->second - LoopRange->first, Text)) {
      Ctx.missed(K.Name, L.Loc, What + toString(std::move(E)));
      return;
    }
    Ctx.applied(K.Name, L.Loc,
                "vectorized the " + LoopInfo::kindName(L.K) +
                    " loop: " + describe(P));
  }

  /// The rewritten kernel handles every element below the bound. That is
  /// what the original did only if each launch started a thread per
  /// element: its grid must be ceil(n / B), written `(n + B - 1) / B` (or
  /// `(n + (B - 1)) / B`) with B the launch's block size and n the value the
  /// launch passes for the bound, or constants whose product covers n. A
  /// launch that started fewer threads processed a prefix the rewrite would
  /// extend. Returns why coverage is not proven, or nothing.
  static std::optional<std::string>
  whyNotCovering(const LaunchSite &L, const Region &R, ASTContext &HC) {
    std::string Launch = "the launch at " + str(L.Loc);
    const auto *BoundParam =
        dyn_cast_or_null<ParmVarDecl>(referencedVar(R.Bound));
    if (!BoundParam)
      return "the bound '" +
             sourceText(R.Bound->getSourceRange(), R.Var->getASTContext()) +
             "' is not a kernel parameter, so no launch can be shown to "
             "cover it";
    unsigned Index = BoundParam->getFunctionScopeIndex();
    if (!L.Call || Index >= L.Call->getNumArgs() || !L.Grid.Expr ||
        !L.Block.Expr)
      return Launch + " does not show its grid, block and bound";
    const Stmt *Scope = L.CallerDecl ? L.CallerDecl->getBody() : nullptr;
    // The x extents of grid and block, as forms in the launching function.
    auto ExtentX = [&](const LaunchDim &D) -> const Expr * {
      if (!D.IsDim3)
        return D.Expr;
      const Expr *Init = followLocalInit(D.Expr, Scope)->IgnoreImplicit();
      const auto *C = dyn_cast<CXXConstructExpr>(Init);
      if (!C || C->getNumArgs() < 1 || isDim3(C->getArg(0)->getType()))
        return nullptr;
      return C->getArg(0);
    };
    const Expr *GridX = ExtentX(L.Grid), *BlockX = ExtentX(L.Block);
    if (!GridX || !BlockX)
      return Launch + " uses a dim3 grid or block kopt cannot read";
    AffineContext Forms(HC, Scope);
    std::optional<AffineForm> G = Forms.build(GridX);
    std::optional<AffineForm> B = Forms.build(BlockX);
    std::optional<AffineForm> N = Forms.build(L.Call->getArg(Index));
    if (G && B && N && coversCount(Forms, *G, *B, *N))
      return std::nullopt;
    return "cannot prove that " + Launch +
           " starts a thread for each of the '" +
           BoundParam->getNameAsString() + "' elements (grid '" + L.Grid.Text +
           "', expected ceil(n / block) as (n + block - 1) / block); the "
           "rewrite would cover elements the original did not";
  }

  void vectorizeOnePerThread(PassContext &Ctx, const KernelInfo &K,
                             const Region &R) {
    ASTContext &AC = Ctx.deviceContext();
    StringRef Code = Ctx.source().Code;
    std::variant<Plan, Refusal> Decision = plan(Ctx, K, R);
    if (auto *Why = std::get_if<Refusal>(&Decision)) {
      Ctx.missed(K.Name, Why->Loc,
                 "one-element-per-thread kernel not vectorized: " +
                     Why->Message);
      return;
    }
    const Plan &P = std::get<Plan>(Decision);
    std::string W = std::to_string(P.Width);

    // Every launch must be visible so that its grid can shrink by W.
    if (Ctx.info().hasUnknownLaunches(K.Name)) {
      Ctx.missed(K.Name, K.Loc,
                 "one-element-per-thread kernel not vectorized: '" + K.Name +
                     "' is launched other than by <<<...>>> in this file, so "
                     "its grid cannot be adjusted");
      return;
    }
    std::vector<const LaunchSite *> Launches = Ctx.info().launchesOf(K.Name);
    if (Launches.empty()) {
      Ctx.missed(K.Name, K.Loc,
                 "one-element-per-thread kernel not vectorized: no launch "
                 "site in this file, so the grid cannot be adjusted");
      return;
    }
    EditSet Edits(Ctx.source().Path);
    ASTContext &HC = Ctx.hostContext();
    for (const LaunchSite *L : Launches) {
      if (std::optional<std::string> Why = whyNotCovering(*L, R, HC)) {
        Ctx.missed(K.Name, L->Loc,
                   "one-element-per-thread kernel not vectorized: " + *Why);
        return;
      }
      const Expr *G = L->Grid.Expr;
      std::optional<std::pair<unsigned, unsigned>> Off =
          G ? exprOffsets(G, HC) : std::nullopt;
      if (!Off || hasSideEffects(G, HC)) {
        Ctx.missed(K.Name, L->Loc,
                   "one-element-per-thread kernel not vectorized: the grid "
                   "of the launch at " +
                       str(L->Loc) +
                       " is written in a macro or has side effects");
        return;
      }
      std::string Grid = L->Grid.Text;
      std::string NewGrid =
          L->Grid.IsDim3 ? "dim3(((" + Grid + ").x + " + W + " - 1) / " + W +
                               ", (" + Grid + ").y, (" + Grid + ").z)"
                         : "((" + Grid + ") + " + W + " - 1) / " + W;
      if (llvm::Error E = Edits.replaceChars(
              Off->first, Off->second - Off->first, NewGrid)) {
        Ctx.missed(K.Name, L->Loc,
                   "one-element-per-thread kernel not vectorized: " +
                       toString(std::move(E)));
        return;
      }
    }

    const Stmt *KernelBody = K.Decl->getBody();
    std::optional<std::pair<unsigned, unsigned>> BodyRange =
        stmtOffsets(KernelBody, AC);
    std::optional<std::pair<unsigned, unsigned>> ThenRange =
        stmtOffsets(R.Body, AC);
    if (!BodyRange || !ThenRange || hasSideEffects(R.Bound, AC)) {
      Ctx.missed(K.Name, K.Loc,
                 "one-element-per-thread kernel not vectorized: its body is "
                 "written in a macro");
      return;
    }
    // The body's braces may sit on a continuation line of the parameters:
    // indent relative to the line the declaration starts on.
    std::string Indent = indentAt(
        Code,
        AC.getSourceManager().getFileOffset(
            AC.getSourceManager().getExpansionLoc(K.Decl->getBeginLoc())));
    std::string I1 = Indent + "  ", I2 = Indent + "    ",
                I3 = Indent + "      ";
    std::string IndexType = R.Var->getType().getUnqualifiedType().getAsString(
        PrintingPolicy(AC.getLangOpts()));
    std::string Var = R.Var->getNameAsString();
    std::string Gid = sourceText(R.Var->getInit()->getSourceRange(), AC);
    std::string Bound = sourceText(R.Bound->getSourceRange(), AC);
    std::string Error;
    std::string Vector = vectorCode(Ctx, R, P, "kopt_g", IndexType, I3, Error);
    if (!Error.empty()) {
      Ctx.missed(K.Name, K.Loc,
                 "one-element-per-thread kernel not vectorized: " + Error);
      return;
    }
    std::string Then = Code.slice(ThenRange->first, ThenRange->second).str();
    std::string ThenIndent = indentAt(Code, ThenRange->first);
    // The guarded statement as the body of a loop at indent LoopIndent: a
    // compound statement opens on the loop's line, a single statement goes
    // on its own line at StmtIndent.
    bool ThenIsCompound = isa<CompoundStmt>(R.Body);
    auto Nest = [&](const std::string &LoopIndent,
                    const std::string &StmtIndent) {
      std::string To = ThenIsCompound ? LoopIndent : StmtIndent;
      std::string Extra =
          To.size() > ThenIndent.size() ? To.substr(ThenIndent.size()) : "";
      return (ThenIsCompound ? " " : "\n" + StmtIndent) + reindent(Then, Extra);
    };

    std::string Text =
        "{\n" + I1 + "// kopt vectorize-loads: each thread handles " + W +
        " consecutive elements\n" + I1 + "// (the launch grid is divided by " +
        W + "), one thread the scalar tail;\n" + I1 +
        "// a scalar loop runs when a pointer is not aligned.\n" + I1 +
        "const " + IndexType + " kopt_g = " + Gid + ";\n" + I1 +
        "const auto kopt_n = " + Bound + ";\n" + I1 + "if (" +
        alignmentCheck(P, I1 + "    ") + ") {\n" + I2 +
        "if (kopt_g < kopt_n / " + W + ") {\n" + Vector + I2 +
        "} else if (kopt_g == kopt_n / " + W + ") {\n" + I3 + "for (" +
        IndexType + " " + Var + " = kopt_n / " + W + " * " + W + "; " + Var +
        " < kopt_n; ++" + Var + ")" + Nest(I3, I3 + "  ") + "\n" + I2 + "}\n" +
        I1 + "} else {\n" + I2 + "for (" + IndexType + " " + Var +
        " = kopt_g; " + Var + " < kopt_n; " + Var +
        " += blockDim.x * gridDim.x)" + Nest(I2, I3) + "\n" + I1 + "}\n" +
        Indent + "}";
    if (llvm::Error E = Edits.replaceChars(
            BodyRange->first, BodyRange->second - BodyRange->first, Text)) {
      Ctx.missed(K.Name, K.Loc,
                 "one-element-per-thread kernel not vectorized: " +
                     toString(std::move(E)));
      return;
    }
    if (llvm::Error E = Ctx.edits().merge(Edits)) {
      Ctx.missed(K.Name, K.Loc,
                 "one-element-per-thread kernel not vectorized: " +
                     toString(std::move(E)));
      return;
    }
    std::string Sites;
    for (const LaunchSite *L : Launches)
      Sites += (Sites.empty() ? "" : ", ") + str(L->Loc);
    Ctx.applied(K.Name, K.Loc,
                "vectorized one-element-per-thread kernel: " + describe(P) +
                    "; grid divided by " + W + " at the launch" +
                    (Launches.size() > 1 ? "es at " : " at ") + Sites);
  }
};

} // namespace

std::unique_ptr<Pass> createVectorizeLoadsPass() {
  return std::make_unique<VectorizeLoadsPass>();
}

} // namespace kopt
