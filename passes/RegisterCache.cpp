//===- RegisterCache.cpp - Keep re-read global elements in registers -----===//
//
// Row kernels (RMSNorm, softmax, LayerNorm) read their row in one
// block-stride loop, combine a statistic across the block, then read the
// same elements again in a second loop. The second read goes to L2 (or
// DRAM, when the first read was evicted). When each thread handles at most N
// elements, it can keep them in a local array `T cache[N]`; indexed only by
// constants after full unrolling, the array lives in registers.
//
// Shape: sibling loops of one compound statement,
//   A: for (T j = threadIdx.x; j < n; j += blockDim.x) { ... x[idx] ... }
//   B: for (T j = threadIdx.x; j < n; j += blockDim.x) { ... x[idx] ... }
// with the same bound variable and the same index (up to the loop
// variable). Each loop becomes
//   if (kopt_cached) {
//     #pragma unroll
//     for (int kopt_k = 0; kopt_k < N; ++kopt_k) {
//       T j = threadIdx.x + kopt_k * blockDim.x;
//       if (j < n) { [A: kopt_cache_x[kopt_k] = x[idx];] body }
//     }
//   } else { the original loop }
// with `kopt_cached = n <= N * blockDim.x` computed once before A. Under
// that condition iteration kopt_k of the new loop runs exactly when the
// original's k-th iteration runs, with the same j, so B's iteration kopt_k
// finds in kopt_cache_x[kopt_k] the element A's iteration kopt_k loaded.
// The code between the loops (barriers, reductions) is untouched: no
// barrier moves into a branch, so the condition need not be uniform.
//
// Legality (each failure is a missed remark):
//   * x is a `__restrict__` pointer parameter the kernel only reads through
//     `x[...]`: the restrict promise then says no object read through x is
//     written during the kernel, by any pointer of any thread;
//   * the index is built from the loop variable, literals, thread/block
//     builtins and scalar variables declared outside the loops that are
//     only ever read by value (so it has one value per j in A and B);
//   * the bound is such a variable or a constant; both loops start at
//     threadIdx.x, step by blockDim.x, declare their variable (at least 32
//     bits) and have no pragma, barrier, warp collective, break, continue,
//     return or goto;
//   * A loads x[idx] unconditionally (the load is hoisted to the start of
//     the iteration, which is safe only for a load the original makes);
//   * the result gains no stack frame and no spills: the rewritten file is
//     compiled with nvcc -Xptxas -v and compared with the input.
//
//===----------------------------------------------------------------------===//

#include "Options.h"
#include "kopt/Pass/Pass.h"

#include "SourceLayout.h"
#include "kopt/Analysis/BodyHazards.h"
#include "kopt/Analysis/ControlFlow.h"

#include "clang/AST/Attr.h"
#include "clang/AST/ParentMap.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <map>
#include <set>

using namespace clang;
using namespace llvm;

namespace kopt {

namespace {

/// At most this many registers of cache per thread with max-elems=auto.
constexpr unsigned AutoCacheRegisters = 32;
/// Explicit max-elems above this are refused (the unrolled code grows with
/// it, and ptxas would spill long before).
constexpr uint64_t MaxElems = 1024;

bool contains(SourceRange Outer, SourceLocation L, const SourceManager &SM) {
  L = SM.getExpansionLoc(L);
  SourceLocation B = SM.getExpansionLoc(Outer.getBegin());
  SourceLocation E = SM.getExpansionLoc(Outer.getEnd());
  return !SM.isBeforeInTranslationUnit(L, B) &&
         !SM.isBeforeInTranslationUnit(E, L);
}

/// What in a loop body the rewrite cannot keep: leaving the loop early,
/// barriers and warp collectives (the new loop runs N iterations with a
/// guard, which changes which threads reach them together).
std::optional<Refusal> scanLoopBody(const Stmt *Body, ASTContext &Ctx) {
  using K = BodyHazard;
  std::optional<BodyHazard> H =
      firstHazard(Body, Ctx,
                  {K::Return, K::Goto, K::Label, K::Break, K::Continue,
                   K::Barrier, K::WarpCollective});
  if (!H)
    return std::nullopt;
  static const char *What[] = {"a return",   "a goto",     "a label",
                               "a break",    "a continue", "a barrier"};
  std::string Message =
      H->K == K::WarpCollective ? "the warp collective '" + H->Name + "'"
                                : What[H->K];
  return Refusal{"contains " + Message, lineCol(H->At->getBeginLoc(), Ctx)};
}

/// A global element read in a loop: the pointer and the index as written.
struct Key {
  const ParmVarDecl *Base = nullptr;
  std::string Index; ///< without spaces
  bool operator<(const Key &O) const {
    return std::tie(Base, Index) < std::tie(O.Base, O.Index);
  }
};

/// One cached element: where A loads it, and its name in the rewrite.
struct Cache {
  Key K;
  std::string BaseName;
  const ArraySubscriptExpr *Load = nullptr; ///< the unconditional load in A
  std::string Storage, View;                ///< kopt_cache_x, kopt_x
  std::string ElementType;                  ///< unqualified pointee
  bool Const = false;
  unsigned Registers = 1; ///< 32-bit registers per element
};

/// Loop A, the loops B that re-read its elements, and the caches.
struct Group {
  const ForStmt *A = nullptr;
  std::vector<const ForStmt *> Bs;
  std::vector<Cache> Caches;
  const Expr *Bound = nullptr;
  std::string Flag; ///< kopt_cached
  uint64_t N = 0;
  std::string HowN; ///< how N was chosen, for the remark
};

class RegisterCachePass : public KernelPass<RegisterCacheOptions> {
  /// Each rewritten kernel's edits, kept until the resource check.
  std::map<std::string, EditSet> PerKernel;

