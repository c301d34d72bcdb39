//===- AtomicAggregate.cpp - The atomic-aggregate pass --------------------===//
//
// Naive reductions add every element to one global address with an atomic
// of its own, in a grid- or block-stride loop:
//
//   for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
//     atomicAdd(sum, x[i]);
//
// or with work before the atomic and a condition around it:
//
//   for (...) { float v = x[i]; if (v > 0) atomicAdd(&s[0], v); ... }
//
// nvcc combines the atomics a converged warp makes on one address (one
// atomicAdd a thread, `if (i < n) atomicAdd(sum, x[i])`, measured 1.00x
// after this rewrite on an H200: bench/reductions), so such a loop costs
// one atomic per warp per iteration. The pass keeps a sum per thread over
// the loop and adds the warp's sum once, from lane 0; each atomic in the
// loop becomes an add to its own per-thread sum, where it stood:
//
//   {
//     T kopt_av = 0;
//     bool kopt_ac = false;
//     for (int i = ...; i < n; i += stride)
//       { kopt_av += (T)(x[i]); kopt_ac = true; }
//     bool kopt_any = __any_sync(0xffffffffu, kopt_ac);
//     for (int kopt_o = 16; kopt_o > 0; kopt_o >>= 1)
//       kopt_av += __shfl_xor_sync(0xffffffffu, kopt_av, kopt_o);
//     if (kopt_any && threadIdx.x % 32 == 0)
//       atomicAdd(sum, kopt_av);
//   }
//
// Legality (each failure is a missed remark):
//   * the call is CUDA's atomicAdd on int, unsigned, unsigned long long,
//     float or double, a statement of its own (its result unused) inside a
//     loop, under any conditions and inner loops of that loop (one atomic
//     a thread, in no loop, is refused: nvcc aggregates it already);
//   * the address is the same in every thread of the block (a uniform
//     value, or &A[I] with A and I uniform) and names nothing the loop
//     changes or declares: every lane adds to the same place, so one add
//     of the sum after the loop is the adds of the parts;
//   * inside the loop the pointers the address names appear only in the
//     addresses of the atomics rewritten (no read of the sum, no other
//     atomic, no call given them), and no return leaves the loop (the
//     thread would skip its add). Other pointers are taken not to hold the
//     sum: a thread reading an address other threads add to atomically
//     races in the original;
//   * the outermost loop runs in uniform control flow (only compound
//     statements enclose it, no return before it, no goto), so all 32
//     lanes reach the shuffles together after it (the original kept in a
//     run-time check's else branch is not);
//   * every launch runs blocks whose x extent is a multiple of 32 (then a
//     warp is 32 consecutive threadIdx.x of one y and z, and lane 0 is
//     threadIdx.x % 32 == 0); where launches are not known the rewrite runs
//     under `if (blockDim.x % 32 == 0)`, the original in the else branch;
//   * integer sums are exact (the sum is kept in the unsigned type of the
//     same width, which wraps as the atomics do); a floating-point sum in
//     another order rounds differently, so it needs reassociate=true. The
//     atomics' own order is not fixed either, but they add one value at a
//     time, which the per-thread sums and the warp's tree do not.
// The loop and the values it adds run as before (each value is computed
// where the atomic stood), and a warp none of whose threads adds does not
// touch the address.
//
//===----------------------------------------------------------------------===//

#include "Options.h"
#include "SourceLayout.h"
#include "kopt/Analysis/ControlFlow.h"
#include "kopt/Analysis/CudaAST.h"
#include "kopt/Analysis/Mutation.h"
#include "kopt/Analysis/ReductionTree.h"
#include "kopt/Pass/Pass.h"

#include "clang/AST/ParentMap.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/raw_ostream.h"

using namespace clang;
using namespace clang::ast_matchers;
using namespace llvm;

