//===- BlockSizeLegality.cpp - Code that runs with any block size ---------===//
//
// The rules of BlockSizeLegality.h, read off the kernel and the device
// functions it calls.
//
//===----------------------------------------------------------------------===//

#include "BlockSizeLegality.h"
#include "kopt/Analysis/Mutation.h"
#include "kopt/Analysis/ReductionTree.h"

#include "clang/AST/ParentMap.h"
#include "clang/AST/TypeLoc.h"
#include "clang/Analysis/CallGraph.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace clang;
using namespace llvm;

namespace kopt {

namespace {

bool mentions(const Stmt *S, BuiltinVar Var) {
  bool Found = false;
  forEachSubStmt(S, [&](const Stmt *C) {
    if (const auto *E = dyn_cast<Expr>(C))
      Found |= isBuiltin(E, Var, 0);
  });
  return Found;
}

/// K and the device functions of the main file it calls, transitively
/// (call edges of Clang's CallGraph).
std::vector<const FunctionDecl *> kernelCode(const FunctionDecl *K,
                                             ASTContext &AC) {
  const SourceManager &SM = AC.getSourceManager();
  CallGraph Graph;
  Graph.addToCallGraph(AC.getTranslationUnitDecl());
  std::vector<const FunctionDecl *> Code = {K};
  SmallPtrSet<const FunctionDecl *, 8> Seen = {K};
  for (size_t I = 0; I < Code.size(); ++I) {
    const CallGraphNode *Node = Graph.getNode(Code[I]->getCanonicalDecl());
    if (!Node)
      continue;
    for (const CallGraphNode::CallRecord &Edge : *Node) {
      const auto *F = dyn_cast_or_null<FunctionDecl>(Edge.Callee->getDecl());
      const FunctionDecl *Def = F ? F->getDefinition() : nullptr;
      if (Def && Def->hasBody() && SM.isInMainFile(Def->getLocation()) &&
          Seen.insert(Def).second)
        Code.push_back(Def);
    }
  }
  return Code;
}

/// The outermost arithmetic expression around E (through casts, property
/// accesses and + - * / % >>).
const Stmt *arithmeticContext(const Stmt *E, ParentMap &Parents) {
  const Stmt *Top = E;
  for (const Stmt *P = Parents.getParent(const_cast<Stmt *>(Top)); P;
       P = Parents.getParent(const_cast<Stmt *>(Top))) {
    const auto *B = dyn_cast<BinaryOperator>(P);
    bool Arith =
        B && (B->isAdditiveOp() || B->isMultiplicativeOp() || B->isShiftOp());
    if (!Arith && !isa<CastExpr, ParenExpr>(P))
      break;
    Top = P;
  }
  return Top;
}

/// True if Index is compared with something where it is computed, or is the
/// initializer of a variable that some comparison in Body reads.
bool isBoundsChecked(const Stmt *Index, ParentMap &Parents, const Stmt *Body) {
  const Stmt *P = Parents.getParentIgnoreParenCasts(const_cast<Stmt *>(Index));
  if (const auto *Cmp = dyn_cast_or_null<BinaryOperator>(P))
    return Cmp->isComparisonOp();
  const auto *DS = dyn_cast_or_null<DeclStmt>(P);
  if (!DS)
    return false;
  const VarDecl *Var = nullptr;
  for (const Decl *D : DS->decls())
    if (const auto *V = dyn_cast<VarDecl>(D);
        V && V->getInit() &&
        V->getInit()->IgnoreParenCasts() ==
            cast<Expr>(Index)->IgnoreParenCasts())
      Var = V;
  bool Checked = false;
  forEachSubStmt(Body, [&](const Stmt *S) {
    const auto *Cmp = dyn_cast<BinaryOperator>(S);
    if (Var && Cmp && Cmp->isComparisonOp())
      Checked |= referencedVar(stripCasts(Cmp->getLHS())) == Var ||
                 referencedVar(stripCasts(Cmp->getRHS())) == Var;
  });
  return Checked;
}

/// A floating-point update `a += v` or `a = a * v` (also for class types
/// such as __half) inside a loop whose header mentions blockDim.x, when S is
/// such a loop: which elements each thread combines, or how a tree pairs
/// them, then depends on the block size, and floating-point addition and
/// multiplication are not associative.
const Stmt *splitAccumulation(const Stmt *S) {
  const Stmt *Body = nullptr;
  std::vector<const Stmt *> Header;
  if (const auto *For = dyn_cast<ForStmt>(S)) {
    Body = For->getBody();
    Header = {For->getInit(), For->getCond(), For->getInc()};
  } else if (const auto *While = dyn_cast<WhileStmt>(S)) {
    Body = While->getBody();
    Header = {While->getCond()};
  } else if (const auto *Do = dyn_cast<DoStmt>(S)) {
    Body = Do->getBody();
    Header = {Do->getCond()};
  }
  if (!Body || llvm::none_of(Header, [](const Stmt *H) {
        return H && mentions(H, BuiltinVar::BlockDim);
      }))
    return nullptr;
  // Only state carried from one iteration to the next accumulates: a
  // variable declared outside the loop, or an element whose index does not
  // move with the loop (`partial[threadIdx.x] += partial[threadIdx.x + s]`),
  // not `x[i] += 1` over the loop's own elements.
  const auto *For = dyn_cast<ForStmt>(S);
  std::optional<CountedLoop> Counted =
      For ? matchCountedLoop(For) : std::nullopt;
  const VarDecl *LoopVar = Counted ? Counted->Var : nullptr;
  SmallPtrSet<const VarDecl *, 8> Inner = varsDeclaredIn(Body);
  auto Carried = [&](const Expr *Target) {
    Target = Target->IgnoreParenImpCasts();
    if (const VarDecl *V = referencedVar(Target))
      return !Inner.contains(V) && V != LoopVar;
    if (const auto *Sub = dyn_cast<ArraySubscriptExpr>(Target))
      return !LoopVar || countReferences(Sub->getIdx(), LoopVar) == 0;
    return true;
  };
  const Stmt *Found = nullptr;
  forEachSubStmt(Body, [&](const Stmt *C) {
    std::optional<WriteOf> W = writeOf(C);
    if (Found || !W ||
        !W->Target->getType()->isFloatingType() &&
            !W->Target->getType()->isRecordType())
      return;
    if (!Carried(W->Target))
      return;
    bool Combines = false;
    if (const auto *B = dyn_cast<BinaryOperator>(C)) {
      BinaryOperatorKind Op = B->getOpcode();
      Combines = Op == BO_AddAssign || Op == BO_SubAssign ||
                 Op == BO_MulAssign || Op == BO_DivAssign;
      // a = a + v (a = fmaxf(a, v) is exact in any order)
      const VarDecl *Target = referencedVar(stripCasts(B->getLHS()));
      const auto *Arith = dyn_cast<BinaryOperator>(stripCasts(B->getRHS()));
      if (Op == BO_Assign && Target && Arith &&
          (Arith->isAdditiveOp() || Arith->isMultiplicativeOp()))
        Combines = countReferences(Arith, Target) > 0;
    } else if (const auto *Call = dyn_cast<CXXOperatorCallExpr>(C)) {
      OverloadedOperatorKind Op = Call->getOperator();
      Combines = Op == OO_PlusEqual || Op == OO_MinusEqual ||
                 Op == OO_StarEqual || Op == OO_SlashEqual;
    }
    if (Combines)
      Found = C;
  });
  return Found;
}

class Checker {
public:
  Checker(ASTContext &DC, int64_t B, bool Reassociate, bool LiteralSizes)
      : DC(DC), B(B), Reassociate(Reassociate), LiteralSizes(LiteralSizes) {}