  void beginFile(PassContext &) override {
    PerKernel.clear();
    Pending.clear();
    ResourceNote.clear();
  }

  void runOnKernel(KernelContext &KC) override {
    const KernelInfo &K = KC.kernel();
    EditSet Edits(KC.pass().source().Path);
    std::vector<std::pair<LineCol, std::string>> Remarks;
    planKernel(KC.pass(), K, Edits, Remarks);
    if (Edits.empty())
      return;
    PerKernel.emplace(K.Name, std::move(Edits));
    Pending.emplace(K.Name, std::move(Remarks));
  }

  void endFile(PassContext &Ctx) override {
    if (PerKernel.empty())
      return;
    std::set<std::string> Refused;
    if (options().CheckResources)
      checkResources(Ctx, PerKernel, Refused);
    for (auto &[Name, Edits] : PerKernel) {
      if (Refused.count(Name))
        continue;
      if (Error E = Ctx.edits().merge(Edits)) {
        Ctx.missed(Name, Ctx.info().kernel(Name)->Loc,
                   "registers not used as a cache: " + toString(std::move(E)));
        continue;
      }
      for (const auto &[Loc, Msg] : Pending[Name])
        Ctx.applied(Name, Loc, Msg + ResourceNote[Name]);
    }
  }

  /// Applied remarks per kernel, emitted once the resource check passed.
  std::map<std::string, std::vector<std::pair<LineCol, std::string>>> Pending;
  /// ", registers 22 -> 48" per kernel after the resource check.
  std::map<std::string, std::string> ResourceNote;

  //===--------------------------------------------------------------------===//
  // Legality
  //===--------------------------------------------------------------------===//

  /// V is a scalar local or parameter whose every use in Body is a read of
  /// its value: it holds one value for the whole kernel.
  static bool isStableScalar(const VarDecl *V, const Stmt *Body,
                             ParentMap &PM) {
    if (!V->hasLocalStorage() || V->hasAttr<CUDASharedAttr>() ||
        V->getType()->isReferenceType() || V->getType().isVolatileQualified() ||
        !V->getType()->isIntegralOrEnumerationType())
      return false;
    bool Ok = true;
    std::function<void(const Stmt *)> Walk = [&](const Stmt *S) {
      if (!S || !Ok)
        return;
      if (const auto *Ref = dyn_cast<DeclRefExpr>(S);
          Ref && Ref->getDecl() == V) {
        const Stmt *P =
            PM.getParentIgnoreParens(const_cast<DeclRefExpr *>(Ref));
        const auto *Cast = dyn_cast_or_null<ImplicitCastExpr>(P);
        if (!Cast || Cast->getCastKind() != CK_LValueToRValue)
          Ok = false;
      }
      for (const Stmt *C : S->children())
        Walk(C);
    };
    Walk(Body);
    return Ok;
  }

  /// Why Index may not have one value per loop variable, or "" if it does.
  /// Collects the variables it reads (in order) into Vars.
  static std::string checkIndex(const Expr *E, const VarDecl *LoopVar,
                                const ForStmt *Loop, const Stmt *Body,
                                ParentMap &PM, ASTContext &AC,
                                std::vector<const VarDecl *> &Vars) {
    if (matchBuiltin(E))
      return "";
    E = E->IgnoreParens();
    if (isa<IntegerLiteral, CharacterLiteral, CXXBoolLiteralExpr>(E))
      return "";
    if (const auto *Cast = dyn_cast<CastExpr>(E)) {
      if (!isa<ImplicitCastExpr, CStyleCastExpr, CXXFunctionalCastExpr,
               CXXStaticCastExpr>(Cast))
        return "a cast";
      return checkIndex(Cast->getSubExpr(), LoopVar, Loop, Body, PM, AC, Vars);
    }
    if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
      if (isa<EnumConstantDecl>(Ref->getDecl()))
        return "";
      const auto *V = dyn_cast<VarDecl>(Ref->getDecl());
      if (!V)
        return "'" + Ref->getDecl()->getNameAsString() + "'";
      Vars.push_back(V);
      if (V == LoopVar)
        return "";
      if (contains(Loop->getSourceRange(), V->getLocation(),
                   AC.getSourceManager()))
        return "'" + V->getNameAsString() + "', declared in the loop";
      if (!isStableScalar(V, Body, PM))
        return "'" + V->getNameAsString() +
               "', which is not a local scalar that is only read";
      return "";
    }
    if (const auto *U = dyn_cast<UnaryOperator>(E)) {
      if (U->isIncrementDecrementOp() || U->getOpcode() == UO_Deref ||
          U->getOpcode() == UO_AddrOf)
        return "'" + sourceText(E->getSourceRange(), AC) + "'";
      return checkIndex(U->getSubExpr(), LoopVar, Loop, Body, PM, AC, Vars);
    }
    if (const auto *B = dyn_cast<BinaryOperator>(E)) {
      if (B->isAssignmentOp() || B->getOpcode() == BO_Comma)
        return "'" + sourceText(E->getSourceRange(), AC) + "'";
      std::string L =
          checkIndex(B->getLHS(), LoopVar, Loop, Body, PM, AC, Vars);
      if (!L.empty())
        return L;
      return checkIndex(B->getRHS(), LoopVar, Loop, Body, PM, AC, Vars);
    }
    if (const auto *C = dyn_cast<ConditionalOperator>(E)) {
      for (const Expr *Sub :
           {C->getCond(), C->getTrueExpr(), C->getFalseExpr()})
        if (std::string W = checkIndex(Sub, LoopVar, Loop, Body, PM, AC, Vars);
            !W.empty())
          return W;
      return "";
    }
    return "'" + sourceText(E->getSourceRange(), AC) + "'";
  }

