//===- ClusterSplit.cpp - A block's group shared by a cluster -------------===//
//
// A kernel that gives each block a group (a row of a norm, a channel) and
// walks it with block-stride loops that accumulate (then reduced by a tree,
// warp shuffles or a helper, the pass does not mind how) runs one
// block a group: sixteen groups of millions of elements keep 16 of the
// H100's 132 multiprocessors busy. This pass adds a copy,
// `<kernel>_kopt_cluster`, that runs each group on a thread-block cluster of
// C blocks (sm_90 and newer; planClusterSplit in lib/Analysis/ClusterSplit.cpp
// says what is proved):
//
//   __global__ void __cluster_dims__(C, 1, 1) k_kopt_cluster(...) {
//     const unsigned kopt_group = blockIdx.x / Cu;  // blockIdx.x of the
//     const unsigned kopt_rank = blockIdx.x % Cu;   // original
//     __shared__ float kopt_cluster_buf0[1024];     // a type's partials
//     ...
//     if (kopt_rank != 0u)                          // a sum's start, once
//       s = 0;
//     for (int i = static_cast<int>(kopt_cluster_part(n, kopt_rank, C,
//                                                     blockDim.x) +
//                                   (threadIdx.x));
//          i < static_cast<int>(kopt_cluster_part(n, kopt_rank + 1u, C,
//                                                 blockDim.x));
//          i += blockDim.x)                         // this block's part
//       s += in[i];
//     s = kopt_cluster_combine<Cu>(kopt_cluster_buf0, s,
//         [](float kopt_x, float kopt_y) { return kopt_x + kopt_y; });
//     ... the kernel's own block reduction of s, unchanged ...
//   }
//
// (the part's end implies `i < n` and fits its type; where the counter and
// the bound differ in type, `(i < n) && static_cast<long long>(i) < end`).
// kopt_cluster_part cuts [0, n) into C consecutive parts of a whole number
// of blockDim.x elements (the last ones shorter or empty), so that element
// i still falls to a thread with threadIdx.x == i % blockDim.x;
// kopt_cluster_combine stores the thread's value (launches have integer,
// so 1-D, blocks: threadIdx.x is the thread), waits for the cluster,
// reads that thread's value of every block through distributed shared
// memory in rank order, and waits again (no block overwrites its values or
// exits while another reads them). Both are added once a file. A
// floating-point sum is added in another order than the original
// (reassociate=true); maxima, minima and integer sums are the same values.
//
// Each launch runs the copy on C times the grid when the launch as written
// holds fewer threads than the device (a few big groups; many groups fill
// the GPU without it), its block is a power of two and the device has
// clusters (compute capability 9 or more): kopt_cluster_split_fits, a host
// helper added once a file. Otherwise it runs the original.
//
//===----------------------------------------------------------------------===//

#include "kopt/Analysis/ClusterSplit.h"
#include "FileHelper.h"
#include "Options.h"
#include "ScaledLaunch.h"
#include "SourceLayout.h"
#include "kopt/Pass/Pass.h"

#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/StringExtras.h"

using namespace clang;
using namespace llvm;

