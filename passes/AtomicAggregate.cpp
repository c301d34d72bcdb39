//===- AtomicAggregate.cpp - The atomic-aggregate pass --------------------===//
//
// Naive reductions add every element to one global address with an atomic
// of its own, in a grid- or block-stride loop:
//
//   for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
//     atomicAdd(sum, x[i]);
//
// nvcc combines the atomics a converged warp makes on one address (one
// atomicAdd a thread, `if (i < n) atomicAdd(sum, x[i])`, measured 1.00x
// after this rewrite on an H200: bench/reductions), so such a loop costs
// one atomic per warp per iteration. The pass keeps a sum per thread over
// the loop and adds the warp's sum once, from lane 0:
//
//   {
//     T kopt_av = 0;
//     bool kopt_ac = false;
//     for (int i = ...; i < n; i += stride) {
//       kopt_av += (T)(x[i]);
//       kopt_ac = true;
//     }
//     bool kopt_any = __any_sync(0xffffffffu, kopt_ac);
//     for (int kopt_o = 16; kopt_o > 0; kopt_o >>= 1)
//       kopt_av += __shfl_xor_sync(0xffffffffu, kopt_av, kopt_o);
//     if (kopt_any && threadIdx.x % 32 == 0)
//       atomicAdd(sum, kopt_av);
//   }
//
// Legality (each failure is a missed remark):
//   * the call is CUDA's atomicAdd on int, unsigned, unsigned long long,
//     float or double, its result unused, the whole body of a for loop
//     (one atomic a thread is refused: nvcc aggregates it already);
//   * the address is the same in every thread of the block (a uniform
//     value, or &A[I] with A and I uniform) and names nothing the loop
//     changes: every lane adds to the same place, so one add of the sum is
//     the adds of the parts;
//   * the loop runs in uniform control flow (only compound statements
//     enclose it, no return before it, no goto), so all 32 lanes reach the
//     shuffles together after it (the original kept in a run-time check's
//     else branch is not);
//   * every launch runs blocks whose x extent is a multiple of 32 (then a
//     warp is 32 consecutive threadIdx.x of one y and z, and lane 0 is
//     threadIdx.x % 32 == 0); where launches are not known the rewrite runs
//     under `if (blockDim.x % 32 == 0)`, the original in the else branch;
//   * integer sums are exact (the sum is kept in the unsigned type of the
//     same width, which wraps as the atomics do); a floating-point sum in
//     another order rounds differently, so it needs reassociate=true. The
//     atomics' own order is not fixed either, but they add one value at a
//     time, which the per-thread sums and the warp's tree do not.
// The loop and the values it adds run as before, and a warp none of whose
// threads adds does not touch the address.
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
#include "llvm/Support/raw_ostream.h"

using namespace clang;
using namespace clang::ast_matchers;
using namespace llvm;

