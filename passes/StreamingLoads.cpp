//===- StreamingLoads.cpp - __ldcs for inputs each element of which is read once
//
// A plain load allocates its line in L2 with normal priority. In a
// memory-bound kernel that reads each element of an input once (a row of a
// reduction, an element-wise operand), those lines are never used again and
// push out lines that other data could reuse; right after a large write
// (an earlier kernel's output, or the evaluator's L2 flush) they also
// compete with the write-backs of dirty lines. `__ldcs` (ld.global.cs) loads
// with the evict-first policy. It is a cache hint: the value read and the
// memory ordering are those of a plain load (unlike `__ldg`, it does not
// assume the data is read-only), so the rewrite cannot change a result, only
// time. On an H100 it is what took a hand-written bf16 row sum from 64% to
// 77% of the copy bandwidth (docs/passes/streaming-loads.md).
//
// A pointer parameter is streamed when every use of it in the kernel reads
// an element through `p[i]` or `*p` (also through casts and offsets, such
// as vectorize-loads' `reinterpret_cast<const uint4 *>(x + row * cols)[v]`)
// or converts the pointer to an integer (alignment checks), and each such
// read
//   * depends on blockIdx (through the index, the offset or the locals they
//     read): an element every block reads (`gamma[j]`) is reused across
//     blocks and stays cached;
//   * is not read again: no other read of the same element text may run
//     in the same thread (reads on the two sides of an if/else, such as
//     vectorize-loads' vector loop and the original it keeps, do not
//     count): a row read twice should stay in L2 (or in registers:
//     register-cache);
//   * is contiguous across threads (`p[i]` with i moving by one from a
//     thread to the next): a warp then consumes whole lines at once,
//     where a thread-per-row walk (`A[row * n + j]`) reads each line over
//     several iterations and needs it kept (matvec_f32 ran 4% slower with
//     the hint on its strided loads);
//   * is of an element type `__ldcs` has an overload for, and used as a
//     value (not bound to a reference).
// A pointer that is also written, escapes, or has an element whose address
// is taken keeps its plain loads. With reductions-only=true (what -O runs)
// only kernels whose every store to a pointer parameter lies under
// `if (threadIdx.x == 0)` are rewritten: where the hint was measured
// faster (row sums, argmax), not where a row is written back (rmsnorm,
// layernorm: 0.89x, 0.92x).
//
//===----------------------------------------------------------------------===//

#include "CacheHints.h"
#include "Options.h"
#include "kopt/Analysis/IndexClassifier.h"
#include "kopt/Analysis/ReductionTree.h"
#include "kopt/Pass/Pass.h"

#include "clang/AST/ParentMap.h"

#include <map>

using namespace clang;
using namespace llvm;

namespace kopt {

namespace {

/// True when E, or the initializer of a local it reads, mentions blockIdx
/// (or the locals nest too deep to tell).
bool mentionsBlockIdx(const Expr *E, const Stmt *Scope, unsigned Depth = 0) {
  if (Depth > 16)
    return true;
  bool Found = false;
  forEachSubStmt(E, [&](const Stmt *S) {
    const auto *X = dyn_cast<Expr>(S);
    if (!X || Found)
      return;
    if (std::optional<BuiltinRef> B = matchBuiltin(X);
        B && B->Var == BuiltinVar::BlockIdx)
      Found = true;
    else if (isa<DeclRefExpr>(X) && followLocalInit(X, Scope) != X)
      Found = mentionsBlockIdx(followLocalInit(X, Scope), Scope, Depth + 1);
    else if (const VarDecl *V = referencedVar(X);
             V && V->hasLocalStorage() && V->getInit() && !isa<ParmVarDecl>(V))
      // A loop counter: where it starts (`i = blockIdx.x * blockDim.x +
      // threadIdx.x` of a grid-stride loop).
      Found = mentionsBlockIdx(V->getInit(), Scope, Depth + 1);
  });
  return Found;
}

/// One read `p[i]` (or `*p`) the pass may rewrite, and the expression from
/// the parameter up to it (casts and offsets included).
struct Read {
  const Expr *Element;
  const Expr *Pointer;
};

struct InputUses {
  std::vector<Read> Reads;
  std::string NotStreaming; ///< empty: every use is a read or an int cast
  LineCol Where;
};

class StreamingLoadsPass : public KernelPass<StreamingLoadsOptions> {
  bool rewritesInstances() const override { return true; }