  /// The loop's own shape: `for (T j = threadIdx.x; j < n; j +=
  /// blockDim.x)` over a stable bound, with a body the rewrite can copy.
  static std::optional<Refusal> checkLoop(const ForStmt *For,
                                          const KernelInfo &K, ParentMap &PM,
                                          ASTContext &AC) {
    LineCol Loc = lineCol(For->getBeginLoc(), AC);
    auto Fail = [&](const Twine &Why) {
      return Refusal{"the loop at " + str(Loc) + " " + Why.str(), Loc};
    };
    const Stmt *Body = K.Decl->getBody();
    std::optional<CountedLoop> CL = matchCountedLoop(For);
    if (!CL || !isa_and_nonnull<DeclStmt>(For->getInit()))
      return Fail("is not a counted loop that declares its variable");
    const Expr *Start = stripCasts(followLocalInit(stripCasts(CL->Init), Body));
    if (!isBuiltin(Start, BuiltinVar::ThreadIdx))
      return Fail("does not start at threadIdx.x");
    if (!CL->Step || !isBuiltin(CL->Step, BuiltinVar::BlockDim))
      return Fail("does not step by blockDim.x");
    if (CL->Inclusive)
      return Fail("compares with '<=': not handled");
    QualType T = CL->Var->getType();
    if (!T->isIntegerType() || AC.getTypeSize(T) < 32)
      return Fail("has an index narrower than 32 bits");
    if (const Stmt *P = PM.getParent(const_cast<ForStmt *>(For));
        isa_and_nonnull<AttributedStmt>(P))
      return Fail("has a loop pragma");
    if (!stmtOffsets(For, AC))
      return Fail("is written in a macro");
    if (std::optional<int64_t> C = evaluateInt(CL->Bound, AC, nullptr); !C) {
      const VarDecl *V = referencedVar(CL->Bound);
      if (!V || !isStableScalar(V, Body, PM))
        return Fail("has the bound '" +
                    sourceText(CL->Bound->getSourceRange(), AC) +
                    "', which is neither a constant nor a local scalar that "
                    "is only read");
    }
    if (std::optional<Refusal> Why = scanLoopBody(For->getBody(), AC))
      return Fail(Why->Message + " at " + str(Why->Loc));
    return std::nullopt;
  }

  /// A and B run the same iterations: same bound (variable or value).
  static bool sameBound(const ForStmt *A, const ForStmt *B, ASTContext &AC) {
    const Expr *BA = matchCountedLoop(A)->Bound;
    const Expr *BB = matchCountedLoop(B)->Bound;
    std::optional<int64_t> CA = evaluateInt(BA, AC, nullptr);
    std::optional<int64_t> CB = evaluateInt(BB, AC, nullptr);
    if (CA || CB)
      return CA && CB && *CA == *CB;
    return referencedVar(BA) && referencedVar(BA) == referencedVar(BB);
  }

  /// Global reads `p[idx]` of pointer parameters in the body of Loop.
  static std::map<Key, std::vector<const AccessInfo *>>
  readsIn(const ForStmt *Loop, const KernelInfo &K, ASTContext &AC) {
    std::map<Key, std::vector<const AccessInfo *>> R;
    const SourceManager &SM = AC.getSourceManager();
    for (const AccessInfo &A : K.Accesses) {
      if (A.K != AccessInfo::Load || !A.Expr ||
          !contains(Loop->getBody()->getSourceRange(), A.Expr->getBeginLoc(),
                    SM))
        continue;
      R[Key{A.BaseDecl, withoutSpaces(A.Index)}].push_back(&A);
    }
    return R;
  }