namespace kopt {

namespace {

/// An atomicAdd the pass may aggregate.
struct AtomicSite {
  const CallExpr *Call = nullptr;
  const Stmt *Loop = nullptr; ///< the outermost loop holding the call
  QualType Element;
  /// The pointers the address names or reaches through a local's
  /// initializer.
  std::vector<const VarDecl *> Pointers;
  LineCol Loc;
};

bool isCudaAtomicAdd(const CallExpr *C, const ASTContext &AC) {
  const FunctionDecl *FD = C->getDirectCallee();
  return FD && FD->getIdentifier() && FD->getName() == "atomicAdd" &&
         C->getNumArgs() == 2 &&
         AC.getSourceManager().isInSystemHeader(FD->getLocation());
}

/// The outermost for, while or do loop of F holding S; null if none.
const Stmt *outermostLoop(const Stmt *S, const ParentMap &Parents) {
  const Stmt *Loop = nullptr;
  for (const Stmt *P = Parents.getParent(S); P; P = Parents.getParent(P))
    if (isa<ForStmt, WhileStmt, DoStmt>(P))
      Loop = P;
  return Loop;
}

/// An address every thread of the block computes alike: a uniform value
/// (`sum`, `out + blockIdx.x`) or `&A[I]` with A and I uniform (the
/// element's address, not a read of it).
bool isUniformAddress(const Expr *E, const FunctionDecl *F) {
  if (const auto *U = dyn_cast<UnaryOperator>(E->IgnoreParenImpCasts());
      U && U->getOpcode() == UO_AddrOf)
    if (const auto *Sub =
            dyn_cast<ArraySubscriptExpr>(U->getSubExpr()->IgnoreParens()))
      return isBlockUniform(Sub->getBase(), F) &&
             isBlockUniform(Sub->getIdx(), F);
  return isBlockUniform(E, F);
}

/// V if it is a pointer or an array, and the pointers a local pointer is
/// initialized from (`int *dst = out + blockIdx.x;` names out too): what
/// a use elsewhere in the loop may reach the sum through.
void addPointers(const VarDecl *V, std::vector<const VarDecl *> &Pointers) {
  if (!(V->getType()->isPointerType() || V->getType()->isArrayType()) ||
      is_contained(Pointers, V))
    return;
  Pointers.push_back(V);
  if (const Expr *Init = V->getInit())
    forEachSubStmt(Init, [&](const Stmt *X) {
      if (const auto *Ref = dyn_cast<DeclRefExpr>(X))
        if (const auto *W = dyn_cast<VarDecl>(Ref->getDecl()))
          addPointers(W, Pointers);
    });
}

class AtomicAggregatePass : public KernelPass<AtomicAggregateOptions> {
  void runOnKernel(KernelContext &KC) override {
    const KernelInfo &K = KC.kernel();
    ASTContext &AC = KC.deviceContext();
    const FunctionDecl *F = K.Decl;
    if (!F || !F->hasBody())
      return;
    ParentMap Parents(F->getBody());
    MapVector<const Stmt *, std::vector<AtomicSite>> ByLoop;
    for (const BoundNodes &N :
         match(findAll(callExpr(unless(hasAncestor(lambdaExpr()))).bind("c")),
               *F->getBody(), AC)) {
      const auto *C = N.getNodeAs<CallExpr>("c");
      if (!isCudaAtomicAdd(C, AC))
        continue;
      Decision<AtomicSite> Site = matchSite(C, Parents, F, AC);
      if (auto *R = std::get_if<Refusal>(&Site)) {
        KC.missed(lineCol(C->getBeginLoc(), AC),
                  "atomicAdd not aggregated: " + R->Message);
        continue;
      }
      auto &S = std::get<AtomicSite>(Site);
      ByLoop[S.Loop].push_back(std::move(S));
    }
    for (auto &[Loop, Sites] : ByLoop) {
      keepSoleUses(KC, Loop, Sites);
      if (!Sites.empty())
        rewrite(KC, Loop, Sites);
    }
  }

