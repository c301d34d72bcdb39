//===- SharedCache.cpp - Read a re-read row into shared memory once ------===//
//
// Row kernels (RMSNorm, LayerNorm) read their row in one block-stride loop,
// combine a statistic across the block, and read the row again in a later
// loop. register-cache keeps each thread's elements in registers, loaded
// one element at a time; for 2-byte elements (bf16, half) those loads are
// too narrow to fill the memory system (rmsnorm_bf16 stays at 67% of the
// copy bandwidth on an H100). This pass instead copies the row into shared
// memory once, as 16-byte vectors, and lets every loop read it there:
//
//   for (int j = threadIdx.x; j < n; j += blockDim.x) A(x[off + j]);
//   ...
//   for (int j = threadIdx.x; j < n; j += blockDim.x) B(x[off + j]);
// becomes
//   __shared__ __align__(16) T kopt_row_x[C];
//   const bool kopt_shared = n <= C && aligned(x + (off));
//   if (kopt_shared) { block-stride copy of x[off .. off + n) as uint4,
//                      then a scalar tail }
//   __syncthreads();
//   if (kopt_shared) { A with x[off + j] read as kopt_row_x[j] }
//   else { A as written }
//   ... the same for B
//
// Every thread reads the same elements in the same order as before, so the
// results are the same bits; only where they come from changes. The later
// loops are element-wise loops over kopt_row_x and the row's other
// pointers, which vectorize-loads (after this pass in -O) vectorizes.
//
// Legality, each failure a missed remark (the loop shapes are
// register-cache's, ReReadLoops.h):
//   * x is a __restrict__ pointer the kernel only reads, and the first loop
//     reads x[off + j] on every iteration: the copy reads nothing the
//     original does not, and nothing changes the row while it is cached;
//   * off and n are the same for every thread (the copy is shared by the
//     block) and are not modified; the first loop runs in uniform control
//     flow (the added barrier is reached by every thread or none);
//   * the element type is trivial, of 1, 2, 4, 8 or 16 bytes;
//   * the kernel's static shared memory plus the cache fits in 48 KiB, it
//     declares no extern __shared__ array and no launch passes dynamic
//     shared memory;
//   * not a template; one group of loops per kernel.
// narrow-only=true (the default, as in -O) leaves elements of 4 bytes or
// more to register-cache, whose loads are then as wide as the elements
// (measured: layernorm_f32 86% with register-cache, 83% with this pass).
//
//===----------------------------------------------------------------------===//

#include "Options.h"
#include "SourceLayout.h"
#include "kopt/Analysis/ElementwiseLoop.h"
#include "kopt/Analysis/Names.h"
#include "kopt/Analysis/ReReadLoops.h"
#include "kopt/Analysis/ReductionTree.h"
#include "kopt/Analysis/SharedMemory.h"
#include "kopt/Pass/Pass.h"

#include "clang/AST/Attr.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringExtras.h"

#include <set>

using namespace clang;
using namespace llvm;

namespace kopt {

namespace {

/// Vectors each thread loads before storing them into the cache.
constexpr unsigned CopyBatch = 4;
/// One row pointer the loops read again, and its cache.
struct Row {
  CachedLoad Load;
  const Expr *Offset = nullptr; ///< off of x[off + j]; nullptr for x[j]
  unsigned Bytes = 0;           ///< of an element
  std::string Buffer;           ///< kopt_row_x

  std::string base(ASTContext &AC) const {
    return Offset ? Load.BaseName + " + (" +
                        sourceText(Offset->getSourceRange(), AC) + ")"
                  : Load.BaseName;
  }
};

class SharedCachePass : public KernelPass<SharedCacheOptions> {
  bool rewritesInstances() const override { return true; }

  void runOnKernel(KernelContext &KC) override {
    const KernelInfo &K = KC.kernel();
    ASTContext &AC = KC.deviceContext();
    if (!K.Decl || !K.Decl->getBody())
      return;
    ReReadLoops Found = findReReadLoops(K, AC);
    for (const Refusal &R : Found.Refusals)
      KC.refused(R, Prefix);
    if (Found.Groups.empty()) {
      if (!Found.SawReRead)
        KC.missed(Twine(Prefix) + "no global element read by a loop is read "
                                  "again by a later loop of the same compound "
                                  "statement");
      return;
    }
    if (std::optional<std::string> Why = cacheGroup(KC, Found.Groups.front()))
      KC.missed(lineCol(Found.Groups.front().A->getBeginLoc(), AC),
                Prefix + *Why);
    for (const ReReadGroup &G : drop_begin(Found.Groups))
      KC.missed(lineCol(G.A->getBeginLoc(), AC),
                Twine(Prefix) +
                    "only the kernel's first group of loops is cached");
  }

