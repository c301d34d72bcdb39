//===- StagedLoads.cpp - 16-byte loads that keep each thread's elements ---===//
//
// A block-stride loop that carries state (a floating-point partial sum)
// cannot be vectorized exactly: giving each thread W consecutive elements
// changes which thread adds which element. This pass keeps every thread's
// elements and their order and changes only how they reach it: the block
// loads a chunk of U * W * B elements (B threads, W elements of 16 bytes,
// U vectors a thread) as 16-byte vectors into shared memory, then each
// thread reads its own elements back, k * B + t for k = 0 .. U*W-1, which
// is the original's sequence t, t + B, t + 2B, ... chunk after chunk. A
// scalar tail loop continues the sequence; the original loop runs when a
// pointer is not aligned or blockDim.x is not the launches' block size.
//
//   for (int j = threadIdx.x; j < n; j += blockDim.x)
//     sum += x[row * n + j];
// becomes
//   __shared__ uint4 kopt_stage_x[U * B];
//   if (aligned(x + row * n) && blockDim.x == B) {
//     for (int kopt_c = 0; kopt_c < n / (U * W * B); ++kopt_c) {
//       __syncthreads();                       // the last chunk is consumed
//       for (u < U) kopt_stage_x[u * B + t] = ((const uint4 *)(x + row *
//       n))[(kopt_c * U + u) * B + t];
//       __syncthreads();
//       for (k < U * W) { const int j = kopt_c * U * W * B + k * B + t;
//                         sum += ((const T *)kopt_stage_x)[k * B + t]; }
//     }
//     for (int j = n / (U * W * B) * (U * W * B) + t; j < n; j += blockDim.x)
//       sum += x[row * n + j];
//   } else { the original loop }
//
// Legality, each failure a missed remark:
//   * a block-stride loop `for (T j = threadIdx.x; j < n; j += blockDim.x)`
//     with a uniform bound, in uniform control flow (the barriers it adds
//     must be reached by every thread, the same number of times);
//   * its element-wise accesses are the ones vectorize-loads would carry
//     (planVectorAccesses: `p[off + j]`, all or none, types, aliasing);
//     through plain pointers, the staged loop runs only where no stored
//     range overlaps a staged one, checked at run time (DisjointRanges.h);
//     the pointers it only reads are staged, element-wise stores stay as
//     they are (the thread writes its own element j after the chunk's
//     loads), and no read of a written pointer may follow a write of its
//     element in the same iteration (whyReadMayFollowWrite: the stage holds
//     the value from before the iteration; residual[i] = x[i] +
//     residual[i] is staged, a read after `p[j] = ...` is not); the body
//     writes nothing else but local variables: no other store, no call
//     outside CUDA's and the C library's headers or with a pointer argument
//     (atomics), no inline assembly (a staged element is read before the
//     writes of the iterations before it). Other threads' elements are
//     only read by the chunk's loads, which precede every write of the
//     chunk (a barrier) and touch no element of another chunk;
//   * every launch of the kernel is in the file with one constant 1-D
//     block size (the shared buffer's size); blockDim.x is checked again at
//     run time;
//   * not a template, no kopt_ names, nothing in a macro.
// The shared memory added is U * B * 16 bytes per staged pointer.
//
//===----------------------------------------------------------------------===//

#include "DisjointRanges.h"
#include "Options.h"
#include "SourceLayout.h"
#include "VectorCarrier.h"
#include "kopt/Analysis/ElementwiseLoop.h"
#include "kopt/Analysis/ReductionTree.h"
#include "kopt/Analysis/SharedMemory.h"
#include "kopt/Pass/Pass.h"

#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/StringExtras.h"

#include <set>

using namespace clang;
using namespace clang::ast_matchers;
using namespace llvm;

