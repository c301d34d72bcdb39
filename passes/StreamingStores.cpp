//===- StreamingStores.cpp - __stcs for outputs the kernel never reads ---===//
//
// A plain store allocates its line in L2 with normal priority; an output the
// kernel writes and never reads back gains nothing from staying there and
// pushes out lines that inputs could reuse. `__stcs` (st.global.cs) stores
// with the evict-first policy. It is a cache hint: the value written and the
// memory ordering are those of a plain store, so the rewrite cannot change a
// result, only time; the pass therefore only decides where it is plausible
// and where it is expressible.
//
// A pointer parameter is a streaming output when every use of it in the
// kernel is either
//   * the target of a plain `=` through `p[i]` or `*p` (also through casts,
//     such as vectorize-loads' `reinterpret_cast<float4 *>(p)[i]`), or
//   * a conversion of the pointer value to an integer (alignment checks);
// casts and offsets on the way (`(out + row * cols)[j]`) are followed.
// Any read of its memory, compound assignment, or escape (passed to a
// function, offset into another pointer) keeps the plain stores: the kernel
// or its callee may read the data back. Each store must be a statement of
// its own (its value unused) of an element type `__stcs` has an overload
// for, with the right-hand side of that same type for class types (`__half`
// has no implicit conversion to rely on).
//
//===----------------------------------------------------------------------===//

#include "CacheHints.h"
#include "Options.h"
#include "kopt/Analysis/ControlFlow.h"
#include "kopt/Pass/Pass.h"

#include "clang/AST/ParentMap.h"

using namespace clang;
using namespace llvm;

namespace kopt {

namespace {

/// One statement `p[i] = v;` (or `*p = v;`) the pass may rewrite.
struct Store {
  const Expr *Assign;  ///< the whole assignment
  const Expr *Element; ///< p[i] or *p
  const Expr *Value;   ///< v, as written
};

/// How a pointer parameter is used: its stores, or why it is not a
/// streaming output.
struct OutputUses {
  std::vector<Store> Stores;
  std::string NotStreaming; ///< empty: every use is a store or an int cast
  LineCol Where;
};

class StreamingStoresPass : public KernelPass<StreamingStoresOptions> {
  bool rewritesInstances() const override { return true; }

  /// `__stcs(&p[i], v)`: a store this pass (or the user) already made.
  static bool isStreamedAlready(const UnaryOperator *Addr, ParentMap &Parents) {
    const Stmt *P =
        Parents.getParentIgnoreParenImpCasts(const_cast<UnaryOperator *>(Addr));
    const auto *Call = dyn_cast_or_null<CallExpr>(P);
    const FunctionDecl *F = Call ? Call->getDirectCallee() : nullptr;
    return F && F->getIdentifier() && F->getName() == "__stcs" &&
           Call->getNumArgs() == 2 &&
           Call->getArg(0)->IgnoreParenImpCasts() == Addr;
  }

  static OutputUses classify(const ParmVarDecl *P, const Stmt *Body,
                             ParentMap &Parents, ASTContext &AC) {
    OutputUses Uses;
    auto Refuse = [&](const Stmt *At, StringRef Why) {
      if (Uses.NotStreaming.empty()) {
        Uses.NotStreaming = Why.str();
        Uses.Where = lineCol(At->getBeginLoc(), AC);
      }
    };
    auto Classify = [&](const DeclRefExpr *Ref) {
      {
        PointerUse PU = followPointerUse(Ref, Parents);
        // An address as a number (alignment checks) reads no memory.
        if (PU.K == PointerUse::Number)
          return;
        if (PU.K == PointerUse::Escape) {
          Refuse(Ref, "escapes (it is passed on or offset into another "
                      "pointer)");
          return;
        }
        const Expr *Element = PU.Element;
        const Stmt *Outer =
            Parents.getParentIgnoreParens(const_cast<Expr *>(Element));
        if (const auto *Addr = dyn_cast_or_null<UnaryOperator>(Outer);
            Addr && Addr->getOpcode() == UO_AddrOf) {
          if (!isStreamedAlready(Addr, Parents))
            Refuse(Element, "has an element whose address is taken");
          return;
        }
        std::optional<WriteOf> W = writeOf(Outer);
        if (!W || W->Target->IgnoreParens() != Element) {
          Refuse(Element, "is also read");
          return;
        }
        if (!W->Plain) {
          Refuse(Element, "is updated in place (read and written)");
          return;
        }
        const Expr *Assign = cast<Expr>(Outer);
        const Expr *Value = isa<BinaryOperator>(Assign)
                                ? cast<BinaryOperator>(Assign)->getRHS()
                                : cast<CXXOperatorCallExpr>(Assign)->getArg(1);
        Uses.Stores.push_back({Assign, Element, Value});
        // The index may itself use other pointers; P cannot occur in it
        // without being counted as a read below.
      }
    };
    for (const DeclRefExpr *Ref : referencesTo(Body, P, AC))
      Classify(Ref);
    return Uses;
  }