  /// `__ldcs(&p[i])`: a load this pass (or the user) already made.
  static bool isStreamedAlready(const UnaryOperator *Addr, ParentMap &Parents) {
    const Stmt *P =
        Parents.getParentIgnoreParenImpCasts(const_cast<UnaryOperator *>(Addr));
    const auto *Call = dyn_cast_or_null<CallExpr>(P);
    const FunctionDecl *F = Call ? Call->getDirectCallee() : nullptr;
    return F && F->getIdentifier() && F->getName() == "__ldcs" &&
           Call->getNumArgs() == 1;
  }

  /// The element is read as a value: converted to an rvalue (scalars) or
  /// copied by its class's copy or move constructor (`float4 v = p[i];`,
  /// a `__nv_bfloat16` passed by value), through no-op casts.
  static bool isValueUse(const Expr *Element, const Stmt *Outer,
                         ParentMap &Parents) {
    const Stmt *From = Element;
    while (const auto *C = dyn_cast_or_null<ImplicitCastExpr>(Outer)) {
      if (C->getCastKind() == CK_LValueToRValue)
        return true;
      if (C->getCastKind() != CK_NoOp)
        return false;
      From = C;
      Outer = Parents.getParentIgnoreParens(const_cast<ImplicitCastExpr *>(C));
    }
    while (isa_and_nonnull<MaterializeTemporaryExpr>(Outer)) {
      From = Outer;
      Outer = Parents.getParentIgnoreParens(const_cast<Stmt *>(Outer));
    }
    if (const auto *Construct = dyn_cast_or_null<CXXConstructExpr>(Outer))
      return Construct->getNumArgs() == 1 &&
             Construct->getConstructor()->isCopyOrMoveConstructor();
    // `cache[k] = p[i]` for a class type: its copy or move assignment.
    if (const auto *Call = dyn_cast_or_null<CXXOperatorCallExpr>(Outer)) {
      const auto *M = dyn_cast_or_null<CXXMethodDecl>(Call->getDirectCallee());
      return M &&
             (M->isCopyAssignmentOperator() || M->isMoveAssignmentOperator()) &&
             Call->getNumArgs() == 2 &&
             Call->getArg(1)->IgnoreParenImpCasts() ==
                 cast<Expr>(From)->IgnoreParenImpCasts();
    }
    return false;
  }

  /// The read's index moves by one element from a thread to the next
  /// (vector elements included), so a warp consumes whole lines at once: a
  /// thread-per-row walk (`A[row * n + j]`) reads each line over several
  /// iterations and needs it kept.
  static bool isContiguous(const Read &R, const FunctionDecl *Kernel,
                           ASTContext &AC) {
    const auto *Sub = dyn_cast<ArraySubscriptExpr>(R.Element);
    if (!Sub)
      return false;
    return classifyIndex(Sub->getIdx(), Kernel, AC).K == IndexClass::Contiguous;
  }

  /// The branch of each enclosing `if` S is in (then: true).
  static std::map<const IfStmt *, bool> branches(const Stmt *S,
                                                 ParentMap &Parents) {
    std::map<const IfStmt *, bool> Out;
    for (const Stmt *Child = S, *P = Parents.getParent(const_cast<Stmt *>(S));
         P; Child = P, P = Parents.getParent(const_cast<Stmt *>(P)))
      if (const auto *If = dyn_cast<IfStmt>(P); If && If->getCond() != Child)
        Out[If] = If->getThen() == Child;
    return Out;
  }

