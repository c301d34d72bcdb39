//===- KernelInfo.h - Facts about the kernels of one source -----*- C++ -*-===//
//
// The analysis result every pass reads and `kopt-opt --analyze` prints:
// kernels with their parameters and attributes, launch sites, loops, global
// accesses with their per-thread index class, barriers and the phases they
// cut, shared arrays, and global values read again in a later phase.
//
// Kernel facts come from the device-side AST, launch sites from the host-side
// AST. The AST pointers stay valid while the ParsedSource lives.
//
//===----------------------------------------------------------------------===//

#ifndef KOPT_ANALYSIS_KERNELINFO_H
#define KOPT_ANALYSIS_KERNELINFO_H

#include "kopt/Analysis/CudaAST.h"
#include "kopt/Analysis/IndexClassifier.h"
#include "kopt/Frontend/CudaFrontend.h"

#include "llvm/Support/JSON.h"

#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace kopt {

struct ParamInfo {
  std::string Name;
  std::string Type;
  bool IsPointer = false;
  std::string PointeeType; ///< unqualified element type of a pointer
  bool PointeeConst = false;
  bool Restrict = false;
  const clang::ParmVarDecl *Decl = nullptr;
};

struct LoopInfo {
  enum Kind { GridStride, BlockStride, Counted, Other };
  Kind K = Other;
  LineCol Loc;
  std::string Var;   ///< induction variable, if counted
  std::string Bound; ///< bound expression text, if counted
  std::optional<int64_t> TripCount;
  unsigned Phase = 0;
  const clang::ForStmt *For = nullptr; ///< nullptr for while/do loops
  /// A loop that starts at a thread's place in the block (`threadIdx.x`,
  /// `start + threadIdx.x`) and steps by a constant: the step.
  std::optional<int64_t> ThreadStartConstStep;
  /// Such a loop stepping by a parameter of the kernel that it never
  /// changes (llm.c's `i += block_size`): the parameter's index.
  std::optional<unsigned> ThreadStartParamStep;
  /// A loop `for (i = blockIdx.x * C + threadIdx.x; ...; i += C *
  /// gridDim.x)` with C a compile-time constant (a macro, a constexpr, a
  /// template argument): C.
  std::optional<int64_t> GridStartConstBlock;
  /// A BlockStride or GridStride loop whose step is written as a constant
  /// or a parameter that every launch's blockDim.x equals
  /// (markLaunchedBlockStrides): the same loop as one stepping by
  /// blockDim.x, in the kernels this file launches.
  bool StepIsBlockSize = false;
  static llvm::StringRef kindName(Kind K);
};

struct AccessInfo {
  enum Kind { Load, Store, LoadStore, AddressOf };
  Kind K = Load;
  LineCol Loc;
  std::string Base; ///< pointer parameter
  std::string ElementType;
  std::string Index; ///< index expression text
  IndexClass Class;
  unsigned Phase = 0;
  const clang::ArraySubscriptExpr *Expr = nullptr;
  const clang::ParmVarDecl *BaseDecl = nullptr;
  /// For an access through a local pointer fixed to BaseDecl plus an
  /// offset (`row[i]` with `const float *row = x + r * n;`, LocalPointers.h):
  /// that local; Base is then its name.
  const clang::VarDecl *Through = nullptr;
  static llvm::StringRef kindName(Kind K);
  bool reads() const { return K == Load || K == LoadStore; }
  bool writes() const { return K == Store || K == LoadStore; }
};

struct BarrierInfo {
  LineCol Loc;
  std::string Callee;
  unsigned PhaseBefore = 0; ///< the phase this barrier ends
};

struct SharedArrayInfo {
  std::string Name;
  std::string Type;
  std::optional<int64_t> Elements; ///< unset for extern (dynamic) arrays
  bool Dynamic = false;
  LineCol Loc;
};

/// A global element loaded and loaded again later (same pointer, same index
/// as written; each pair of reads): in a later phase (after a barrier) or
/// the same one, from a pointer the kernel writes or only reads.
struct ReReadInfo {
  std::string Base;
  std::string Index;
  LineCol First, Again;
  unsigned FirstPhase = 0, AgainPhase = 0;
  /// The kernel stores to the pointer or takes an element's address: the
  /// element may have changed between the reads.
  bool BaseWritten = false;
};

struct KernelInfo {
  std::string Name;
  LineCol Loc;
  /// A function template as written (its Decl is the pattern).
  bool IsTemplate = false;
  /// For an instantiation of a template kernel: its arguments as written in
  /// C++ ("<float, 256>"); empty otherwise.
  std::string TemplateArgs;
  /// For a template (IsTemplate): the facts of each instantiation of it
  /// that this file defines, in the order Clang made them.
  std::vector<KernelInfo> Instances;
  std::vector<ParamInfo> Params;
  std::vector<std::string> Attributes;
  std::optional<int64_t> LaunchBoundsMaxThreads;
  std::optional<int64_t> LaunchBoundsMinBlocks;
  std::vector<LoopInfo> Loops;
  /// The x extent every launch of this kernel in the file runs, where all
  /// are one constant and none is hidden (markLaunchedBlockStrides): what a
  /// constant written for blockDim.x must equal.
  std::optional<int64_t> LaunchedBlockX;
  std::vector<AccessInfo> Accesses;
  /// Accesses through local pointers fixed to a parameter (AccessInfo::
  /// Through), kept apart: the analyses that read Accesses see parameters
  /// only.
  std::vector<AccessInfo> LocalPointerAccesses;
  std::vector<BarrierInfo> Barriers;
  unsigned NumPhases = 1;
  std::vector<SharedArrayInfo> SharedArrays;
  std::vector<ReReadInfo> ReReads;
  const clang::FunctionDecl *Decl = nullptr; ///< device-side definition