  void runOnKernel(KernelContext &KC) override {
    PassContext &Ctx = KC.pass();
    const KernelInfo &K = KC.kernel();
    if (!K.Decl || !K.Decl->getBody())
      return;
    ASTContext &AC = Ctx.deviceContext();
    const Stmt *Body = K.Decl->getBody();
    ParentMap Parents(const_cast<Stmt *>(Body));
    for (const ParamInfo &P : K.Params) {
      if (!P.IsPointer || !P.Decl)
        continue;
      OutputUses Uses = classify(P.Decl, Body, Parents, AC);
      if (Uses.Stores.empty()) {
        // Stores a callee makes through it are not visible here.
        if (!P.PointeeConst && !Uses.NotStreaming.empty())
          Ctx.missed(K.Name, Uses.Where,
                     "'" + P.Name + "' not streamed: it " + Uses.NotStreaming);
        continue;
      }
      if (!Uses.NotStreaming.empty()) {
        Ctx.missed(K.Name, Uses.Where,
                   "stores to '" + P.Name + "' not streamed: '" + P.Name +
                       "' " + Uses.NotStreaming);
        continue;
      }
      for (const Store &S : Uses.Stores)
        rewrite(Ctx, K, P, S, Parents);
    }
  }

  static void rewrite(PassContext &Ctx, const KernelInfo &K, const ParamInfo &P,
                      const Store &S, ParentMap &Parents) {
    ASTContext &AC = Ctx.deviceContext();
    LineCol Loc = lineCol(S.Assign->getBeginLoc(), AC);
    QualType ElementType = S.Element->getType();
    auto Missed = [&](const Twine &Why) {
      Ctx.missed(K.Name, Loc, "store to '" + P.Name + "' not streamed: " + Why);
    };
    if (!hasCacheHintOverload(ElementType)) {
      Missed("__stcs has no overload for '" + ElementType.getAsString() + "'");
      return;
    }
    if (!isDiscardedStatement(S.Assign, Parents)) {
      Missed("the value of the assignment is used");
      return;
    }
    const Expr *Value = S.Value->IgnoreImplicit();
    if (ElementType->isRecordType() &&
        !AC.hasSameUnqualifiedType(Value->getType(), ElementType)) {
      Missed("the stored value is a '" + Value->getType().getAsString() +
             "', not a '" + ElementType.getAsString() + "'");
      return;
    }
    if (!isRewritable(S.Assign->getSourceRange(), AC)) {
      Missed("it is written in a macro");
      return;
    }
    std::string Element = sourceText(S.Element->getSourceRange(), AC);
    std::string Stored = sourceText(S.Value->getSourceRange(), AC);
    if (Element.empty() || Stored.empty()) {
      Missed("its source text is not available");
      return;
    }
    if (Error E = Ctx.edits().replace(
            S.Assign->getSourceRange(),
            "__stcs(&" + Element + ", " + Stored + ")", AC)) {
      Missed(toString(std::move(E)));
      return;
    }
    Ctx.applied(K.Name, Loc,
                "store to '" + P.Name + "' streamed with __stcs (evict-first)");
  }
};

} // namespace

std::unique_ptr<Pass> createStreamingStoresPass() {
  return std::make_unique<StreamingStoresPass>();
}

} // namespace kopt