  /// True if another read of the same element (same text, the pointer and
  /// its offsets included) as Reads[I] may run in the same thread: one not
  /// on the other side of an if/else (vectorize-loads keeps the original
  /// loop as the else of its vector loop; register-cache its fallback).
  static bool readAgain(ArrayRef<Read> Reads, size_t I, ParentMap &Parents,
                        ASTContext &AC) {
    std::string Text =
        withoutSpaces(sourceText(Reads[I].Element->getSourceRange(), AC));
    std::map<const IfStmt *, bool> A = branches(Reads[I].Element, Parents);
    for (size_t J = 0; J < Reads.size(); ++J) {
      if (J == I || withoutSpaces(sourceText(Reads[J].Element->getSourceRange(),
                                             AC)) != Text)
        continue;
      std::map<const IfStmt *, bool> B = branches(Reads[J].Element, Parents);
      bool Exclusive = llvm::any_of(A, [&](const auto &Entry) {
        auto It = B.find(Entry.first);
        return It != B.end() && It->second != Entry.second;
      });
      if (!Exclusive)
        return true;
    }
    return false;
  }

  static InputUses classify(const ParmVarDecl *P, const Stmt *Body,
                            ParentMap &Parents, ASTContext &AC) {
    InputUses Uses;
    auto Refuse = [&](const Stmt *At, StringRef Why) {
      if (Uses.NotStreaming.empty()) {
        Uses.NotStreaming = Why.str();
        Uses.Where = lineCol(At->getBeginLoc(), AC);
      }
    };
    for (const DeclRefExpr *Ref : referencesTo(Body, P, AC)) {
      PointerUse PU = followPointerUse(Ref, Parents);
      if (PU.K == PointerUse::Number) // an alignment check reads no memory
        continue;
      if (PU.K == PointerUse::Escape) {
        Refuse(Ref, "escapes (it is passed on or offset into another pointer)");
        continue;
      }
      const Expr *Element = PU.Element;
      const Stmt *Outer =
          Parents.getParentIgnoreParens(const_cast<Expr *>(Element));
      if (const auto *Addr = dyn_cast_or_null<UnaryOperator>(Outer);
          Addr && Addr->getOpcode() == UO_AddrOf) {
        if (!isStreamedAlready(Addr, Parents))
          Refuse(Element, "has an element whose address is taken");
        continue;
      }
      if (std::optional<WriteOf> W = writeOf(Outer);
          W && W->Target->IgnoreParens() == Element) {
        Refuse(Element, "is written");
        continue;
      }
      if (!isValueUse(Element, Outer, Parents)) {
        Refuse(Element, "has an element used other than as a value");
        continue;
      }
      Uses.Reads.push_back({Element, PU.Pointer});
    }
    return Uses;
  }

  /// Why not every global store of K runs in one thread of a block (under
  /// `if (threadIdx.x == 0)`, `t == 0` with t a local threadIdx.x), or
  /// nothing when they all do.
  static std::optional<std::string> whyNotOneThreadStores(const KernelInfo &K,
                                                          ParentMap &Parents,
                                                          ASTContext &AC) {
    const Stmt *Body = K.Decl->getBody();
    auto IsZero = [&](const Expr *E) {
      std::optional<int64_t> V = evaluateInt(E, AC, Body);
      return V && *V == 0;
    };
    auto IsThreadZero = [&](const Expr *Cond) {
      const auto *B = dyn_cast<BinaryOperator>(Cond->IgnoreParenImpCasts());
      return B && B->getOpcode() == BO_EQ &&
             ((isThreadIdxX(B->getLHS(), Body) && IsZero(B->getRHS())) ||
              (isThreadIdxX(B->getRHS(), Body) && IsZero(B->getLHS())));
    };
    bool Any = false;
    for (const AccessInfo &A : K.Accesses) {
      if (!A.writes() && A.K != AccessInfo::AddressOf)
        continue;
      Any = true;
      bool Guarded = false;
      for (const Stmt *Child = A.Expr, *P = Parents.getParent(A.Expr);
           P && !Guarded; Child = P, P = Parents.getParent(P))
        if (const auto *If = dyn_cast<IfStmt>(P))
          Guarded = If->getThen() == Child && IsThreadZero(If->getCond());
      if (!Guarded)
        return "the store to '" + A.Base + "[" + A.Index + "]' at " +
               str(A.Loc) +
               " is not under 'if (threadIdx.x == 0)': the kernel writes "
               "as it reads (reductions-only=true streams reductions)";
    }
    if (!Any)
      return std::string("the kernel has no store to a pointer parameter "
                         "(reductions-only=true streams reductions)");
    return std::nullopt;
  }