namespace kopt {

namespace {

/// What in Body may write memory: a write to anything but a local
/// variable or an element-wise store of the plan (ElementWrites), a call
/// of a function not declared by CUDA's or the C library's headers or with
/// a pointer argument (atomics), inline assembly. A staged element is read
/// before such a write of an earlier element would have run, so none may
/// be there.
std::optional<std::string>
whyBodyMayStore(const Stmt *Body, const std::set<const Expr *> &ElementWrites,
                ASTContext &AC) {
  std::optional<std::string> Why;
  const SourceManager &SM = AC.getSourceManager();
  forEachSubStmt(Body, [&](const Stmt *S) {
    if (Why)
      return;
    if (isa<AsmStmt>(S)) {
      Why = "the loop has inline assembly";
      return;
    }
    if (std::optional<WriteOf> W = writeOf(S)) {
      if (ElementWrites.count(W->Target->IgnoreParens()))
        return;
      const auto *Ref = dyn_cast<DeclRefExpr>(W->Target->IgnoreParenImpCasts());
      const auto *V = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
      if (!V || !V->hasLocalStorage() || V->getType()->isReferenceType())
        Why = "the loop writes '" +
              oneLine(sourceText(W->Target->getSourceRange(), AC)) +
              "', not a local variable";
      return;
    }
    if (const auto *C = dyn_cast<CallExpr>(S)) {
      const FunctionDecl *F = C->getDirectCallee();
      bool PointerArg = llvm::any_of(C->arguments(), [](const Expr *A) {
        return A->IgnoreParenImpCasts()->getType()->isPointerType();
      });
      if (!F || PointerArg || !SM.isInSystemHeader(F->getLocation()))
        Why = "the loop calls '" +
              oneLine(sourceText(C->getCallee()->getSourceRange(), AC)) +
              "', which may write memory";
    }
  });
  return Why;
}

class StagedLoadsPass : public KernelPass<StagedLoadsOptions> {
  bool rewritesInstances() const override { return true; }

  void runOnKernel(KernelContext &KC) override {
    const KernelInfo &K = KC.kernel();
    Added = 0;
    for (const LoopInfo &L : K.Loops)
      if (L.K == LoopInfo::BlockStride && L.For)
        stageLoop(KC, L);
  }

  /// Shared memory this pass added to the kernel so far (the AST does not
  /// show it until the next parse).
  uint64_t Added = 0;