  static constexpr llvm::StringLiteral Prefix =
      "row not cached in shared memory: ";

  /// Why the kernel's launches or shared arrays leave no room for Bytes
  /// more of static shared memory.
  std::optional<std::string> whyNoRoom(KernelContext &KC, uint64_t Bytes) {
    const KernelInfo &K = KC.kernel();
    ASTContext &HC = KC.hostContext();
    for (const LaunchSite *L : KC.info().launchesOf(K.Name)) {
      if (!L->SharedBytes.Expr)
        continue;
      const Stmt *Body = L->CallerDecl ? L->CallerDecl->getBody() : nullptr;
      std::optional<int64_t> Dynamic =
          evaluateInt(L->SharedBytes.Expr, HC, Body);
      if (!Dynamic || *Dynamic != 0)
        return "the launch at " + str(L->Loc) +
               " passes dynamic shared memory ('" + L->SharedBytes.Text + "')";
    }
    std::variant<uint64_t, std::string> Used =
        staticSharedBytes(K.Decl, KC.deviceContext());
    if (auto *Why = std::get_if<std::string>(&Used))
      return *Why;
    uint64_t Have = std::get<uint64_t>(Used);
    if (Have + Bytes > StaticSharedLimit)
      return "the kernel's " + std::to_string(Have) +
             " bytes of shared memory and the cache's " +
             std::to_string(Bytes) + " exceed " +
             std::to_string(StaticSharedLimit) + " (lower max-bytes)";
    return std::nullopt;
  }

  /// The accesses of Loop to be read from the cache, with their
  /// replacements; nothing when one is not `x[off + j]` as in the first loop.
  std::optional<std::vector<std::tuple<unsigned, unsigned, std::string>>>
  replacements(const ForStmt *Loop, const std::vector<Row> &Rows,
               const FunctionDecl *Kernel, ASTContext &AC) {
    std::optional<CountedLoop> CL = matchCountedLoop(Loop);
    if (!CL)
      return std::nullopt;
    std::vector<std::tuple<unsigned, unsigned, std::string>> Repl;
    bool Ok = true;
    forEachSubStmt(Loop->getBody(), [&](const Stmt *S) {
      const auto *E = dyn_cast<ArraySubscriptExpr>(S);
      if (!E || !Ok)
        return;
      const auto *Ref =
          dyn_cast<DeclRefExpr>(E->getBase()->IgnoreParenImpCasts());
      for (const Row &R : Rows) {
        if (!Ref || Ref->getDecl() != R.Load.K.Base ||
            withoutSpaces(sourceText(E->getIdx()->getSourceRange(), AC)) !=
                R.Load.K.Index)
          continue;
        const Expr *Offset = nullptr;
        std::optional<std::pair<unsigned, unsigned>> At = exprOffsets(E, AC);
        if (!At ||
            !matchElementIndex(E->getIdx(), CL->Var, Loop, Kernel, AC,
                               Offset) ||
            (Offset == nullptr) != (R.Offset == nullptr)) {
          Ok = false;
          return;
        }
        Repl.emplace_back(At->first, At->second - At->first,
                          R.Buffer + "[" + CL->Var->getNameAsString() + "]");
      }
    });
    if (!Ok)
      return std::nullopt;
    return Repl;
  }

