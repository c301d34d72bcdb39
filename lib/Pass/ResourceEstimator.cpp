//===- ResourceEstimator.cpp - Registers and spills of a source -----------===//

#include "kopt/Pass/ResourceEstimator.h"

namespace kopt {

ResourceEstimator::~ResourceEstimator() = default;

const KernelResources *ResourceReport::kernel(llvm::StringRef Name) const {
  for (const KernelResources &K : Kernels)
    if (llvm::StringRef(K.Name).starts_with((Name + "(").str()) ||
        K.Name == Name)
      return &K;
  return nullptr;
}

} // namespace kopt