namespace kopt {

namespace {

using Replacement = std::tuple<unsigned, unsigned, std::string>;

const char *const ClusterSuffix = "_kopt_cluster";
const char *const FitsName = "kopt_cluster_split_fits";
const char *const PartName = "kopt_cluster_part";
const char *const CombineName = "kopt_cluster_combine";

std::string fitsText() {
  return std::string(
             "// kopt cluster-split: true when a grid of Grid blocks of Block "
             "threads starts\n"
             "// fewer threads than the device's multiprocessors hold, the "
             "block is a power of\n"
             "// two and the device runs thread-block clusters (compute "
             "capability 9 or more).\n"
             "static inline bool ") +
         FitsName +
         "(long long kopt_grid, long long kopt_block) {\n"
         "  if (kopt_grid < 1 || kopt_block < 1 || kopt_block > 1024 ||\n"
         "      (kopt_block & (kopt_block - 1)) != 0)\n"
         "    return false;\n"
         "  int kopt_dev = 0, kopt_major = 0, kopt_sms = 0, kopt_per_sm = 0;\n"
         "  if (cudaGetDevice(&kopt_dev) != cudaSuccess ||\n"
         "      cudaDeviceGetAttribute(&kopt_major, "
         "cudaDevAttrComputeCapabilityMajor,\n"
         "                             kopt_dev) != cudaSuccess ||\n"
         "      cudaDeviceGetAttribute(&kopt_sms, "
         "cudaDevAttrMultiProcessorCount,\n"
         "                             kopt_dev) != cudaSuccess ||\n"
         "      cudaDeviceGetAttribute(&kopt_per_sm,\n"
         "                             "
         "cudaDevAttrMaxThreadsPerMultiProcessor,\n"
         "                             kopt_dev) != cudaSuccess)\n"
         "    return false;\n"
         "  return kopt_major >= 9 &&\n"
         "         kopt_grid * kopt_block < static_cast<long long>(kopt_sms) "
         "* kopt_per_sm;\n"
         "}\n\n";
}

std::string deviceHelpersText() {
  return std::string(
             "// kopt cluster-split: where block kopt_r of a cluster of kopt_c "
             "blocks starts its\n"
             "// part of [0, kopt_n): consecutive parts of a whole number of "
             "kopt_g elements\n"
             "// (the block's width), the last ones shorter or empty (a "
             "function of its\n"
             "// arguments alone).\n"
             "static __device__ __forceinline__ __attribute__((const)) long "
             "long\n") +
         PartName +
         "(long long kopt_n, unsigned kopt_r, unsigned kopt_c, unsigned "
         "kopt_g) {\n"
         "  if (kopt_n <= 0)\n"
         "    return 0;\n"
         "  const long long kopt_size =\n"
         "      ((kopt_n + kopt_c - 1) / kopt_c + kopt_g - 1) / kopt_g * "
         "kopt_g;\n"
         "  return kopt_size * kopt_r < kopt_n ? kopt_size * kopt_r : "
         "kopt_n;\n"
         "}\n\n"
         "// kopt cluster-split: kopt_v of this thread and of the threads "
         "of the same index\n"
         "// in the cluster's other blocks (1-D blocks), combined in the "
         "order of their\n"
         "// ranks (every block gets the same bits) through kopt_a, a "
         "shared array of one\n"
         "// value a thread; the second wait keeps kopt_a until every block "
         "has read it.\n"
         "// One rank at a time: the loads of all ranks at once would hold "
         "registers that\n"
         "// the kernel's loops need (34 instead of 32 on an H100 halved "
         "the blocks an SM\n"
         "// held for a 1024-thread layer norm).\n"
         "template <unsigned kopt_c, typename kopt_T, typename kopt_Op>\n"
         "static __device__ __forceinline__ kopt_T\n" +
         CombineName +
         "(kopt_T *kopt_a, kopt_T kopt_v, kopt_Op kopt_op) {\n"
         "  const unsigned kopt_t = threadIdx.x;\n"
         "  kopt_a[kopt_t] = kopt_v;\n"
         "  __cluster_barrier_arrive();\n"
         "  __cluster_barrier_wait();\n"
         "  kopt_T kopt_total = static_cast<const kopt_T *>(\n"
         "      __cluster_map_shared_rank(kopt_a, 0u))[kopt_t];\n"
         "#pragma unroll 1\n"
         "  for (unsigned kopt_r = 1u; kopt_r < kopt_c; ++kopt_r)\n"
         "    kopt_total = kopt_op(kopt_total, static_cast<const kopt_T *>(\n"
         "                                         "
         "__cluster_map_shared_rank(kopt_a, kopt_r))[kopt_t]);\n"
         "  __cluster_barrier_arrive();\n"
         "  __cluster_barrier_wait();\n"
         "  return kopt_total;\n"
         "}\n\n";
}

/// The helpers a file has: the launches' check (host) and the combine
/// (device), each added once.
struct ClusterSplitState {
  FileHelper Fits{FitsName};
  bool DeviceHelpers = false;
};

class ClusterSplitPass
    : public KernelPass<ClusterSplitOptions, ClusterSplitState> {
  bool rewritesInstances() const override { return true; }

  void beginFile(PassContext &Ctx) override {
    State.Fits.beginFile(Ctx.hostContext());
    State.DeviceHelpers =
        declaresFileScopeFunction(Ctx.deviceContext(), PartName);
  }

  void runOnKernel(KernelContext &KC) override {
    const KernelInfo &K = KC.kernel();
    unsigned C = options().Blocks;
    auto Missed = [&](LineCol At, const Twine &Why) {
      KC.missed(At, "block-per-group kernel not shared by a cluster: " + Why);
    };
    if (StringRef(K.Name).contains(ClusterSuffix))
      return;
    if (C != 2 && C != 4 && C != 8)
      return Missed(K.Loc, "blocks=" + Twine(C) +
                               " is not 2, 4 or 8 (the "
                               "portable cluster sizes)");
    std::vector<const LaunchSite *> Launches = KC.info().launchesOf(K.Name);
    if (Launches.empty())
      return Missed(K.Loc, "no launch of '" + K.Name + "' in this file");
    llvm::erase_if(Launches,
                   [](const LaunchSite *L) { return isScaledLaunch(*L); });
    if (Launches.empty())
      return; // kopt's own launches: done already
    std::optional<unsigned> Arch = KC.info().gpuArchNumber();
    if (!Arch || *Arch < 90)
      return Missed(K.Loc, "thread-block clusters need sm_90 or newer; the "
                           "file is compiled for " +
                               KC.info().GpuArch);
    Decision<ClusterSplitPlan> D =
        planClusterSplit(K, KC.deviceContext(), options().Reassociate);
    if (auto *Why = std::get_if<Refusal>(&D))
      return Missed(Why->Loc.Line ? Why->Loc : K.Loc, Why->Message);
    const ClusterSplitPlan &P = std::get<ClusterSplitPlan>(D);
    std::string NewName = K.Name + ClusterSuffix;
    if (KC.info().kernel(NewName))
      return Missed(K.Loc, "'" + NewName + "' exists already");
    if (KC.info().hasUnknownLaunches(K.Name))
      return Missed(K.Loc,
                    "'" + K.Name + "' is referenced other than by a launch");

    ASTContext &Ctx = KC.deviceContext();
    std::optional<std::string> Copy = copyText(K, P, C, Ctx, KC.code());
    if (!Copy)
      return Missed(K.Loc, "part of the kernel is written in a macro");
    EditSet Edits(KC.pass().source().Path);
    SourceLocation End =
        Ctx.getSourceManager().getExpansionLoc(K.Decl->getBody()->getEndLoc());
    std::string Text =
        "\n\n" + (State.DeviceHelpers ? "" : deviceHelpersText()) + *Copy;
    if (Error E = Edits.insertAfterToken(End, Text, Ctx))
      return Missed(K.Loc, toString(std::move(E)));

    ASTContext &HC = KC.hostContext();
    std::string Cs = std::to_string(C);
    ScaledLaunchSpec Spec;
    Spec.Factor = C;
    Spec.FastSuffix = ClusterSuffix;
    Spec.Comment = "kopt cluster-split: a cluster of " + Cs +
                   " blocks a group when the launch leaves the GPU idle";
    Spec.Extra = [](const LaunchPieces &L) {
      return std::string(FitsName) + "(" + ScaledGridName + ", " + L.Config[1] +
             ")";
    };
    for (const LaunchSite *L : Launches)
      if (std::optional<std::string> Why =
              replaceWithScaledLaunch(*L, Spec, HC, Edits))
        return Missed(L->Loc, *Why);
    Expected<bool> Added =
        State.Fits.addBefore(KC.info(), fitsText(), Edits, HC);
    if (!Added)
      return Missed(K.Loc, toString(Added.takeError()));
    if (Error E = KC.edits().merge(Edits))
      return Missed(K.Loc, toString(std::move(E)));
    State.Fits.committed(*Added);
    State.DeviceHelpers = true;

    size_t Loops = P.Loops.size();
    std::string Names;
    for (const ClusterLoop &L : P.Loops)
      for (const Accumulator &A : L.Accumulators)
        Names += (Names.empty() ? "'" : ", '") + A.Var->getNameAsString() + "'";
    KC.applied(
        K.Loc,
        "'" + NewName +
            "' shares each block's group among a cluster "
            "of " +
            Cs + " blocks: " + Twine(Loops) + " block-stride loop" +
            (Loops == 1 ? "" : "s") + " divided among them, " + Names +
            " combined thread by thread across the cluster" +
            (P.Rounding ? " (floating-point values in another order)" : "") +
            "; " + Twine(Launches.size()) + " launch" +
            (Launches.size() == 1 ? " runs" : "es run") + " it with " + Cs +
            "x the grid when they hold fewer threads than the device");
  }

  /// Around loop L of the copy: before it, a sum's start is kept by rank
  /// 0 alone; after it, each accumulator is combined thread by thread
  /// through the shared array of its type (Buffers: one a type).
  static bool combineEdits(const ClusterLoop &L, const std::string &Cs,
                           std::vector<std::string> &Buffers, ASTContext &Ctx,
                           std::vector<Replacement> &Edits) {
    auto At = stmtOffsets(L.For, Ctx);
    if (!At)
      return false;
    PrintingPolicy PP(Ctx.getLangOpts());
    std::string In = indentOf(L.For->getBeginLoc(), Ctx);
    std::string Before, After;
    for (const Accumulator &A : L.Accumulators) {
      std::string V = A.Var->getNameAsString();
      std::string T = typeAsWritten(A.Var->getType().getUnqualifiedType(), PP);
      if (std::string Restart = restartStatement(A, "kopt_rank != 0u", In);
          !Restart.empty())
        Before += Restart + In;
      auto It = llvm::find(Buffers, T);
      std::string Buf = "kopt_cluster_buf" +
                        std::to_string(It - Buffers.begin());
      if (It == Buffers.end())
        Buffers.push_back(T);
      After += "\n" + In + V + " = " + CombineName + "<" + Cs + "u>(" + Buf +
               ", " + V + ", [](" + T + " kopt_x, " + T +
               " kopt_y) { return " + combineExpr(A, "kopt_x", "kopt_y") +
               "; });";
    }
    if (!Before.empty())
      Edits.emplace_back(At->first, 0, Before);
    Edits.emplace_back(At->second, 0, After);
    return true;
  }

  /// The kernel's definition as a cluster kernel (the file comment).
  static std::optional<std::string> copyText(const KernelInfo &K,
                                             const ClusterSplitPlan &P,
                                             unsigned C, ASTContext &Ctx,
                                             StringRef Code) {
    std::optional<DefinitionLayout> D = definitionLayout(K.Decl, Ctx);
    if (!D)
      return std::nullopt;
    const std::string &In = D->Indent;
    std::string Cs = std::to_string(C);
    std::vector<Replacement> Edits = {
        {D->NameAt, 0, "__cluster_dims__(" + Cs + ", 1, 1) "},
        {D->NameEnd, 0, ClusterSuffix},
        {D->BodyStart, 0,
         "\n" + In + "// kopt cluster-split: the " + Cs +
             " blocks of a cluster share group kopt_group (the\n" + In +
             "// original's block): each takes a part of every block-stride "
             "loop and\n" +
             In + "// the cluster combines what they accumulate, thread by "
             "thread.\n" + In}};
    std::vector<BuiltinUse> Uses = builtinUses(D->Body, Ctx);
    if (anyInMacro(Uses))
      return std::nullopt;
    bool Group = false;
    for (const BuiltinUse &U : Uses) {
      if (U.Ref.Dim != 0)
        continue;
      Group |= U.Ref.Var == BuiltinVar::BlockIdx;
      if (U.Ref.Var == BuiltinVar::BlockIdx)
        Edits.emplace_back(U.Begin, U.End - U.Begin, "kopt_group");
      else if (U.Ref.Var == BuiltinVar::GridDim)
        Edits.emplace_back(U.Begin, U.End - U.Begin,
                           "(gridDim.x / " + Cs + "u)");
    }
    PrintingPolicy PP(Ctx.getLangOpts());
    for (const ClusterLoop &L : P.Loops) {
      auto InitAt = exprOffsets(L.Init, Ctx);
      auto CondAt = exprOffsets(L.For->getCond(), Ctx);
      std::string Bound = sourceText(L.Bound->getSourceRange(), Ctx);
      if (!InitAt || !CondAt || Bound.empty())
        return std::nullopt;
      std::string T = typeAsWritten(L.Var->getType().getUnqualifiedType(), PP);
      std::string Part = std::string(PartName) + "(" + Bound + ", kopt_rank";
      std::string Width = "u, blockDim.x)";
      if (CondAt->first < InitAt->second)
        return std::nullopt;
      std::string ForIn = indentOf(L.For->getBeginLoc(), Ctx) + "     ";
      // The part ends at or before N, so `i < end` implies `i < N` when
      // both compare as the same type, and the end then fits that type: `i
      // < static_cast<T>(end)` is a loop with a simple trip count, which
      // nvcc unrolls and vectorize-loads takes. Else the original
      // condition stays.
      QualType VarT = L.Var->getType().getCanonicalType().getUnqualifiedType();
      QualType BoundT = stripCasts(L.Bound)
                            ->getType()
                            .getCanonicalType()
                            .getUnqualifiedType();
      std::string Var = L.Var->getNameAsString();
      std::string End = Part + " + 1u, " + Cs + Width;
      std::string Cond =
          VarT == BoundT
              ? Var + " < static_cast<" + T + ">(" + End + ")"
              : "(" + Code.slice(CondAt->first, CondAt->second).str() +
                    ") &&\n" + ForIn + "static_cast<long long>(" + Var +
                    ") < " + End;
      Edits.emplace_back(InitAt->first, CondAt->second - InitAt->first,
                         "static_cast<" + T + ">(" + Part + ", " + Cs +
                             Width + " +\n" + ForIn + "    (" +
                             Code.slice(InitAt->first, InitAt->second).str() +
                             "));\n" + ForIn + Cond);
    }
    std::vector<std::string> Buffers; // a type's array of partial values
    for (const ClusterLoop &L : P.Loops)
      if (!L.Accumulators.empty() && !combineEdits(L, Cs, Buffers, Ctx, Edits))
        return std::nullopt;
    std::string Arrays;
    for (size_t I = 0; I < Buffers.size(); ++I)
      Arrays += "\n" + In + "__shared__ " + Buffers[I] + " kopt_cluster_buf" +
                std::to_string(I) + "[1024];";
    std::get<2>(Edits[2]) +=
        (Group ? "const unsigned kopt_group = blockIdx.x / " + Cs + "u;\n" + In
               : "") +
        "const unsigned kopt_rank = blockIdx.x % " + Cs + "u;" + Arrays;
    for (const auto &[Offset, Length, Text] : Edits)
      if (Offset < D->Begin || Offset + Length > D->End)
        return std::nullopt;
    llvm::stable_sort(Edits, [](const Replacement &A, const Replacement &B) {
      return std::get<0>(A) < std::get<0>(B);
    });
    return splice(Code, D->Begin, D->End, std::move(Edits));
  }
};

} // namespace

std::unique_ptr<Pass> createClusterSplitPass() {
  return std::make_unique<ClusterSplitPass>();
}

} // namespace kopt