  void runOnKernel(KernelContext &KC) override {
    const KernelInfo &K = KC.kernel();
    ASTContext &AC = KC.deviceContext();
    const Stmt *Body = K.Decl->getBody();
    ParentMap Parents(const_cast<Stmt *>(Body));
    if (options().ReductionsOnly)
      if (std::optional<std::string> Why =
              whyNotOneThreadStores(K, Parents, AC)) {
        KC.missed("loads not streamed: " + *Why);
        return;
      }
    for (const ParamInfo &P : K.Params) {
      if (!P.IsPointer || !P.Decl)
        continue;
      InputUses Uses = classify(P.Decl, Body, Parents, AC);
      // A pointer never read through is no input (an output: no remark).
      if (Uses.Reads.empty() && !P.PointeeConst)
        continue;
      if (!Uses.NotStreaming.empty()) {
        KC.missed(Uses.Where, "loads of '" + P.Name + "' not streamed: '" +
                                  P.Name + "' " + Uses.NotStreaming);
        continue;
      }
      auto Missed = [&](LineCol At, const Twine &Why) {
        KC.missed(At, "load of '" + P.Name + "' not streamed: " + Why);
      };
      // Each read on its own: one that another read of the same element
      // may follow or precede stays cached, and so does one that every
      // block may make (no blockIdx in it: `gamma[j]`, a tail loop's
      // elements).
      for (size_t I = 0; I < Uses.Reads.size(); ++I) {
        const Read &R = Uses.Reads[I];
        LineCol At = lineCol(R.Element->getBeginLoc(), AC);
        if (readAgain(Uses.Reads, I, Parents, AC))
          Missed(At, "the element is read again (keep it cached)");
        else if (!mentionsBlockIdx(R.Element, Body))
          Missed(At, "its index does not depend on blockIdx, so every block "
                     "may read the same elements");
        else if (!isContiguous(R, K.Decl, AC))
          Missed(At, "its index is not contiguous across threads, so a "
                     "cache line serves more than one load");
        else
          rewrite(KC, P, R);
      }
    }
  }

  static void rewrite(KernelContext &KC, const ParamInfo &P, const Read &R) {
    ASTContext &AC = KC.deviceContext();
    LineCol Loc = lineCol(R.Element->getBeginLoc(), AC);
    QualType T = R.Element->getType();
    auto Missed = [&](const Twine &Why) {
      KC.missed(Loc, "load of '" + P.Name + "' not streamed: " + Why);
    };
    if (!hasCacheHintOverload(T))
      return Missed("__ldcs has no overload for '" + T.getAsString() + "'");
    if (!isRewritable(R.Element->getSourceRange(), AC))
      return Missed("it is written in a macro");
    std::string Text = sourceText(R.Element->getSourceRange(), AC);
    if (Text.empty())
      return Missed("its source text is not available");
    if (Error E = KC.edits().replace(R.Element->getSourceRange(),
                                     "__ldcs(&" + Text + ")", AC))
      return Missed(toString(std::move(E)));
    KC.applied(Loc, "load of '" + P.Name +
                        "' streamed with __ldcs (evict-first): each element "
                        "is read once");
  }
};

} // namespace

std::unique_ptr<Pass> createStreamingLoadsPass() {
  return std::make_unique<StreamingLoadsPass>();
}

} // namespace kopt
