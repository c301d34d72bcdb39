//===- KernelInfo.cpp - Facts about the kernels of one source -------------===//

#include "kopt/Analysis/KernelInfo.h"
#include "kopt/Analysis/Matching.h"

#include "clang/AST/Attr.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/STLExtras.h"

using namespace clang;
using namespace clang::ast_matchers;
using namespace llvm;

namespace kopt {

StringRef LoopInfo::kindName(Kind K) {
  switch (K) {
  case GridStride:
    return "grid-stride";
  case BlockStride:
    return "block-stride";
  case Counted:
    return "counted";
  case Other:
    return "other";
  }
  llvm_unreachable("bad loop kind");
}

StringRef AccessInfo::kindName(Kind K) {
  switch (K) {
  case Load:
    return "load";
  case Store:
    return "store";
  case LoadStore:
    return "load-store";
  case AddressOf:
    return "address-of";
  }
  llvm_unreachable("bad access kind");
}

const ParamInfo *KernelInfo::param(StringRef N) const {
  for (const ParamInfo &P : Params)
    if (P.Name == N)
      return &P;
  return nullptr;
}

const KernelInfo *ProgramInfo::kernel(StringRef Name) const {
  for (const KernelInfo &K : Kernels)
    if (K.Name == Name)
      return &K;
  return nullptr;
}

std::vector<const LaunchSite *>
ProgramInfo::launchesOf(StringRef Kernel) const {
  std::vector<const LaunchSite *> Result;
  for (const LaunchSite &L : LaunchSites)
    if (L.Kernel == Kernel)
      Result.push_back(&L);
  return Result;
}

bool ProgramInfo::hasUnknownLaunches(StringRef Kernel) const {
  return is_contained(KernelsWithUnknownLaunches, Kernel);
}

std::optional<int64_t> ProgramInfo::knownBlockSize(const KernelInfo &K) const {
  if (K.LaunchBoundsMaxThreads)
    return K.LaunchBoundsMaxThreads;
  if (hasUnknownLaunches(K.Name))
    return std::nullopt;
  std::optional<int64_t> Size;
  for (const LaunchSite *L : launchesOf(K.Name)) {
    std::optional<int64_t> T = L->Block.Value.total();
    if (!T || (Size && *Size != *T))
      return std::nullopt;
    Size = T;
  }
  return Size;
}

std::string BlockExtents::str() const {
  return std::to_string(X) + " x " + std::to_string(Y) + " x " +
         std::to_string(Z);
}

std::variant<BlockExtents, std::string>
ProgramInfo::constantBlock(StringRef Kernel) const {
  if (hasUnknownLaunches(Kernel))
    return "'" + Kernel.str() +
           "' is referenced other than by a <<<...>>> launch (function "
           "pointer or launch API): its blocks are unknown";
  std::vector<const LaunchSite *> Launches = launchesOf(Kernel);
  if (Launches.empty())
    return "no launch of '" + Kernel.str() + "' in this file";
  std::optional<BlockExtents> Block;
  for (const LaunchSite *L : Launches) {
    const DimValue &D = L->Block.Value;
    if (!D.X || !D.Y || !D.Z)
      return "the block '" + L->Block.Text + "' of the launch at " +
             str(L->Loc) + " is not a compile-time constant";
    BlockExtents B{*D.X, *D.Y, *D.Z};
    if (Block && (Block->X != B.X || Block->Y != B.Y || Block->Z != B.Z))
      return "its launches run different blocks (" + Block->str() + " and " +
             B.str() + " at " + str(L->Loc) + ")";
    Block = B;
  }
  return *Block;
}

namespace {

/// Kernel definitions written in the main file (templates as written, not
/// their instantiations), in source order.
std::vector<const FunctionDecl *> findKernels(ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  std::vector<const FunctionDecl *> Kernels;
  for (const FunctionDecl *FD : nodesEverywhere<FunctionDecl>(
           functionDecl(hasAttr(attr::CUDAGlobal), isDefinition(),
                        unless(isTemplateInstantiation()))
               .bind("k"),
           "k", Ctx)) {
    if (SM.isInMainFile(SM.getExpansionLoc(FD->getLocation())))
      Kernels.push_back(FD);
  }
  return Kernels;
}

} // namespace

ProgramInfo analyzeProgram(ParsedSource &Source, StringRef GpuArch) {
  resetMutationCache();
  ProgramInfo Info;
  Info.File = Source.Path;
  Info.GpuArch = GpuArch.str();
  ASTContext &DeviceCtx = Source.Device->getASTContext();
  for (const FunctionDecl *FD : findKernels(DeviceCtx))
    Info.Kernels.push_back(analyzeKernel(FD, DeviceCtx));
  findLaunchSites(Source.Host->getASTContext(), Info);
  return Info;
}

} // namespace kopt
