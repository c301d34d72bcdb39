//===- KernelInfo.cpp - Facts about the kernels of one source -------------===//

#include "kopt/Analysis/KernelInfo.h"
#include "kopt/Analysis/Matching.h"

#include "clang/AST/Attr.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/TemplateBase.h"
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

ProgramInfo ProgramInfo::forInstance(const KernelInfo &Template,
                                     const KernelInfo &Instance) const {
  ProgramInfo View = *this;
  for (KernelInfo &K : View.Kernels)
    if (K.Decl == Template.Decl) {
      K = Instance;
      K.Instances.clear();
    }
  llvm::erase_if(View.LaunchSites, [&](const LaunchSite &L) {
    return L.Kernel == Template.Name && L.TemplateArgs != Instance.TemplateArgs;
  });
  return View;
}

std::string templateArgumentsText(const FunctionDecl *FD) {
  const TemplateArgumentList *Args =
      FD ? FD->getTemplateSpecializationArgs() : nullptr;
  if (!Args)
    return "";
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  PrintingPolicy PP(FD->getASTContext().getLangOpts());
  PP.SuppressTagKeyword = true;
  printTemplateArgumentList(OS, Args->asArray(), PP);
  return Text;
}

namespace {

/// The instantiations of template kernel FD that have a body (the ones
/// this file uses), explicit specializations left out: they are kernels of
/// their own.
std::vector<const FunctionDecl *> instancesOf(const FunctionDecl *FD) {
  std::vector<const FunctionDecl *> Out;
  const FunctionTemplateDecl *T = FD->getDescribedFunctionTemplate();
  if (!T)
    return Out;
  for (const FunctionDecl *S : T->specializations()) {
    TemplateSpecializationKind TSK = S->getTemplateSpecializationKind();
    if ((TSK == TSK_ImplicitInstantiation ||
         TSK == TSK_ExplicitInstantiationDefinition) &&
        S->getBody())
      Out.push_back(S);
  }
  return Out;
}

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

std::optional<unsigned> ProgramInfo::gpuArchNumber() const {
  StringRef Arch = GpuArch;
  unsigned N = 0;
  if (!Arch.consume_front("sm_"))
    return std::nullopt;
  Arch = Arch.take_while([](char C) { return isDigit(C); });
  if (Arch.getAsInteger(10, N))
    return std::nullopt;
  return N;
}

ProgramInfo analyzeProgram(ParsedSource &Source, StringRef GpuArch) {
  resetMutationCache();
  ProgramInfo Info;
  Info.File = Source.Path;
  Info.GpuArch = GpuArch.str();
  ASTContext &DeviceCtx = Source.Device->getASTContext();
  for (const FunctionDecl *FD : findKernels(DeviceCtx)) {
    Info.Kernels.push_back(analyzeKernel(FD, DeviceCtx));
    for (const FunctionDecl *I : instancesOf(FD))
      Info.Kernels.back().Instances.push_back(analyzeKernel(I, DeviceCtx));
  }
  findLaunchSites(Source.Host->getASTContext(), Info);
  markLaunchedBlockStrides(Info);
  return Info;
}

} // namespace kopt
