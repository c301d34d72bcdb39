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
//     `x[...]` (or CUDA's load intrinsics, `__ldg(&x[i])`, kept as they
//     are): the restrict promise then says no object read through x is
//     written during the kernel, by any pointer of any thread; or a row
//     pointer fixed to such a parameter (`const T *row = x + off;`, never
//     changed), when every use of x and of its rows is a read or a row's
//     declaration: the promise covers every pointer based on x;
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
#include "kopt/Analysis/Names.h"
#include "kopt/Analysis/ReReadLoops.h"

#include "clang/AST/Attr.h"
#include "clang/AST/ParentMap.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <map>
#include <set>

using namespace clang;
using namespace clang::ast_matchers;
using namespace llvm;

namespace kopt {

namespace {

/// At most this many registers of cache per thread with max-elems=auto.
constexpr unsigned AutoCacheRegisters = 32;
/// The same for serial groups: a thread's own N loads are in flight at once
/// (unrolled), so a larger cache costs occupancy but not memory parallelism
/// (an NCHW channel norm, a thread a position, 64 channels cached: 20 -> 86
/// registers, 90% of copy bandwidth on an H100).
constexpr unsigned AutoSerialCacheRegisters = 64;
/// A rewrite that needs more registers a thread than this keeps fewer than
/// half of a multiprocessor's 2048 threads resident in its 65536 registers
/// (sm_80 and later): a memory-bound kernel then lacks the loads in flight
/// the cache was to save (an NCHW channel norm: 20 -> 79 registers, 5.4x
/// slower on an H100).
constexpr unsigned HalfOccupancyRegisters = 64;
/// Explicit max-elems above this are refused (the unrolled code grows with
/// it, and ptxas would spill long before).
constexpr uint64_t MaxElems = 1024;

/// One cached element and its names in the rewrite.
struct Cache : CachedLoad {
  std::string Storage, View; ///< kopt_cache_x, kopt_x
};

/// A group of loops (ReReadLoops.h) as the rewrite handles it.
struct Group {
  const ForStmt *A = nullptr;
  std::vector<const ForStmt *> Bs;
  std::vector<Cache> Caches;
  const Expr *Bound = nullptr;
  bool Serial = false; ///< each thread runs every iteration
  std::string Flag;    ///< kopt_cached
  uint64_t N = 0;
  std::string HowN; ///< how N was chosen, for the remark
};

class RegisterCachePass : public KernelPass<RegisterCacheOptions> {
  bool rewritesInstances() const override { return true; }

  /// Each rewritten kernel's edits, kept until the resource check.
  std::map<std::string, EditSet> PerKernel;

  /// Kernels whose every cached group is serial: each thread loads its N
  /// elements itself, unrolled, so fewer resident threads still keep as
  /// many loads in flight (the half-occupancy check does not apply).
  std::set<std::string> SerialOnly;

  void beginFile(PassContext &) override {
    PerKernel.clear();
    SerialOnly.clear();
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
    if (K.TemplateArgs.empty()) {
      PerKernel.emplace(K.Name, std::move(Edits));
      Pending.emplace(K.Name, std::move(Remarks));
      return;
    }
    // A template's instantiation (or an explicit specialization) is decided
    // now, in its own view: runOnInstances keeps the template's rewrite only
    // if every instantiation's resource check kept the same text.
    std::map<std::string, EditSet> One;
    One.emplace(K.Name, std::move(Edits));
    std::map<std::string, std::vector<std::pair<LineCol, std::string>>> Mine;
    Mine.emplace(K.Name, std::move(Remarks));
    decide(KC.pass(), One, Mine);
  }

  void endFile(PassContext &Ctx) override { decide(Ctx, PerKernel, Pending); }