  std::variant<BlockSizeFacts, std::string> run(const FunctionDecl *K) {
    Facts.Code = kernelCode(K, DC);
    for (const FunctionDecl *F : Facts.Code)
      if (std::optional<std::string> Why = checkCode(F, Facts.Grid))
        return *Why;
    return std::move(Facts);
  }

private:
  std::string at(SourceLocation L, const ASTContext &AC) {
    return str(lineCol(L, AC));
  }

  std::optional<std::string> checkSharedArray(const VarDecl *V,
                                              const Stmt *Body) {
    ASTContext &AC = DC;
    std::string Name = V->getNameAsString();
    const ConstantArrayType *CAT = AC.getAsConstantArrayType(V->getType());
    if (!CAT) {
      if (V->getType()->isArrayType())
        return "it uses dynamic shared memory ('" + Name + "')";
      return std::nullopt; // a shared scalar or struct
    }
    uint64_t Size = CAT->getSize().getZExtValue();
    bool MultiDim = CAT->getElementType()->isArrayType();
    if (!MultiDim && Size == uint64_t(B)) {
      TypeLoc TL = V->getTypeSourceInfo()->getTypeLoc();
      auto ATL = TL.getAsAdjusted<ConstantArrayTypeLoc>();
      const Expr *SizeExpr = ATL ? ATL.getSizeExpr() : nullptr;
      if (!SizeExpr ||
          (LiteralSizes && (!isa<IntegerLiteral>(SizeExpr->IgnoreParens()) ||
                            !isRewritable(SizeExpr->getSourceRange(), AC))) ||
          !isRewritable(ATL.getBracketsRange(), AC))
        return "the size of the shared array '" + Name + "' (" +
               std::to_string(B) +
               " elements, one a thread) is not written as a literal";
      Facts.PerThreadArrays.push_back({V, SizeExpr, ATL.getBracketsRange()});
      return std::nullopt;
    }
    // Any other size must not be tied to the threads.
    std::optional<std::string> Why;
    forEachSubStmt(Body, [&](const Stmt *S) {
      const auto *Sub = dyn_cast<ArraySubscriptExpr>(S);
      if (Why || !Sub)
        return;
      const Expr *Base = Sub->getBase()->IgnoreParenImpCasts();
      while (const auto *Inner = dyn_cast<ArraySubscriptExpr>(Base))
        Base = Inner->getBase()->IgnoreParenImpCasts();
      if (referencedVar(Base) != V)
        return;
      if (mentions(Sub->getIdx(), BuiltinVar::ThreadIdx) ||
          mentions(Sub->getIdx(), BuiltinVar::BlockDim))
        Why = "the shared array '" + Name + "' is indexed by thread at " +
              at(Sub->getBeginLoc(), AC) + " but is not one element a " +
              "thread";
    });
    return Why;
  }