  /// Why the kernel's reads through P cannot be cached, or "".
  static std::string checkPointer(const ParmVarDecl *P, const KernelInfo &K,
                                  ASTContext &AC) {
    std::string Name = P->getNameAsString();
    const ParamInfo *PI = K.param(Name);
    size_t Reads = 0;
    for (const AccessInfo &A : K.Accesses) {
      if (A.BaseDecl != P)
        continue;
      if (A.K == AccessInfo::AddressOf)
        return "the address of an element of '" + Name + "' is taken (at " +
               str(A.Loc) + ")";
      if (A.K != AccessInfo::Load)
        return "'" + Name + "' is written (at " + str(A.Loc) + ")";
      ++Reads;
    }
    if (countReferences(K.Decl->getBody(), P) != Reads)
      return "'" + Name + "' is used other than by reading '" + Name + "[...]'";
    QualType Pointee = P->getType()->getPointeeType();
    if (Pointee.isVolatileQualified())
      return "'" + Name + "' points to volatile data";
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

  //===--------------------------------------------------------------------===//
  // Sizing
  //===--------------------------------------------------------------------===//

  /// The largest value the bound can have when Loop runs: a constant bound,
  /// or a guard `if (n > C) return;` (or `n >= C`, `C < n`, `C <= n`, also
  /// as one operand of `||`) among the kernel's top-level statements before
  /// Loop.
  static std::optional<int64_t>
  staticBound(const ForStmt *Loop, const KernelInfo &K, ASTContext &AC) {
    const Expr *Bound = matchCountedLoop(Loop)->Bound;
    if (std::optional<int64_t> C = evaluateInt(Bound, AC, nullptr))
      return *C;
    const VarDecl *V = referencedVar(Bound);
    const auto *Body = dyn_cast<CompoundStmt>(K.Decl->getBody());
    if (!V || !Body)
      return std::nullopt;
    const SourceManager &SM = AC.getSourceManager();
    std::optional<int64_t> Best;
    std::function<void(const Expr *)> Guard = [&](const Expr *Cond) {
      Cond = Cond->IgnoreParenImpCasts();
      const auto *B = dyn_cast<BinaryOperator>(Cond);
      if (!B)
        return;
      if (B->getOpcode() == BO_LOr) {
        Guard(B->getLHS());
        Guard(B->getRHS());
        return;
      }
      const Expr *Var = B->getLHS(), *Lim = B->getRHS();
      BinaryOperatorKind Op = B->getOpcode();
      if (Op == BO_LT || Op == BO_LE) { // C < n  is  n > C
        std::swap(Var, Lim);
        Op = Op == BO_LT ? BO_GT : BO_GE;
      }
      if ((Op != BO_GT && Op != BO_GE) || referencedVar(Var) != V)
        return;
      std::optional<int64_t> C = evaluateInt(Lim, AC, nullptr);
      if (!C)
        return;
      int64_t Max = Op == BO_GT ? *C : *C - 1;
      if (!Best || Max < *Best)
        Best = Max;
    };
    for (const Stmt *S : Body->body()) {
      if (!SM.isBeforeInTranslationUnit(S->getBeginLoc(), Loop->getBeginLoc()))
        break;
      const auto *If = dyn_cast<IfStmt>(S);
      if (!If || If->getElse() || If->getInit() || If->getConditionVariable())
        continue;
      const Stmt *Then = If->getThen();
      if (const auto *CS = dyn_cast<CompoundStmt>(Then); CS && CS->size() == 1)
        Then = CS->body_front();
      if (isa<ReturnStmt>(Then))
        Guard(If->getCond());
    }
    return Best;
  }

  /// N for the group, or a refusal.
  std::variant<uint64_t, std::string> chooseN(PassContext &Ctx,
                                                     const KernelInfo &K,
                                                     const Group &G,
                                                     std::string &How) {
    if (std::optional<uint64_t> N = options().MaxElems) {
      if (*N == 0 || *N > MaxElems)
        return "max-elems=" + std::to_string(*N) + " is not in 1.." +
               std::to_string(MaxElems);
      How = "max-elems=" + std::to_string(*N);
      return *N;
    }
    std::optional<int64_t> Threads = Ctx.info().knownBlockSize(K);
    if (!Threads || *Threads <= 0)
      return std::string("the block size is not known (no __launch_bounds__ "
                         "and no one constant block size at the launch "
                         "sites): give max-elems");
    unsigned PerIteration = 0;
    for (const Cache &C : G.Caches)
      PerIteration += C.Registers;
    // A quarter of the register file's share of one thread of a block, and
    // at most AutoCacheRegisters: the kernel keeps its own registers and at
    // least two blocks stay resident.
    uint64_t Registers =
        std::min<uint64_t>(AutoCacheRegisters, 65536 / *Threads / 4);
    uint64_t Budget = std::max<uint64_t>(1, Registers / PerIteration);
    std::string Bound = sourceText(
        matchCountedLoop(G.A)->Bound->getSourceRange(), Ctx.deviceContext());
    if (std::optional<int64_t> Max = staticBound(G.A, K, Ctx.deviceContext())) {
      uint64_t Need = *Max <= 0 ? 1 : (*Max + *Threads - 1) / *Threads;
      if (Need <= Budget) {
        bool Constant = evaluateInt(matchCountedLoop(G.A)->Bound,
                                    Ctx.deviceContext(), nullptr)
                            .has_value();
        How = (Constant ? "auto: the bound is " + std::to_string(*Max)
                        : "auto: '" + Bound + "' is at most " +
                              std::to_string(*Max)) +
              " and blocks have " + std::to_string(*Threads) + " threads";
        return Need;
      }
      How = "auto: " + std::to_string(Registers) + " registers for " +
            std::to_string(*Threads) + "-thread blocks; '" + Bound +
            "' up to " + std::to_string(*Max) + " would need " +
            std::to_string(Need);
      return Budget;
    }
    How = "auto: " + std::to_string(Registers) + " registers for " +
          std::to_string(*Threads) + "-thread blocks";
    return Budget;
  }

  //===--------------------------------------------------------------------===//
  // Matching
  //===--------------------------------------------------------------------===//

  /// Names already used in the kernel, so generated ones do not collide.
  static std::set<std::string> namesIn(const FunctionDecl *F) {
    std::set<std::string> Names;
    for (const ParmVarDecl *P : F->parameters())
      Names.insert(P->getNameAsString());
    std::function<void(const Stmt *)> Walk = [&](const Stmt *S) {
      if (!S)
        return;
      if (const auto *Ref = dyn_cast<DeclRefExpr>(S))
        Names.insert(Ref->getDecl()->getNameAsString());
      if (const auto *DS = dyn_cast<DeclStmt>(S))
        for (const Decl *D : DS->decls())
          if (const auto *ND = dyn_cast<NamedDecl>(D))
            Names.insert(ND->getNameAsString());
      for (const Stmt *C : S->children())
        Walk(C);
    };
    Walk(F->getBody());
    return Names;
  }

  static std::string freshName(std::set<std::string> &Used,
                               const std::string &Want) {
    std::string Name = Want;
    for (unsigned I = 2; Used.count(Name); ++I)
      Name = Want + "_" + std::to_string(I);
    Used.insert(Name);
    return Name;
  }

  /// Finds the groups of sibling loops in one compound statement.
  void matchCompound(PassContext &Ctx, const KernelInfo &K,
                     const CompoundStmt *CS, ParentMap &PM,
                     std::vector<Group> &Groups, bool &SawReRead) {
    ASTContext &AC = Ctx.deviceContext();
    std::vector<const ForStmt *> Loops;
    for (const Stmt *S : CS->body()) {
      if (const auto *AS = dyn_cast<AttributedStmt>(S))
        S = AS->getSubStmt();
      if (const auto *F = dyn_cast<ForStmt>(S))
        Loops.push_back(F);
    }
    std::set<const ForStmt *> Used;
    std::set<std::pair<const ForStmt *, std::string>> Reported;
    auto Missed = [&](const Refusal &R) {
      if (Reported.insert({nullptr, R.Message + str(R.Loc)}).second)
        Ctx.missed(K.Name, R.Loc,
                   "registers not used as a cache: " + R.Message);
    };
    for (size_t I = 0; I < Loops.size(); ++I) {
      const ForStmt *A = Loops[I];
      if (Used.count(A))
        continue;
      auto ReadsA = readsIn(A, K, AC);
      std::optional<std::optional<Refusal>> ShapeA;
      Group G;
      G.A = A;
      std::map<Key, Cache> Caches;
      for (size_t J = I + 1; J < Loops.size(); ++J) {
        const ForStmt *B = Loops[J];
        if (Used.count(B))
          continue;
        auto ReadsB = readsIn(B, K, AC);
        std::vector<Key> Shared;
        for (const auto &[Key, _] : ReadsB)
          if (ReadsA.count(Key))
            Shared.push_back(Key);
        if (Shared.empty())
          continue;
        SawReRead = true;
        const AccessInfo &First = *ReadsB[Shared.front()].front();
        auto Here = [&](const Twine &Why) {
          return Refusal{"'" + First.Base + "[" + First.Index +
                             "]' is read again at " + str(First.Loc) +
                             ", but " + Why.str(),
                         First.Loc};
        };
        if (!ShapeA)
          ShapeA = checkLoop(A, K, PM, AC);
        if (*ShapeA) {
          Missed(Here((*ShapeA)->Message));
          continue;
        }
        if (std::optional<Refusal> R = checkLoop(B, K, PM, AC)) {
          Missed(Here(R->Message));
          continue;
        }
        if (!sameBound(A, B, AC)) {
          Missed(Here("the loops at " + str(lineCol(A->getBeginLoc(), AC)) +
                      " and " + str(lineCol(B->getBeginLoc(), AC)) +
                      " have different bounds"));
          continue;
        }
        bool Any = false;
        for (const Key &KeyAB : Shared) {
          const AccessInfo &Again = *ReadsB[KeyAB].front();
          auto HereKey = [&](const Twine &Why) {
            return Refusal{"'" + Again.Base + "[" + Again.Index +
                               "]' is read again at " + str(Again.Loc) +
                               ", but " + Why.str(),
                           Again.Loc};
          };
          if (std::string W = checkPointer(KeyAB.Base, K, AC); !W.empty()) {
            Missed(HereKey(W));
            continue;
          }
          const AccessInfo *Load = nullptr;
          for (const AccessInfo *X : ReadsA[KeyAB])
            if (runsWheneverBodyRuns(X->Expr, A->getBody(), PM)) {
              Load = X;
              break;
            }
          if (Load && !exprOffsets(Load->Expr, AC)) {
            Missed(HereKey("its load at " + str(Load->Loc) +
                           " is written in a macro"));
            continue;
          }
          if (!Load) {
            Missed(HereKey("the loop at " + str(lineCol(A->getBeginLoc(), AC)) +
                           " does not load it on every iteration"));
            continue;
          }
          // The index has one value per loop variable, the same in A and B.
          std::string Why;
          std::vector<const VarDecl *> VarsA, VarsB;
          const VarDecl *VarA = matchCountedLoop(A)->Var;
          const VarDecl *VarB = matchCountedLoop(B)->Var;
          Why = checkIndex(Load->Expr->getIdx(), VarA, A, K.Decl->getBody(), PM,
                           AC, VarsA);
          for (const AccessInfo *X : ReadsB[KeyAB]) {
            if (!Why.empty())
              break;
            std::vector<const VarDecl *> Vars;
            Why = checkIndex(X->Expr->getIdx(), VarB, B, K.Decl->getBody(), PM,
                             AC, Vars);
            if (Why.empty() && Vars.size() != VarsA.size())
              Why = "different variables";
            for (size_t V = 0; Why.empty() && V < Vars.size(); ++V)
              if (!(Vars[V] == VarsA[V] ||
                    (Vars[V] == VarB && VarsA[V] == VarA)))
                Why = "different variables";
            if (Why.empty() && !exprOffsets(X->Expr, AC))
              Why = "a macro";
          }
          if (!Why.empty()) {
            Missed(HereKey("its index uses " + Why));
            continue;
          }
          if (!Caches.count(KeyAB)) {
            Cache C;
            C.K = KeyAB;
            C.BaseName = KeyAB.Base->getNameAsString();
            C.Load = Load->Expr;
            const ParamInfo *PI = K.param(C.BaseName);
            C.ElementType = PI->PointeeType;
            C.Const = PI->PointeeConst;
            uint64_t Bytes =
                AC.getTypeSizeInChars(KeyAB.Base->getType()->getPointeeType())
                    .getQuantity();
            C.Registers = std::max<uint64_t>(1, (Bytes + 3) / 4);
            Caches.emplace(KeyAB, C);
          }
          Any = true;
        }
        if (!Any)
          continue;
        G.Bs.push_back(B);
      }
      if (G.Bs.empty())
        continue;
      for (auto &[_, C] : Caches)
        G.Caches.push_back(C);
      // In the order A loads them (the map's order is by pointer value).
      const SourceManager &SM = AC.getSourceManager();
      llvm::sort(G.Caches, [&](const Cache &L, const Cache &R) {
        return SM.isBeforeInTranslationUnit(L.Load->getBeginLoc(),
                                            R.Load->getBeginLoc());
      });
      G.Bound = matchCountedLoop(A)->Bound;
      Used.insert(A);
      Used.insert(G.Bs.begin(), G.Bs.end());
      Groups.push_back(std::move(G));
    }
  }

  //===--------------------------------------------------------------------===//
  // Rewriting
  //===--------------------------------------------------------------------===//

  /// The new loop: N guarded iterations, the body with the cached reads
  /// replaced (and, for A, the loads into the cache first).
  static std::optional<std::string> cachedLoop(PassContext &Ctx, const Group &G,
                                               const ForStmt *Loop, bool IsA,
                                               StringRef Indent) {
    ASTContext &AC = Ctx.deviceContext();
    StringRef Code = Ctx.source().Code;
    CountedLoop CL = *matchCountedLoop(Loop);
    PrintingPolicy PP(AC.getLangOpts());
    PP.SuppressTagKeyword = true;
    std::string VarType =
        CL.Var->getType().getUnqualifiedType().getAsString(PP);
    std::string Cond = sourceText(Loop->getCond()->getSourceRange(), AC);
    std::string In = Indent.str();
    std::string Out;
    Out += "if (" + G.Flag + ") {\n";
    Out += In + "  #pragma unroll\n";
    Out += In + "  for (int kopt_k = 0; kopt_k < " + std::to_string(G.N) +
           "; ++kopt_k) {\n";
    Out += In + "    " + VarType + " " + CL.Var->getNameAsString() +
           " = threadIdx.x + kopt_k * blockDim.x;\n";
    Out += In + "    if (" + Cond + ") {\n";
    std::string Inner = In + "      ";
    for (const Cache &C : G.Caches) {
      if (IsA)
        Out += Inner + C.Storage +
               "[kopt_k] = " + sourceText(C.Load->getSourceRange(), AC) + ";\n";
      Out += Inner + (C.Const ? "const " : "") + C.ElementType + " &" + C.View +
             " = " + C.Storage + "[kopt_k];\n";
    }
    // The body with every cached read replaced by its view.
    const Stmt *Body = Loop->getBody();
    std::optional<std::pair<unsigned, unsigned>> BR = stmtOffsets(Body, AC);
    if (!BR)
      return std::nullopt;
    unsigned Begin = BR->first, End = BR->second;
    bool Unwrap = false;
    if (isa<CompoundStmt>(Body)) {
      // `{` then a line break: copy the statements without the braces.
      size_t NL = Code.find_first_not_of(" \t", Begin + 1);
      if (NL != StringRef::npos && NL < End && Code[NL] == '\n') {
        Begin = NL + 1;
        End = End - 1; // before the `}`
        Unwrap = true;
      }
    }
    std::vector<std::tuple<unsigned, unsigned, std::string>> Repl;
    std::function<void(const Stmt *)> Walk = [&](const Stmt *S) {
      if (!S)
        return;
      if (const auto *E = dyn_cast<ArraySubscriptExpr>(S)) {
        const auto *Ref =
            dyn_cast<DeclRefExpr>(E->getBase()->IgnoreParenImpCasts());
        for (const Cache &C : G.Caches)
          if (Ref && Ref->getDecl() == C.K.Base &&
              withoutSpaces(sourceText(E->getIdx()->getSourceRange(), AC)) ==
                  C.K.Index) {
            std::optional<std::pair<unsigned, unsigned>> R = exprOffsets(E, AC);
            if (R)
              Repl.emplace_back(R->first, R->second - R->first, C.View);
            return;
          }
      }
      for (const Stmt *Ch : S->children())
        Walk(Ch);
    };
    Walk(Body);
    std::string Text = splice(Code, Begin, End, Repl);
    if (Unwrap) {
      StringRef T = StringRef(Text).rtrim();
      // The statements keep their indentation relative to the loop, four
      // columns deeper.
      Out += "    " + reindent(T, "    ") + "\n";
    } else {
      Out += Inner + reindent(StringRef(Text).trim(), "    ") + "\n";
    }
    Out += In + "    }\n";
    Out += In + "  }\n";
    Out += In + "} else {\n";
    std::optional<std::pair<unsigned, unsigned>> LR = stmtOffsets(Loop, AC);
    if (!LR)
      return std::nullopt;
    Out += In + "  " + reindent(Code.slice(LR->first, LR->second), "  ") + "\n";
    Out += In + "}";
    return Out;
  }

  void planKernel(PassContext &Ctx, const KernelInfo &K, EditSet &Edits,
                  std::vector<std::pair<LineCol, std::string>> &Remarks) {
    ASTContext &AC = Ctx.deviceContext();
    if (!K.Decl || !K.Decl->getBody())
      return;
    if (K.IsTemplate) {
      Ctx.missed(K.Name, K.Loc,
                 "registers not used as a cache: template kernels are not "
                 "handled");
      return;
    }
    ParentMap PM(K.Decl->getBody());
    std::vector<Group> Groups;
    bool SawReRead = false;
    std::function<void(const Stmt *)> Walk = [&](const Stmt *S) {
      if (!S)
        return;
      if (const auto *CS = dyn_cast<CompoundStmt>(S))
        matchCompound(Ctx, K, CS, PM, Groups, SawReRead);
      for (const Stmt *C : S->children())
        Walk(C);
    };
    Walk(K.Decl->getBody());
    if (Groups.empty()) {
      if (!SawReRead)
        Ctx.missed(K.Name, K.Loc,
                   "registers not used as a cache: no global element read "
                   "by a loop is read again by a later loop of the same "
                   "compound statement");
      return;
    }
    std::set<std::string> Names = namesIn(K.Decl);
    if (Names.count("kopt_k")) {
      Ctx.missed(K.Name, K.Loc,
                 "registers not used as a cache: the kernel already uses "
                 "the name 'kopt_k'");
      return;
    }
    StringRef Code = Ctx.source().Code;
    for (Group &G : Groups) {
      LineCol Loc = lineCol(G.A->getBeginLoc(), AC);
      std::variant<uint64_t, std::string> N = chooseN(Ctx, K, G, G.HowN);
      if (auto *Why = std::get_if<std::string>(&N)) {
        Ctx.missed(K.Name, Loc, "registers not used as a cache: " + *Why);
        continue;
      }
      G.N = std::get<uint64_t>(N);
      G.Flag = freshName(Names, "kopt_cached");
      for (Cache &C : G.Caches) {
        C.Storage = freshName(Names, "kopt_cache_" + C.BaseName);
        C.View = freshName(Names, "kopt_" + C.BaseName);
      }
      EditSet GroupEdits(Ctx.source().Path);
      bool Ok = true;
      std::vector<const ForStmt *> Loops{G.A};
      Loops.insert(Loops.end(), G.Bs.begin(), G.Bs.end());
      for (const ForStmt *Loop : Loops) {
        std::optional<std::pair<unsigned, unsigned>> R = stmtOffsets(Loop, AC);
        std::string Indent = R ? indentAt(Code, R->first) : "";
        std::optional<std::string> Text =
            R ? cachedLoop(Ctx, G, Loop, Loop == G.A, Indent) : std::nullopt;
        if (!Text) {
          Ok = false;
          break;
        }
        std::string Prefix;
        if (Loop == G.A) {
          for (const Cache &C : G.Caches)
            Prefix += C.ElementType + " " + C.Storage + "[" +
                      std::to_string(G.N) + "];\n" + Indent;
          Prefix += "const bool " + G.Flag + " = " +
                    sourceText(G.Bound->getSourceRange(), AC) +
                    " <= " + std::to_string(G.N) + " * blockDim.x;\n" + Indent;
        }
        if (Error E = GroupEdits.replaceChars(R->first, R->second - R->first,
                                              Prefix + *Text)) {
          consumeError(std::move(E));
          Ok = false;
          break;
        }
      }
      if (!Ok || GroupEdits.empty()) {
        Ctx.missed(K.Name, Loc,
                   "registers not used as a cache: the loops could not be "
                   "rewritten");
        continue;
      }
      if (Error E = Edits.merge(GroupEdits)) {
        Ctx.missed(K.Name, Loc,
                   "registers not used as a cache: " + toString(std::move(E)));
        continue;
      }
      std::string What;
      for (const Cache &C : G.Caches)
        What += (What.empty() ? "'" : ", '") +
                sourceText(C.Load->getSourceRange(), AC) + "'";
      std::string Again;
      for (const ForStmt *B : G.Bs)
        Again +=
            (Again.empty() ? "" : ", ") + str(lineCol(B->getBeginLoc(), AC));
      std::string Bound = sourceText(G.Bound->getSourceRange(), AC);
      Remarks.emplace_back(Loc, "kept " + What + " in registers for the loop" +
                                    (G.Bs.size() > 1 ? "s" : "") + " at " +
                                    Again + ": " + std::to_string(G.N) +
                                    " elements per thread (" + G.HowN + "); '" +
                                    Bound + "' above " + std::to_string(G.N) +
                                    " * blockDim.x takes the original loops");
    }
  }

  //===--------------------------------------------------------------------===//
  // Resource check
  //===--------------------------------------------------------------------===//

  /// Asks the estimator about the input and the rewrite; refuses (into
  /// Refused) every kernel whose rewrite adds stack frame or spills.
  void checkResources(PassContext &Ctx,
                      std::map<std::string, EditSet> &PerKernel,
                      std::set<std::string> &Refused) {
    auto RefuseAll = [&](const Twine &Why) {
      for (auto &[Name, _] : PerKernel) {
        Refused.insert(Name);
        Ctx.missed(Name, Ctx.info().kernel(Name)->Loc,
                   "registers not used as a cache: " + Why);
      }
    };
    ResourceEstimator *Estimator = Ctx.estimator();
    if (!Estimator) {
      RefuseAll("cannot check for spills: this tool has no resource "
                "estimator (check-resources=false skips the check)");
      return;
    }
    if (std::optional<std::string> Why = Estimator->unavailable()) {
      RefuseAll("cannot check for spills: " + *Why +
                " (check-resources=false skips the check)");
      return;
    }
    EditSet All(Ctx.source().Path);
    for (auto &[Name, Edits] : PerKernel)
      if (Error E = All.merge(Edits)) {
        RefuseAll(toString(std::move(E)));
        return;
      }
    StringRef Code = Ctx.source().Code;
    Expected<std::string> NewCode = All.apply(Code);
    if (!NewCode) {
      RefuseAll(toString(NewCode.takeError()));
      return;
    }
    StringRef Path = Ctx.source().Path;
    StringRef Arch = Ctx.info().GpuArch;
    Expected<ResourceReport> Before = Estimator->estimate(Path, Code, Arch);
    if (!Before) {
      RefuseAll("cannot check for spills: the input does not compile: " +
                toString(Before.takeError()));
      return;
    }
    Expected<ResourceReport> After = Estimator->estimate(Path, *NewCode, Arch);
    if (!After) {
      RefuseAll("the rewrite does not compile: " +
                toString(After.takeError()));
      return;
    }
    for (auto &[Name, _] : PerKernel) {
      const KernelResources *B = Before->kernel(Name);
      const KernelResources *A = After->kernel(Name);
      LineCol Loc = Ctx.info().kernel(Name)->Loc;
      if (!B || !A) {
        Refused.insert(Name);
        Ctx.missed(Name, Loc,
                   "registers not used as a cache: ptxas reported no "
                   "resources for the kernel");
        continue;
      }
      if (A->StackFrameBytes > B->StackFrameBytes ||
          A->SpillStoreBytes > B->SpillStoreBytes ||
          A->SpillLoadBytes > B->SpillLoadBytes) {
        Refused.insert(Name);
        Ctx.missed(Name, Loc,
                   "registers not used as a cache: the rewrite uses local "
                   "memory (ptxas: " +
                       Twine(A->StackFrameBytes) + " bytes stack frame, " +
                       Twine(A->SpillStoreBytes) + " bytes spill stores, " +
                       Twine(A->SpillLoadBytes) +
                       " bytes spill loads; the "
                       "input: " +
                       Twine(B->StackFrameBytes) + ", " +
                       Twine(B->SpillStoreBytes) + ", " +
                       Twine(B->SpillLoadBytes) + "): lower max-elems");
        continue;
      }
      ResourceNote[Name] = "; ptxas: " + std::to_string(B->Registers) + " -> " +
                           std::to_string(A->Registers) +
                           " registers, no local memory";
    }
  }
};

} // namespace

std::unique_ptr<Pass> createRegisterCachePass() {
  return std::make_unique<RegisterCachePass>();
}

} // namespace kopt