  /// Checks the resources of Rewrites (per kernel; Remarks holds their
  /// applied remarks) and keeps the rewrites that pass.
  void decide(PassContext &Ctx, std::map<std::string, EditSet> &Rewrites,
              std::map<std::string,
                       std::vector<std::pair<LineCol, std::string>>> &Remarks) {
    if (Rewrites.empty())
      return;
    std::set<std::string> Refused;
    if (options().CheckResources)
      checkResources(Ctx, Rewrites, Refused);
    for (auto &[Name, Edits] : Rewrites) {
      if (Refused.count(Name))
        continue;
      if (Error E = Ctx.edits().merge(Edits)) {
        Ctx.missed(Name, Ctx.info().kernel(Name)->Loc,
                   "registers not used as a cache: " + toString(std::move(E)));
        continue;
      }
      for (const auto &[Loc, Msg] : Remarks[Name])
        Ctx.applied(Name, Loc, Msg + ResourceNote[Name]);
    }
  }

  /// Applied remarks per kernel, emitted once the resource check passed.
  std::map<std::string, std::vector<std::pair<LineCol, std::string>>> Pending;
  /// ", registers 22 -> 48" per kernel after the resource check.
  std::map<std::string, std::string> ResourceNote;

  //===--------------------------------------------------------------------===//
  // Sizing
  //===--------------------------------------------------------------------===//

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
    uint64_t Registers = std::min<uint64_t>(G.Serial ? AutoSerialCacheRegisters
                                                     : AutoCacheRegisters,
                                            65536 / *Threads / 4);
    uint64_t Budget = std::max<uint64_t>(1, Registers / PerIteration);
    std::string Bound = sourceText(
        matchCountedLoop(G.A)->Bound->getSourceRange(), Ctx.deviceContext());
    if (std::optional<int64_t> Max =
            staticLoopBound(G.A, K, Ctx.deviceContext())) {
      int64_t PerThread = G.Serial ? 1 : *Threads;
      uint64_t Need = *Max <= 0 ? 1 : (*Max + PerThread - 1) / PerThread;
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
        typeAsWritten(CL.Var->getType().getUnqualifiedType(), PP);
    std::string Cond = sourceText(Loop->getCond()->getSourceRange(), AC);
    std::string In = Indent.str();
    std::string Out;
    Out += "if (" + G.Flag + ") {\n";
    Out += In + "  #pragma unroll\n";
    Out += In + "  for (int kopt_k = 0; kopt_k < " + std::to_string(G.N) +
           "; ++kopt_k) {\n";
    Out +=
        In + "    " + VarType + " " + CL.Var->getNameAsString() +
        (G.Serial ? " = kopt_k;\n" : " = threadIdx.x + kopt_k * blockDim.x;\n");
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
    for (const BoundNodes &N :
         match(findAll(arraySubscriptExpr().bind("a")), *Body, AC)) {
      const auto *E = N.getNodeAs<ArraySubscriptExpr>("a");
      const auto *Ref =
          dyn_cast<DeclRefExpr>(E->getBase()->IgnoreParenImpCasts());
      for (const Cache &C : G.Caches)
        if (Ref && Ref->getDecl() == C.K.Base &&
            withoutSpaces(sourceText(E->getIdx()->getSourceRange(), AC)) ==
                C.K.Index) {
          if (std::optional<std::pair<unsigned, unsigned>> R =
                  exprOffsets(E, AC))
            Repl.emplace_back(R->first, R->second - R->first, C.View);
          break;
        }
    }
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
    ReReadLoops Found = findReReadLoops(K, AC,
                                        options().SerialLoops
                                            ? ReReadShapes::BlockStrideOrSerial
                                            : ReReadShapes::BlockStride);
    for (const Refusal &R : Found.Refusals)
      Ctx.missed(K.Name, R.Loc, "registers not used as a cache: " + R.Message);
    std::vector<Group> Groups;
    for (const ReReadGroup &R : Found.Groups) {
      Group G;
      G.A = R.A;
      G.Bs = R.Bs;
      G.Bound = R.Bound;
      G.Serial = R.Serial;
      for (const CachedLoad &L : R.Loads)
        G.Caches.push_back(Cache{L, "", ""});
      Groups.push_back(std::move(G));
    }
    if (Groups.empty()) {
      if (!Found.SawReRead)
        Ctx.missed(K.Name, K.Loc,
                   "registers not used as a cache: no global element read "
                   "by a loop is read again by a later loop of the same "
                   "compound statement");
      return;
    }
    std::set<std::string> Names = namesUsedIn(K.Decl, AC);
    if (Names.count("kopt_k")) {
      Ctx.missed(K.Name, K.Loc,
                 "registers not used as a cache: the kernel already uses "
                 "the name 'kopt_k'");
      return;
    }
    StringRef Code = Ctx.source().Code;
    bool AnySerial = false, AnyBlockStride = false;
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
                    " <= " + std::to_string(G.N) +
                    (G.Serial ? "" : " * blockDim.x") + ";\n" + Indent;
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
      (G.Serial ? AnySerial : AnyBlockStride) = true;
      Remarks.emplace_back(Loc, "kept " + What + " in registers for the loop" +
                                    (G.Bs.size() > 1 ? "s" : "") + " at " +
                                    Again + ": " + std::to_string(G.N) +
                                    " elements per thread (" + G.HowN + "); '" +
                                    Bound + "' above " + std::to_string(G.N) +
                                    (G.Serial ? "" : " * blockDim.x") +
                                    " takes the original loops");
    }
    if (AnySerial && !AnyBlockStride)
      SerialOnly.insert(K.Name);
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
    if (std::optional<std::string> Why = Ctx.whyNoEstimate()) {
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
    Expected<ResourceReport> Before = Ctx.estimate(Code);
    if (!Before) {
      RefuseAll("cannot check for spills: the input does not compile: " +
                toString(Before.takeError()));
      return;
    }
    Expected<ResourceReport> After = Ctx.estimate(*NewCode);
    if (!After) {
      RefuseAll("the rewrite does not compile: " + toString(After.takeError()));
      return;
    }
    for (auto &[Name, _] : PerKernel) {
      LineCol Loc = Ctx.info().kernel(Name)->Loc;
      std::optional<std::string> Why = compareResources(
          Name, *Before, *After, SerialOnly.count(Name), ResourceNote[Name]);
      if (Why) {
        Refused.insert(Name);
        Ctx.missed(Name, Loc, "registers not used as a cache: " + *Why);
      }
    }
  }