  /// Rewrites G, or says why not.
  std::optional<std::string> cacheGroup(KernelContext &KC,
                                        const ReReadGroup &G) {
    const KernelInfo &K = KC.kernel();
    ASTContext &AC = KC.deviceContext();
    StringRef Code = KC.code();
    uint64_t MaxBytes = options().MaxBytes;
    if (MaxBytes < 16 || MaxBytes % 16 || MaxBytes > StaticSharedLimit)
      return "max-bytes=" + std::to_string(MaxBytes) +
             " is not a multiple of 16 between 16 and " +
             std::to_string(StaticSharedLimit);
    std::optional<CountedLoop> CL = matchCountedLoop(G.A);
    if (!CL)
      return std::string("the first loop is not a counted loop");

    std::vector<Row> Rows;
    for (const CachedLoad &L : G.Loads) {
      Row R{L, nullptr, 0, ""};
      if (L.K.Base != L.Root)
        return "'" + L.BaseName +
               "' is a local row pointer (shared-cache stages the elements "
               "of parameters only; register-cache keeps a row's)";
      QualType T = L.Load->getType().getUnqualifiedType();
      if (T->isIncompleteType() || !T.isTrivialType(AC))
        return "'" + L.BaseName + "' has elements of type '" + L.ElementType +
               "', which a __shared__ array cannot hold without "
               "constructing it";
      R.Bytes = AC.getTypeSizeInChars(T).getQuantity();
      if (!isPowerOf2_32(R.Bytes) || R.Bytes > VectorBytes)
        return "'" + L.BaseName + "' has " + std::to_string(R.Bytes) +
               "-byte elements, which do not tile a 16-byte vector";
      if (options().NarrowOnly && R.Bytes >= 4)
        return "'" + L.BaseName + "' has " + std::to_string(R.Bytes) +
               "-byte elements: register-cache's loads are as wide "
               "(narrow-only=false caches them here too)";
      if (!matchElementIndex(L.Load->getIdx(), CL->Var, G.A, K.Decl, AC,
                             R.Offset))
        return "'" + sourceText(L.Load->getSourceRange(), AC) + "' is not '" +
               L.BaseName + "[off + " + CL->Var->getNameAsString() +
               "]' with an offset the same for every thread";
      if (StringRef(L.BaseName).starts_with("kopt_"))
        return "'" + L.BaseName + "' starts with 'kopt_'";
      Rows.push_back(R);
    }
    if (hasSideEffects(G.Bound, AC) ||
        classifyIndex(G.Bound, K.Decl, AC).K != IndexClass::Uniform)
      return "the bound '" + sourceText(G.Bound->getSourceRange(), AC) +
             "' is not the same for every thread";
    if (std::optional<Refusal> Why =
            checkUniformControl(K.Decl, G.A, "the first loop", AC))
      return Why->Message + " (the copy adds a barrier)";

    // Elements per cache: an equal share of max-bytes for each row
    // pointer, whole vectors, and no more than a static bound needs.
    uint64_t Capacity = UINT64_MAX;
    for (const Row &R : Rows)
      Capacity = std::min(Capacity, MaxBytes / Rows.size() / VectorBytes *
                                        VectorBytes / R.Bytes);
    if (Capacity == 0)
      return "max-bytes=" + std::to_string(MaxBytes) +
             " holds no 16-byte vector of each row";
    std::optional<int64_t> Static = staticLoopBound(G.A, K, AC);
    if (Static && *Static > 0)
      Capacity = std::min<uint64_t>(Capacity, alignTo(*Static, VectorBytes));
    uint64_t Bytes = 0;
    for (const Row &R : Rows)
      Bytes += Capacity * R.Bytes;
    if (std::optional<std::string> Why = whyNoRoom(KC, Bytes))
      return Why;

    std::set<std::string> Names = namesUsedIn(K.Decl, AC);
    for (Row &R : Rows)
      R.Buffer = freshName(Names, "kopt_row_" + R.Load.BaseName);
    CopyNames C;
    C.Flag = freshName(Names, "kopt_shared");
    C.Chunk = freshName(Names, "kopt_c");
    C.Unit = freshName(Names, "kopt_u");
    C.Regs = freshName(Names, "kopt_r");
    C.Vector = freshName(Names, "kopt_v");
    C.Tail = freshName(Names, "kopt_j");

    std::vector<const ForStmt *> Loops{G.A};
    Loops.insert(Loops.end(), G.Bs.begin(), G.Bs.end());
    EditSet Edits(KC.pass().source().Path);
    for (const ForStmt *Loop : Loops) {
      std::optional<std::pair<unsigned, unsigned>> At = stmtOffsets(Loop, AC);
      auto Repl = replacements(Loop, Rows, K.Decl, AC);
      if (!At || !Repl || Repl->empty() ||
          !isRewritable(Loop->getSourceRange(), AC))
        return "the loop at " + str(lineCol(Loop->getBeginLoc(), AC)) +
               " could not be rewritten (a macro, or another form of the "
               "cached access)";
      std::string In = indentAt(Code, At->first);
      std::string Text = Loop == G.A
                             ? copyText(Rows, G, *CL, Capacity, C, In, AC)
                             : std::string();
      Text += "if (" + C.Flag + ") {\n" + In + "  " +
              reindent(splice(Code, At->first, At->second, *Repl), "  ") +
              "\n" + In + "} else {\n" + In + "  " +
              reindent(Code.slice(At->first, At->second), "  ") + "\n" + In +
              "}";
      if (Error E = Edits.replaceChars(At->first, At->second - At->first, Text))
        return toString(std::move(E));
    }
    if (Error E = KC.edits().merge(Edits))
      return toString(std::move(E));

    std::string What, Again;
    for (const Row &R : Rows)
      What += (What.empty() ? "'" : ", '") +
              sourceText(R.Load.Load->getSourceRange(), AC) + "'";
    for (const ForStmt *B : G.Bs)
      Again += (Again.empty() ? "" : ", ") + str(lineCol(B->getBeginLoc(), AC));
    std::string Bound = sourceText(G.Bound->getSourceRange(), AC);
    KC.applied(lineCol(G.A->getBeginLoc(), AC),
               "cached " + What + " in shared memory for the loop" +
                   (G.Bs.size() > 1 ? "s" : "") + " at " + Again +
                   ": rows of up to " + std::to_string(Capacity) +
                   " elements (" + std::to_string(Bytes) +
                   " bytes), copied as 16-byte vectors; '" + Bound +
                   "' above " + std::to_string(Capacity) +
                   " or a row not 16-byte aligned takes the original loops");
    return std::nullopt;
  }