  const ParamInfo *param(llvm::StringRef Name) const;
};

/// A launch dimension: what the user wrote and its constant value if any.
struct LaunchDim {
  std::string Text; ///< empty if omitted (defaulted)
  DimValue Value;
  bool IsDim3 = false;
  const clang::Expr *Expr = nullptr; ///< user-written expression
  /// Why Value has no total, when the user wrote a variable that looks
  /// constant but is not (changed through an alias, a call, ...).
  std::string WhyUnknown;
};

struct LaunchSite {
  std::string Kernel;
  /// The launched specialization's template arguments ("<float, 256>"), as
  /// KernelInfo::TemplateArgs; empty for a kernel that is not a template.
  std::string TemplateArgs;
  std::string Caller;
  LineCol Loc;
  LaunchDim Grid, Block, SharedBytes, Stream;
  const clang::CUDAKernelCallExpr *Call = nullptr; ///< host-side
  const clang::FunctionDecl *CallerDecl = nullptr; ///< host-side
};

/// A block's extents, as a launch runs it.
struct BlockExtents {
  int64_t X = 1, Y = 1, Z = 1;
  /// "32 x 8 x 1".
  std::string str() const;
};

struct ProgramInfo {
  std::string File;
  std::string GpuArch;
  /// The number of GpuArch ("sm_90a": 90), or none.
  std::optional<unsigned> gpuArchNumber() const;
  std::vector<KernelInfo> Kernels;
  std::vector<LaunchSite> LaunchSites;
  /// Kernels whose address is taken other than by a launch (function
  /// pointers, cudaLaunchKernel): their launch configuration is unknown.
  std::vector<std::string> KernelsWithUnknownLaunches;

  const KernelInfo *kernel(llvm::StringRef Name) const;
  std::vector<const LaunchSite *> launchesOf(llvm::StringRef Kernel) const;
  bool hasUnknownLaunches(llvm::StringRef Kernel) const;
  /// The kernel's block size as passes may rely on it: its
  /// __launch_bounds__, else the one constant block size (threads) that all
  /// its launch sites use; none if launches are hidden or disagree.
  std::optional<int64_t> knownBlockSize(const KernelInfo &K) const;
  /// The one constant block (all three extents) every launch of Kernel in
  /// this file runs, or why there is none (hidden launches, none in the
  /// file, a block that is not a compile-time constant, two blocks).
  std::variant<BlockExtents, std::string>
  constantBlock(llvm::StringRef Kernel) const;
  /// blockDim.x of every launch of K in this file (of K's own
  /// instantiation for a template's), or why there is no one constant.
  std::variant<int64_t, std::string> launchedBlockX(const KernelInfo &K) const;
  /// This program as a pass sees one instantiation of a template kernel:
  /// Instance in place of its template, and of the template's launches
  /// only those of that instantiation.
  ProgramInfo forInstance(const KernelInfo &Template,
                          const KernelInfo &Instance) const;
};

/// The template arguments of a function template's specialization as C++
/// writes them ("<float, 256>"); empty for other functions.
std::string templateArgumentsText(const clang::FunctionDecl *FD);

/// Why the constant C, written where blockDim.x would be, is not K's block
/// size: "every launch runs N threads in x", or that the launches do not
/// all run one constant block.
std::string whyNotLaunchedBlockX(const KernelInfo &K, int64_t C);

/// K's facts about the loop For; nullptr if For is not K's.
const LoopInfo *loopOf(const KernelInfo &K, const clang::ForStmt *For);

/// The facts of one kernel definition (device-side AST).
KernelInfo analyzeKernel(const clang::FunctionDecl *FD, clang::ASTContext &Ctx);

/// Adds the launch sites of the host-side AST (and the kernels referenced
/// other than by a launch) to Info.
void findLaunchSites(clang::ASTContext &HostCtx, ProgramInfo &Info);

/// Marks as BlockStride (StepIsBlockSize) the loops that step by a
/// constant equal to blockDim.x of every launch of their kernel (or
/// template instantiation) in Info, or by a parameter every launch passes
/// the value of its 1-D block (`k<<<g, bs>>>(..., bs)`), when no launch is
/// hidden; as GridStride the loops whose start and stride name that
/// constant (GridStartConstBlock); and sets each kernel's LaunchedBlockX.
void markLaunchedBlockStrides(ProgramInfo &Info);

/// Where a launch of K in Info may pass its block's x extent to an integer
/// parameter (`k<<<g, bs>>>(..., bs)`, or a value equal to its constant x):
/// a block size the kernel's code sees without blockDim.x, so another block
/// size may change what it computes.
std::optional<std::string> blockPassedToParameter(const ProgramInfo &Info,
                                                  const KernelInfo &K);

/// Why L, a loop of K that starts at a thread's place in the block and
/// steps by a constant or a parameter (ThreadStartConstStep,
/// ThreadStartParamStep), is not a block-stride loop by K's launches in
/// Info, or L, a grid-stride loop written with a constant block size
/// (GridStartConstBlock), is not one; empty if it is. A constant below 32
/// is not taken for a block size.
std::string whyStepIsNotBlockSize(const ProgramInfo &Info, const KernelInfo &K,
                                  const LoopInfo &L);

/// Analyzes the kernels defined in the main file of Source.
ProgramInfo analyzeProgram(ParsedSource &Source, llvm::StringRef GpuArch);

llvm::json::Value toJSON(const ProgramInfo &Info);

} // namespace kopt

#endif // KOPT_ANALYSIS_KERNELINFO_H