namespace kopt {

namespace {

/// An atomicAdd the pass may aggregate.
struct AtomicSite {
  const CallExpr *Call = nullptr;
  const Stmt *Whole = nullptr;   ///< what the rewrite replaces
  const ForStmt *Loop = nullptr; ///< `for (...) atomicAdd(...)`, Whole
  QualType Element;
};

bool isCudaAtomicAdd(const CallExpr *C, const ASTContext &AC) {
  const FunctionDecl *FD = C->getDirectCallee();
  return FD && FD->getIdentifier() && FD->getName() == "atomicAdd" &&
         C->getNumArgs() == 2 &&
         AC.getSourceManager().isInSystemHeader(FD->getLocation());
}

/// `X` or `{ X }`: the statement, else null.
const Stmt *onlyStatement(const Stmt *S) {
  if (const auto *C = dyn_cast_or_null<CompoundStmt>(S))
    return C->size() == 1 ? C->body_front() : nullptr;
  return S;
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

class AtomicAggregatePass : public KernelPass<AtomicAggregateOptions> {
  void runOnKernel(KernelContext &KC) override {
    const KernelInfo &K = KC.kernel();
    ASTContext &AC = KC.deviceContext();
    const FunctionDecl *F = K.Decl;
    if (!F || !F->hasBody())
      return;
    ParentMap Parents(F->getBody());
    for (const BoundNodes &N :
         match(findAll(callExpr(unless(hasAncestor(lambdaExpr()))).bind("c")),
               *F->getBody(), AC)) {
      const auto *C = N.getNodeAs<CallExpr>("c");
      if (!isCudaAtomicAdd(C, AC))
        continue;
      LineCol Loc = lineCol(C->getBeginLoc(), AC);
      Decision<AtomicSite> Site = matchSite(C, Parents, F, AC);
      if (auto *R = std::get_if<Refusal>(&Site)) {
        KC.missed(Loc, "atomicAdd not aggregated: " + R->Message);
        continue;
      }
      rewrite(KC, std::get<AtomicSite>(Site), Loc);
    }
  }

  Decision<AtomicSite> matchSite(const CallExpr *C, const ParentMap &Parents,
                                 const FunctionDecl *F, ASTContext &AC) {
    LineCol Loc = lineCol(C->getBeginLoc(), AC);
    auto Refuse = [&](const Twine &Why) { return Refusal{Why.str(), Loc}; };
    AtomicSite S;
    S.Call = C;
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
    // Where the call stands: a loop's whole body, or one a thread.
    bool OnePerThread = false;
    const Stmt *Up = Parents.getParent(const_cast<CallExpr *>(C));
    const Stmt *Holder = Up;
    if (const auto *CS = dyn_cast_or_null<CompoundStmt>(Up))
      Holder = CS->size() == 1
                   ? Parents.getParent(const_cast<CompoundStmt *>(CS))
                   : CS;
    if (const auto *For = dyn_cast_or_null<ForStmt>(Holder);
        For && onlyStatement(For->getBody()) == C) {
      S.Whole = For;
      S.Loop = For;
    } else if (isa_and_nonnull<CompoundStmt, IfStmt>(Holder)) {
      OnePerThread = true;
    } else {
      return Refuse("its result is used, or it is not a statement of its "
                    "own or the whole body of a for loop");
    }
    const Expr *Address = C->getArg(0);
    if (S.Loop) {
      const VarDecl *Changed = nullptr;
      forEachSubStmt(Address, [&](const Stmt *X) {
        if (const auto *Ref = dyn_cast<DeclRefExpr>(X))
          if (const auto *V = dyn_cast<VarDecl>(Ref->getDecl());
              V && !Changed && isModifiedIn(V, S.Loop))
            Changed = V;
      });
      if (Changed)
        return Refuse("the address names '" + Changed->getNameAsString() +
                      "', which the loop changes");
    }
    if (!isUniformAddress(Address, F))
      return Refuse("the address '" +
                    oneLine(sourceText(Address->getSourceRange(), AC)) +
                    "' differs between threads: each adds to its own "
                    "element");
    if (OnePerThread)
      return Refuse("one atomicAdd a thread: nvcc combines the atomics a warp "
                    "makes on one address itself (bench/reductions: 1.00x on "
                    "an H200); only a loop whose body is the atomic is "
                    "rewritten");
    if (std::optional<Refusal> R =
            checkUniformControl(F, S.Whole, "the atomicAdd", AC))
      return *R;
    if (S.Element->isFloatingType() && !options().Reassociate)
      return Refuse("summing " + S.Element.getAsString() +
                    " values per thread and per warp before one atomicAdd "
                    "rounds differently from adding them one at a time "
                    "(reassociate=true allows it)");
    if (!isRewritable(S.Whole->getSourceRange(), AC))
      return Refuse("it is written in a macro");
    return S;
  }

  void rewrite(KernelContext &KC, const AtomicSite &S, LineCol Loc) {
    ASTContext &AC = KC.deviceContext();
    StringRef Code = KC.code();
    auto At = stmtOffsets(S.Whole, AC);
    if (!At)
      return KC.missed(Loc,
                       "atomicAdd not aggregated: it is written in a macro");
    std::string In = indentAt(Code, At->first);
    PrintingPolicy PP = AC.getPrintingPolicy();
    std::string T = S.Element.getAsString(PP);
    bool Signed = S.Element->isSignedIntegerType();
    std::string Acc = Signed ? "unsigned" : T;
    std::string Address = sourceText(S.Call->getArg(0)->getSourceRange(), AC);
    std::string Value = sourceText(S.Call->getArg(1)->getSourceRange(), AC);
    // The value as the atomic adds it: converted to T (and for a signed
    // sum to its unsigned twin, which wraps as the atomics do).
    std::string Part = Signed ? "(unsigned)(" + T + ")(" + Value + ")"
                              : "(" + T + ")(" + Value + ")";
    std::string Out;
    raw_string_ostream OS(Out);
    auto BodyAt = stmtOffsets(S.Loop->getBody(), AC);
    if (!BodyAt)
      return KC.missed(Loc, "atomicAdd not aggregated: its loop is written "
                            "in a macro");
    OS << "{\n"
       << In << "  // kopt atomic-aggregate: a sum per thread, then one "
       << "atomicAdd per warp\n"
       << In << "  " << Acc << " kopt_av = 0;\n"
       << In << "  bool kopt_ac = false;\n"
       << In << "  " << Code.slice(At->first, BodyAt->first).rtrim() << " {\n"
       << In << "    kopt_av += " << Part << ";\n"
       << In << "    kopt_ac = true;\n"
       << In << "  }\n";
    OS << In << "  bool kopt_any = __any_sync(0xffffffffu, kopt_ac);\n"
       << In << "  for (int kopt_o = 16; kopt_o > 0; kopt_o >>= 1)\n"
       << In
       << "    kopt_av += __shfl_xor_sync(0xffffffffu, kopt_av, kopt_o);\n"
       << In << "  if (kopt_any && threadIdx.x % 32 == 0)\n"
       << In << "    atomicAdd(" << Address << ", "
       << (Signed ? "(" + T + ")kopt_av" : std::string("kopt_av")) << ");\n"
       << In << "}";
    // Blocks whose x extent is not a multiple of 32 run the original.
    std::string Why;
    bool Known = warpBlocks(KC, Why);
    if (!Known)
      Out = "if (blockDim.x % 32 == 0) " + Out + " else {\n" + In + "  " +
            Code.slice(At->first, At->second).str() + "\n" + In + "}";
    if (Error E =
            KC.edits().replaceChars(At->first, At->second - At->first, Out))
      return KC.missed(Loc,
                       "atomicAdd not aggregated: " + toString(std::move(E)));
    KC.applied(Loc, "aggregated atomicAdd on '" + Address + "' (" + T +
                        ") per warp: a sum per thread over the loop, then "
                        "__shfl_xor_sync sums and one atomicAdd from lane 0" +
                        (Known ? ""
                               : " (blocks of a multiple of 32 threads in "
                                 "x, checked at run time: " +
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