  /// The declarations, the copy and its barrier, placed before the first
  /// loop (at indentation In).
  /// Fresh names of the copy's loops.
  struct CopyNames {
    std::string Flag, Chunk, Unit, Regs, Vector, Tail;
  };

  /// The declarations, the copy and its barrier, placed before the first
  /// loop (at indentation In). Each thread loads CopyBatch vectors into
  /// registers before it stores them: a loop that stores each vector as it
  /// arrives keeps one load in flight (rmsnorm_bf16: 79% of the copy
  /// bandwidth against 82%).
  static std::string copyText(const std::vector<Row> &Rows,
                              const ReReadGroup &G, const CountedLoop &CL,
                              uint64_t Capacity, const CopyNames &C,
                              const std::string &In, ASTContext &AC) {
    PrintingPolicy PP(AC.getLangOpts());
    PP.SuppressTagKeyword = true;
    std::string T = typeAsWritten(CL.Var->getType().getUnqualifiedType(), PP);
    std::string N = sourceText(G.Bound->getSourceRange(), AC);
    std::string Cap = std::to_string(Capacity);
    std::string Batch = std::to_string(CopyBatch);
    std::string I1 = In + "  ", I2 = In + "    ", I3 = In + "      ",
                I4 = In + "        ";
    std::string Names, Decls, Check, Copy;
    for (const Row &R : Rows) {
      std::string Per = std::to_string(VectorBytes / R.Bytes);
      std::string Vectors = N + " / " + Per;
      std::string Base = R.base(AC);
      Names += (Names.empty() ? "'" : ", '") + R.Load.BaseName + "'";
      Decls += "__shared__ __align__(16) " + R.Load.ElementType + " " +
               R.Buffer + "[" + Cap + "];\n" + In;
      Check += " &&\n" + In + "    reinterpret_cast<unsigned long long>(" +
               Base + ") % 16 == 0";
      auto Unit = [&](const std::string &Access) {
        return "#pragma unroll\n" + I2 + "for (int " + C.Unit + " = 0; " +
               C.Unit + " < " + Batch + "; ++" + C.Unit + ") {\n" + I3 +
               "const " + T + " " + C.Vector + " = " + C.Chunk + " + " +
               C.Unit + " * blockDim.x + threadIdx.x;\n" + I3 + "if (" +
               C.Vector + " < " + Vectors + ")\n" + I4 + Access + ";\n" + I2 +
               "}\n";
      };
      Copy +=
          I1 + "for (" + T + " " + C.Chunk + " = 0; " + C.Chunk + " < " +
          Vectors + "; " + C.Chunk + " += " + Batch + " * blockDim.x) {\n" +
          I2 + "uint4 " + C.Regs + "[" + Batch + "];\n" +
          Unit(C.Regs + "[" + C.Unit + "] = reinterpret_cast<const uint4 *>(" +
               Base + ")[" + C.Vector + "]") +
          Unit("reinterpret_cast<uint4 *>(" + R.Buffer + ")[" + C.Vector +
               "] = " + C.Regs + "[" + C.Unit + "]") +
          I1 + "}\n";
      Copy +=
          I1 + "for (" + T + " " + C.Tail + " = " + Vectors + " * " + Per +
          " + threadIdx.x; " + C.Tail + " < " + N + "; " + C.Tail +
          " += blockDim.x)\n" + I2 + R.Buffer + "[" + C.Tail +
          "] = " + R.Load.BaseName + "[" +
          (R.Offset ? "(" + sourceText(R.Offset->getSourceRange(), AC) + ") + "
                    : std::string()) +
          C.Tail + "];\n";
    }
    return "// kopt shared-cache: " + Names +
           " read once into shared memory, as 16-byte vectors;\n" + In +
           "// the loops below read the row from there.\n" + In + Decls +
           "const bool " + C.Flag + " = " + N + " <= " + Cap + Check + ";\n" +
           In + "if (" + C.Flag + ") {\n" + Copy + In + "}\n" + In +
           "__syncthreads();\n" + In;
  }
};

} // namespace

std::unique_ptr<Pass> createSharedCachePass() {
  return std::make_unique<SharedCachePass>();
}

} // namespace kopt