  void stageLoop(KernelContext &KC, const LoopInfo &L) {
    PassContext &Ctx = KC.pass();
    const KernelInfo &K = KC.kernel();
    ASTContext &AC = KC.deviceContext();
    StringRef Code = Ctx.source().Code;
    auto Missed = [&](const Twine &Why) {
      KC.missed(L.Loc, "block-stride loop not staged: " + Why);
    };
    std::optional<CountedLoop> CL = matchCountedLoop(L.For);
    // L is a BlockStride loop: its step is blockDim.x, an unchanged local
    // copy of it, or a name every launch's block size equals.
    if (!CL || !isa<DeclStmt>(L.For->getInit()) || CL->Inclusive ||
        !isThreadIdxX(CL->Init, K.Decl->getBody()) || !CL->Step)
      return Missed("it is not 'for (T j = threadIdx.x; j < n; j += "
                    "blockDim.x)'");
    unsigned U = options().Vectors;
    if (U < 1 || U > 8)
      return Missed("vectors=" + Twine(U) + " is not between 1 and 8");
    ElementRegion R;
    R.Var = CL->Var;
    R.Body = L.For->getBody();
    R.Bound = CL->Bound;
    R.PerBlock = true;
    Decision<VectorPlan> Plan =
        planVectorAccesses(K, R, AC, std::nullopt, /*AllowCarried=*/true);
    if (auto *Why = std::get_if<Refusal>(&Plan))
      return Missed(Why->Message);
    const VectorPlan &P = std::get<VectorPlan>(Plan);
    // Element-wise stores stay where they are, each thread writing its own
    // elements after the chunk's loads; the reads they may follow are not
    // staged values.
    std::set<const Expr *> ElementWrites;
    std::vector<const VectorPointer *> Staged;
    for (const VectorPointer &V : P.Pointers) {
      if (std::optional<Refusal> Why = whyReadMayFollowWrite(K, R, V, AC))
        return Missed(Why->Message);
      bool Loads = false;
      for (const ArraySubscriptExpr *E : V.Accesses) {
        if (isPlainLoad(K, E))
          Loads = true;
        else
          ElementWrites.insert(E);
      }
      if (Loads)
        Staged.push_back(&V);
    }
    if (Staged.empty())
      return Missed("no element-wise global access is only read: nothing to "
                    "stage");
    // Stores keep their order; only a staged pointer's loads move ahead of
    // stores, so only pairs with a staged pointer need the range check.
    VectorPlan Checked = P;
    llvm::erase_if(Checked.Disjoint, [&](std::pair<unsigned, unsigned> D) {
      auto IsStaged = [&](unsigned I) {
        return llvm::is_contained(Staged, &P.Pointers[I]);
      };
      return !IsStaged(D.second) &&
             !(IsStaged(D.first) && P.Pointers[D.second].Writes);
    });
    if (std::optional<std::string> Why =
            whyBodyMayStore(R.Body, ElementWrites, AC))
      return Missed(*Why + "; a staged element is read before the writes "
                           "of the iterations before it");
    if (std::optional<Refusal> Why = checkUniformControl(
            K.Decl, L.For, "the loop", AC, options().InBranches))
      return Missed(Why->Message +
                    (options().InBranches
                         ? " (the staging adds barriers)"
                         : " (the staging adds barriers; in-branches=true "
                           "allows ifs on values the whole block shares)"));
    auto Sizes = warpMultipleBlockSizes(Ctx.info(), K);
    if (auto *Why = std::get_if<std::string>(&Sizes))
      return Missed(*Why);
    const std::set<int64_t> &S = std::get<std::set<int64_t>>(Sizes);
    if (S.size() != 1)
      return Missed("the launches use " + Twine(S.size()) +
                    " block sizes; the shared buffer is sized for one");
    int64_t B = *S.begin();
    uint64_t Bytes = 0;
    for (const VectorPointer *V : Staged)
      Bytes += uint64_t(U) * B * P.Width * V->ElementBytes;
    std::variant<uint64_t, std::string> Have = staticSharedBytes(K.Decl, AC);
    if (auto *Why = std::get_if<std::string>(&Have))
      return Missed(*Why);
    if (std::get<uint64_t>(Have) + Added + Bytes > StaticSharedLimit)
      return Missed("the kernel's " + Twine(std::get<uint64_t>(Have) + Added) +
                    " bytes of shared memory and the stage's " + Twine(Bytes) +
                    " exceed " + Twine(StaticSharedLimit) + " (lower vectors)");
    for (const VectorPointer &V : P.Pointers)
      if (StringRef(V.Name).starts_with("kopt_"))
        return Missed("'" + V.Name + "' starts with 'kopt_'");
    if (!isRewritable(L.For->getSourceRange(), AC))
      return Missed("it is written in a macro");
    std::optional<std::pair<unsigned, unsigned>> LoopAt =
        stmtOffsets(L.For, AC);
    std::optional<std::pair<unsigned, unsigned>> BodyAt =
        stmtOffsets(R.Body, AC);
    if (!LoopAt || !BodyAt)
      return Missed("it is written in a macro");

    // The element loop's body, each access read from the stage.
    std::vector<std::tuple<unsigned, unsigned, std::string>> Replacements;
    // References to the index inside the replaced accesses (none for
    // `p[i]` with `int i = off + j;` declared in the body).
    size_t ReplacedRefs = 0;
    for (const VectorPointer *VP : Staged)
      for (const ArraySubscriptExpr *E : VP->Accesses) {
        const VectorPointer &V = *VP;
        if (!isPlainLoad(K, E))
          continue;
        std::optional<std::pair<unsigned, unsigned>> Off = exprOffsets(E, AC);
        if (!Off || Off->first < BodyAt->first || Off->second > BodyAt->second)
          return Missed("an access to '" + V.Name + "' is written in a macro");
        Replacements.emplace_back(
            Off->first, Off->second - Off->first,
            "reinterpret_cast<const " + V.Element + " *>(kopt_stage_" + V.Name +
                ")[kopt_k * " + std::to_string(B) + " + threadIdx.x]");
        ReplacedRefs += countReferences(E, R.Var);
      }
    std::string In = indentAt(Code, LoopAt->first);
    std::string I1 = In + "  ", I2 = In + "    ", I3 = In + "      ",
                I4 = In + "        ";
    PrintingPolicy PP(AC.getLangOpts());
    std::string IndexType =
        typeAsWritten(R.Var->getType().getUnqualifiedType(), PP);
    std::string Var = R.Var->getNameAsString();
    std::string Bound = sourceText(CL->Bound->getSourceRange(), AC);
    std::string Chunk = std::to_string(U * P.Width * B);
    std::string Bs = std::to_string(B), Us = std::to_string(U);
    std::string Body = bodyStatements(Code, R.Body, Replacements, I4, AC);
    std::string Deeper = I2.substr(In.size());
    std::string Original =
        reindent(Code.slice(LoopAt->first, LoopAt->second), Deeper);
    std::string ScalarBody =
        (isa<CompoundStmt>(R.Body) ? " " : "\n" + I3) +
        reindent(Code.slice(BodyAt->first, BodyAt->second), Deeper);

    std::string Decls, Check, Loads;
    for (const VectorPointer *VP : Staged) {
      const VectorPointer &V = *VP;
      unsigned Bytes = P.Width * V.ElementBytes;
      std::string Carrier = rawCarrier(Bytes);
      std::string Stage = "kopt_stage_" + V.Name;
      Decls += I1 + "__shared__ " + Carrier + " " + Stage + "[" +
               std::to_string(U * B) + "];\n";
      Check += "reinterpret_cast<unsigned long long>(" + V.base() + ") % " +
               std::to_string(Bytes) + " == 0 &&\n" + I1 + "    ";
      Loads += I4 + Stage + "[kopt_u * " + Bs + " + threadIdx.x] =\n" + I4 +
               "    reinterpret_cast<const " + Carrier + " *>(" + V.base() +
               ")[(kopt_c * " + Us + " + kopt_u) * " + Bs +
               " + threadIdx.x];\n";
    }
    for (const std::string &Term :
         disjointRangeTerms(Checked, "kopt_n", I1 + "    "))
      Check += Term + " &&\n" + I1 + "    ";
    std::string IndexDecl;
    if (countReferences(R.Body, R.Var) > ReplacedRefs)
      IndexDecl = I4 + "const " + IndexType + " " + Var + " = kopt_c * " +
                  Chunk + " + kopt_k * " + Bs + " + threadIdx.x;\n";

    std::string Text =
        "{\n" + I1 + "// kopt staged-loads: " + Us + " x " +
        std::to_string(P.Width) + " elements per thread as vector loads " +
        "into shared memory; each\n" + I1 +
        "// thread then takes its own elements in the original order.\n" +
        (Checked.Disjoint.empty()
             ? ""
             : I1 + "// The original loop runs where a stored "
                    "range overlaps a loaded one.\n") +
        Decls + I1 + "const auto kopt_n = " + Bound + ";\n" + I1 + "if (" +
        Check + "blockDim.x == " + Bs + ") {\n" + I2 + "for (" + IndexType +
        " kopt_c = 0; kopt_c < kopt_n / " + Chunk + "; ++kopt_c) {\n" + I3 +
        "__syncthreads();\n" + "#pragma unroll\n" + I3 +
        "for (int kopt_u = 0; kopt_u < " + Us + "; ++kopt_u) {\n" + Loads + I3 +
        "}\n" + I3 + "__syncthreads();\n" + "#pragma unroll\n" + I3 +
        "for (int kopt_k = 0; kopt_k < " + std::to_string(U * P.Width) +
        "; ++kopt_k) {\n" + IndexDecl + I4 + Body + "\n" + I3 + "}\n" + I2 +
        "}\n" + I2 + "for (" + IndexType + " " + Var + " = kopt_n / " + Chunk +
        " * " + Chunk + " + threadIdx.x; " + Var + " < kopt_n; " + Var +
        " += blockDim.x)" + ScalarBody + "\n" + I1 + "} else {\n" + I2 +
        Original + "\n" + I1 + "}\n" + In + "}";
    if (Error E = Ctx.edits().replaceChars(
            LoopAt->first, LoopAt->second - LoopAt->first, Text))
      return Missed(toString(std::move(E)));
    std::string Names, Written;
    for (const VectorPointer *V : Staged)
      Names += (Names.empty() ? "'" : ", '") + V->Name + "'";
    for (const VectorPointer &V : P.Pointers)
      if (V.Writes)
        Written += (Written.empty() ? "'" : ", '") + V.Name + "'";
    Added += Bytes;
    KC.applied(L.Loc, "staged " + Names + " through shared memory as " +
                          "vector loads (" + Us + " per thread, blocks of " +
                          Bs + " threads); each thread reads its own " +
                          "elements in the original order" +
                          (Written.empty() ? std::string()
                                           : "; its stores to " + Written +
                                                 " stay element-wise") +
                          disjointRangesNote(Checked));
  }
};

} // namespace

std::unique_ptr<Pass> createStagedLoadsPass() {
  return std::make_unique<StagedLoadsPass>();
}

} // namespace kopt