  /// Why the rewrite of kernel Name (each instantiation of a template) is
  /// worse in After than in Before, or none; Note gets the registers.
  static std::optional<std::string>
  compareResources(StringRef Name, const ResourceReport &Before,
                   const ResourceReport &After, bool Serial,
                   std::string &Note) {
    auto Pairs = matchKernels(Before, After, Name);
    if (Pairs.empty())
      return std::string("ptxas reported no resources for the kernel");
    std::string Registers;
    for (auto [B, A] : Pairs) {
      if (!B)
        return std::string("ptxas reported no resources for the kernel");
      if (A->moreLocalMemoryThan(*B))
        return "the rewrite uses local memory (ptxas: " + A->localMemory() +
               "; the input: " + std::to_string(B->StackFrameBytes) + ", " +
               std::to_string(B->SpillStoreBytes) + ", " +
               std::to_string(B->SpillLoadBytes) + "): lower max-elems";
      if (A->Registers > HalfOccupancyRegisters &&
          A->Registers > B->Registers && !Serial)
        return "the rewrite needs " + std::to_string(A->Registers) +
               " registers a thread (ptxas; " + std::to_string(B->Registers) +
               " before): more than " + std::to_string(HalfOccupancyRegisters) +
               ", so fewer than half of a multiprocessor's threads stay "
               "resident to keep loads in flight: lower max-elems";
      Registers += (Registers.empty() ? "" : ", ") +
                   std::to_string(B->Registers) + " -> " +
                   std::to_string(A->Registers);
    }
    Note = "; ptxas: " + Registers + " registers, no local memory";
    return std::nullopt;
  }
};

} // namespace

std::unique_ptr<Pass> createRegisterCachePass() {
  return std::make_unique<RegisterCachePass>();
}

} // namespace kopt
