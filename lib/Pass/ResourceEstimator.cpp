//===- ResourceEstimator.cpp - Registers and spills of a source -----------===//

#include "kopt/Pass/ResourceEstimator.h"

namespace kopt {

ResourceEstimator::~ResourceEstimator() = default;

std::vector<const KernelResources *>
ResourceReport::kernels(llvm::StringRef Name) const {
  std::vector<const KernelResources *> Out;
  std::string Instance = ("void " + Name + "<").str();
  for (const KernelResources &K : Kernels)
    if (llvm::StringRef(K.Name).starts_with((Name + "(").str()) ||
        K.Name == Name || llvm::StringRef(K.Name).starts_with(Instance))
      Out.push_back(&K);
  return Out;
}

std::vector<std::pair<const KernelResources *, const KernelResources *>>
matchKernels(const ResourceReport &Before, const ResourceReport &After,
             llvm::StringRef Name) {
  std::vector<std::pair<const KernelResources *, const KernelResources *>> Out;
  for (const KernelResources *A : After.kernels(Name)) {
    const KernelResources *B = nullptr;
    for (const KernelResources *Old : Before.kernels(Name))
      if (Old->Name == A->Name)
        B = Old;
    Out.emplace_back(B, A);
  }
  return Out;
}

} // namespace kopt