  std::optional<std::string> checkCode(const FunctionDecl *F, GridUse &Use) {
    ASTContext &AC = DC;
    const Stmt *Body = F->getBody();
    ParentMap Parents(const_cast<Stmt *>(Body));
    // Locals that name the block's index (`const int row = blockIdx.x;`,
    // never changed): their uses are blockIdx's uses, their initializer
    // is none (`parts[row * blockDim.x + tid]` is a per-thread use).
    llvm::SmallPtrSet<const VarDecl *, 4> BlockIndexNames;
    llvm::SmallPtrSet<const Stmt *, 4> NameInits;
    forEachSubStmt(Body, [&](const Stmt *S) {
      const auto *DS = dyn_cast<DeclStmt>(S);
      if (!DS)
        return;
      for (const Decl *D : DS->decls()) {
        const auto *V = dyn_cast<VarDecl>(D);
        const Expr *Init =
            V && V->getInit() ? stripCasts(V->getInit()) : nullptr;
        if (Init && V->getType()->isIntegerType() &&
            isBuiltin(Init, BuiltinVar::BlockIdx, 0) &&
            !isModifiedIn(V, Body)) {
          BlockIndexNames.insert(V);
          NameInits.insert(Init);
        }
      }
    });
    std::optional<std::string> Why;
    forEachSubStmt(Body, [&](const Stmt *S) {
      if (Why)
        return;
      if (const auto *E = dyn_cast<Expr>(S)) {
        if (std::optional<BuiltinRef> R = matchBuiltin(E)) {
          if ((R->Var == BuiltinVar::ThreadIdx ||
               R->Var == BuiltinVar::BlockDim) &&
              R->Dim != 0) {
            Why = "it uses " + builtinName(*R) + " at " +
                  at(E->getBeginLoc(), AC) + " (a multi-dimensional block)";
            return;
          }
        }
      }
      if (!Reassociate)
        if (const Stmt *Acc = splitAccumulation(S)) {
          Why = "the floating-point accumulation at " +
                at(Acc->getBeginLoc(), AC) +
                " is split across threads by the block size; another size "
                "changes the rounding (reassociate=true allows it)";
          return;
        }
      // A tree that starts from a constant (`for (s = 64; s > 0; s >>= 1)`
      // around a barrier) combines a fixed number of slots: with another
      // block size it would leave threads out or read past the ones there.
      if (const auto *For = dyn_cast<ForStmt>(S);
          For && looksLikeTree(For, AC)) {
        const Expr *Size = nullptr;
        bool StartIsConst = false;
        if (matchTreeHead(For, AC, nullptr, Body, &Size, &StartIsConst) && Size)
          if (std::optional<llvm::APSInt> C =
                  Size->getIntegerConstantExpr(AC)) {
            int64_t Threads =
                StartIsConst ? 2 * C->getExtValue() : C->getExtValue();
            Why = "its tree at " + at(For->getBeginLoc(), AC) +
                  " starts from a constant: it combines " +
                  std::to_string(Threads) + " threads whatever the block size";
            return;
          }
      }
      if (const auto *Lit = dyn_cast<IntegerLiteral>(S);
          Lit && Lit->getValue() == uint64_t(B)) {
        Why = "it uses the constant " + std::to_string(B) +
              ", its block size, at " + at(Lit->getBeginLoc(), AC);
        return;
      }
      // The same through a name: `blockIdx.x * k_threads + threadIdx.x`
      // with `constexpr int k_threads = 256;` (a macro is a literal).
      if (const auto *Name = dyn_cast<DeclRefExpr>(S);
          Name && isa<VarDecl>(Name->getDecl()) &&
          Name->getType()->isIntegerType()) {
        std::optional<int64_t> C = evaluateInt(Name, AC, Body);
        if (C && *C == B) {
          Why = "it uses '" + Name->getDecl()->getNameAsString() + "' (" +
                std::to_string(B) + ", its block size) at " +
                at(Name->getBeginLoc(), AC);
          return;
        }
      }
      if (const auto *Cmp = dyn_cast<BinaryOperator>(S);
          Cmp && Cmp->isComparisonOp()) {
        for (auto [Side, Other] : {std::pair(Cmp->getLHS(), Cmp->getRHS()),
                                   std::pair(Cmp->getRHS(), Cmp->getLHS())}) {
          std::optional<int64_t> C = evaluateInt(Other, AC, Body);
          if (isBuiltin(stripCasts(Side), BuiltinVar::ThreadIdx) && C &&
              *C > 32) {
            Why = "it compares threadIdx.x with the constant " +
                  std::to_string(*C) + " at " + at(Cmp->getBeginLoc(), AC);
            return;
          }
        }
      }
      if (const auto *DS = dyn_cast<DeclStmt>(S)) {
        for (const Decl *D : DS->decls())
          if (const auto *V = dyn_cast<VarDecl>(D);
              V && V->hasAttr<CUDASharedAttr>() && !Why)
            Why = checkSharedArray(V, Body);
        return;
      }
      const auto *Ref = dyn_cast<Expr>(S);
      std::optional<BuiltinRef> R = Ref ? matchBuiltin(Ref) : std::nullopt;
      const auto *Name = dyn_cast<DeclRefExpr>(S);
      bool NamedIndex =
          Name && isa<VarDecl>(Name->getDecl()) &&
          BlockIndexNames.contains(cast<VarDecl>(Name->getDecl()));
      if (!NamedIndex && (!R || R->Var != BuiltinVar::BlockIdx ||
                          isa<CastExpr, ParenExpr>(S) || NameInits.contains(S)))
        return;
      const Stmt *Top = arithmeticContext(Ref, Parents);
      GridUse This = mentions(Top, BuiltinVar::BlockDim) ? GridUse::PerThread
                                                         : GridUse::PerBlock;
      // A new grid can only cover at least as many threads as before, not
      // exactly as many: the index must be checked against a bound.
      if (This == GridUse::PerThread && !isBoundsChecked(Top, Parents, Body)) {
        Why = "the thread index at " + at(Top->getBeginLoc(), AC) +
              " is not compared with a bound (the kernel may rely on the "
              "exact number of threads)";
        return;
      }
      if (Use != GridUse::None && Use != This) {
        Why = "it uses blockIdx.x both on its own and combined with "
              "blockDim.x (at " +
              at(Ref->getBeginLoc(), AC) + ")";
        return;
      }
      Use = This;
    });
    return Why;
  }

  ASTContext &DC;
  int64_t B;
  bool Reassociate, LiteralSizes;
  BlockSizeFacts Facts;
};

} // namespace

std::string builtinName(BuiltinRef R) {
  const char *Var = R.Var == BuiltinVar::ThreadIdx  ? "threadIdx"
                    : R.Var == BuiltinVar::BlockIdx ? "blockIdx"
                    : R.Var == BuiltinVar::BlockDim ? "blockDim"
                                                    : "gridDim";
  return std::string(Var) + "." + "xyz"[R.Dim];
}

std::variant<BlockSizeFacts, std::string>
blockSizeFacts(ASTContext &DC, const KernelInfo &K, int64_t B, bool Reassociate,
               bool LiteralSizes) {
  return Checker(DC, B, Reassociate, LiteralSizes).run(K.Decl);
}

} // namespace kopt