  /// What one call needs on its own.
  Decision<AtomicSite> matchSite(const CallExpr *C, const ParentMap &Parents,
                                 const FunctionDecl *F, ASTContext &AC) {
    const SourceManager &SM = AC.getSourceManager();
    AtomicSite S;
    S.Call = C;
    S.Loc = lineCol(C->getBeginLoc(), AC);
    auto Refuse = [&](const Twine &Why) { return Refusal{Why.str(), S.Loc}; };
    S.Element = C->getArg(0)->getType()->getPointeeType().getUnqualifiedType();
    const auto *BT = S.Element->getAs<BuiltinType>();
    if (!BT || !(BT->getKind() == BuiltinType::Int ||
                 BT->getKind() == BuiltinType::UInt ||
                 BT->getKind() == BuiltinType::ULongLong ||
                 BT->getKind() == BuiltinType::Float ||
                 BT->getKind() == BuiltinType::Double))
      return Refuse("it adds '" + S.Element.getAsString() +
                    "'; int, unsigned, unsigned long long, float and double "
                    "are handled");
    if (!isDiscardedStatement(C, Parents))
      return Refuse("its result is used, or it is not a statement of its "
                    "own");
    S.Loop = outermostLoop(C, Parents);
    const Expr *Address = C->getArg(0);
    std::optional<Refusal> Named;
    forEachSubStmt(Address, [&](const Stmt *X) {
      const auto *Ref = dyn_cast<DeclRefExpr>(X);
      const auto *V = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
      if (!V || Named)
        return;
      addPointers(V, S.Pointers);
      if (!S.Loop)
        return;
      if (isModifiedIn(V, S.Loop))
        Named = Refuse("the address names '" + V->getNameAsString() +
                       "', which the loop changes");
      else if (SM.isPointWithin(V->getLocation(), S.Loop->getBeginLoc(),
                                S.Loop->getEndLoc()))
        Named = Refuse("the address names '" + V->getNameAsString() +
                       "', which the loop declares");
    });
    if (Named)
      return *Named;
    if (!isUniformAddress(Address, F))
      return Refuse("the address '" +
                    oneLine(sourceText(Address->getSourceRange(), AC)) +
                    "' differs between threads: each adds to its own "
                    "element");
    if (!S.Loop)
      return Refuse("one atomicAdd a thread: nvcc combines the atomics a warp "
                    "makes on one address itself (bench/reductions: 1.00x on "
                    "an H200); only atomics inside a loop are rewritten");
    if (std::optional<Refusal> R =
            checkUniformControl(F, S.Loop, "the atomicAdd", AC))
      return *R;
    std::optional<LineCol> Return;
    forEachSubStmt(S.Loop, [&](const Stmt *X) {
      if (isa<ReturnStmt>(X) && !Return)
        Return = lineCol(X->getBeginLoc(), AC);
    });
    if (Return)
      return Refuse("the return at " + str(*Return) +
                    " leaves the loop: that thread would skip the add of its "
                    "sum");
    if (S.Element->isFloatingType() && !options().Reassociate)
      return Refuse("summing " + S.Element.getAsString() +
                    " values per thread and per warp before one atomicAdd "
                    "rounds differently from adding them one at a time "
                    "(reassociate=true allows it)");
    if (!isRewritable(S.Loop->getSourceRange(), AC) || !stmtOffsets(C, AC))
      return Refuse("it is written in a macro");
    return S;
  }

  /// Drops (with a remark) the sites whose pointers the loop uses other
  /// than in the addresses of the sites: a read of the sum, another
  /// atomic, a call given the pointer would see the sum late.
  void keepSoleUses(KernelContext &KC, const Stmt *Loop,
                    std::vector<AtomicSite> &Sites) {
    ASTContext &AC = KC.deviceContext();
    SmallPtrSet<const Stmt *, 16> InAddresses;
    for (const AtomicSite &S : Sites)
      forEachSubStmt(S.Call->getArg(0),
                     [&](const Stmt *X) { InAddresses.insert(X); });
    std::map<const VarDecl *, const DeclRefExpr *> Other;
    forEachSubStmt(Loop, [&](const Stmt *X) {
      const auto *Ref = dyn_cast<DeclRefExpr>(X);
      const auto *V = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
      if (V && !InAddresses.count(Ref) && !Other.count(V))
        Other[V] = Ref;
    });
    llvm::erase_if(Sites, [&](const AtomicSite &S) {
      for (const VarDecl *V : S.Pointers)
        if (auto It = Other.find(V); It != Other.end()) {
          KC.missed(S.Loc, "atomicAdd not aggregated: the loop also uses '" +
                               V->getNameAsString() + "' at " +
                               str(lineCol(It->second->getBeginLoc(), AC)) +
                               " other than as the address of an atomicAdd "
                               "statement: it would see the sum before the "
                               "threads add their parts");
          return true;
        }
      return false;
    });
  }

  void rewrite(KernelContext &KC, const Stmt *Loop,
               const std::vector<AtomicSite> &Sites) {
    ASTContext &AC = KC.deviceContext();
    StringRef Code = KC.code();
    auto At = stmtOffsets(Loop, AC);
    if (!At) {
      for (const AtomicSite &S : Sites)
        KC.missed(S.Loc, "atomicAdd not aggregated: its loop is written in "
                         "a macro");
      return;
    }
    std::string In = indentAt(Code, At->first);
    PrintingPolicy PP = AC.getPrintingPolicy();
    std::string Decls, After;
    raw_string_ostream D(Decls), A(After);
    std::vector<std::tuple<unsigned, unsigned, std::string>> Adds;
    // One sum for each address and type: atomics on one address (in the
    // two branches of an if) share it.
    std::vector<std::string> Keys;
    for (const AtomicSite &S : Sites) {
      std::string Key =
          oneLine(sourceText(S.Call->getArg(0)->getSourceRange(), AC)) + "|" +
          S.Element.getAsString(PP);
      if (!is_contained(Keys, Key))
        Keys.push_back(Key);
    }
    std::vector<bool> Declared(Keys.size(), false);
    for (const AtomicSite &S : Sites) {
      std::string Address = sourceText(S.Call->getArg(0)->getSourceRange(), AC);
      std::string T = S.Element.getAsString(PP);
      size_t I = find(Keys, oneLine(Address) + "|" + T) - Keys.begin();
      std::string Suffix = Keys.size() == 1 ? "" : std::to_string(I);
      std::string Sum = "kopt_av" + Suffix, Any = "kopt_ac" + Suffix;
      bool Signed = S.Element->isSignedIntegerType();
      // The value as the atomic adds it: converted to T (and for a signed
      // sum to its unsigned twin, which wraps as the atomics do).
      std::string Value = sourceText(S.Call->getArg(1)->getSourceRange(), AC);
      std::string Part = Signed ? "(unsigned)(" + T + ")(" + Value + ")"
                                : "(" + T + ")(" + Value + ")";
      auto CallAt = *stmtOffsets(S.Call, AC);
      Adds.emplace_back(CallAt.first, CallAt.second - CallAt.first,
                        "{ " + Sum + " += " + Part + "; " + Any + " = true; }");
      if (Declared[I])
        continue;
      Declared[I] = true;
      D << In << "  " << (Signed ? "unsigned" : T) << " " << Sum << " = 0;\n"
        << In << "  bool " << Any << " = false;\n";
      A << In << "  bool kopt_any" << Suffix << " = __any_sync(0xffffffffu, "
        << Any << ");\n"
        << In << "  for (int kopt_o = 16; kopt_o > 0; kopt_o >>= 1)\n"
        << In << "    " << Sum << " += __shfl_xor_sync(0xffffffffu, " << Sum
        << ", kopt_o);\n"
        << In << "  if (kopt_any" << Suffix << " && threadIdx.x % 32 == 0)\n"
        << In << "    atomicAdd(" << Address << ", "
        << (Signed ? "(" + T + ")" + Sum : Sum) << ");\n";
    }
    std::string Out =
        "{\n" + In +
        "  // kopt atomic-aggregate: a sum per thread, then "
        "one atomicAdd per warp\n" +
        Decls + In + "  " +
        reindent(splice(Code, At->first, At->second, Adds), "  ") + "\n" +
        After + In + "}";
    // Blocks whose x extent is not a multiple of 32 run the original.
    std::string Why;
    bool Known = warpBlocks(KC, Why);
    if (!Known)
      Out = "if (blockDim.x % 32 == 0) " + Out + " else {\n" + In + "  " +
            reindent(Code.slice(At->first, At->second), "  ") + "\n" + In + "}";
    if (Error E =
            KC.edits().replaceChars(At->first, At->second - At->first, Out)) {
      std::string Message = toString(std::move(E));
      for (const AtomicSite &S : Sites)
        KC.missed(S.Loc, "atomicAdd not aggregated: " + Message);
      return;
    }
    for (const AtomicSite &S : Sites)
      KC.applied(
          S.Loc,
          "aggregated atomicAdd on '" +
              oneLine(sourceText(S.Call->getArg(0)->getSourceRange(), AC)) +
              "' (" + S.Element.getAsString(PP) +
              ") per warp: a sum per thread over the loop, then "
              "__shfl_xor_sync sums and one atomicAdd from lane 0" +
              (Known ? ""
                     : " (blocks of a multiple of 32 threads in x, "
                       "checked at run time: " +
                           Why + ")") +
              (S.Element->isFloatingType()
                   ? "; the floating-point sum is reassociated"
                   : "; exact"));
  }

  /// Whether every launch of the kernel is known to run blocks whose x
  /// extent is a multiple of 32; else why not.
  static bool warpBlocks(KernelContext &KC, std::string &Why) {
    const KernelInfo &K = KC.kernel();
    const ProgramInfo &Info = KC.info();
    std::vector<const LaunchSite *> Launches = Info.launchesOf(K.Name);
    if (Launches.empty() || Info.hasUnknownLaunches(K.Name)) {
      Why = "not every launch of '" + K.Name + "' is in the file";
      return false;
    }
    for (const LaunchSite *L : Launches) {
      std::optional<int64_t> X = L->Block.Value.X;
      if (!X || *X % 32 != 0) {
        Why = "the launch at " + str(L->Loc) + " uses the block '" +
              L->Block.Text + "'";
        return false;
      }
    }
    return true;
  }
};

} // namespace

std::unique_ptr<Pass> createAtomicAggregatePass() {
  return std::make_unique<AtomicAggregatePass>();
}

} // namespace kopt
