//===- NvccResourceEstimator.h - Registers and spills from ptxas -*- C++
//-*-===//
//
// The resource estimator the tools give passes: compiles a candidate text
// to a cubin with `nvcc -Xptxas -v` in a temporary directory and reads
// ptxas's report. Answers are cached in memory by (arch, text), so a search
// that asks about the same source twice compiles it once.
//
//===----------------------------------------------------------------------===//

#ifndef KOPT_DRIVER_NVCCRESOURCEESTIMATOR_H
#define KOPT_DRIVER_NVCCRESOURCEESTIMATOR_H

#include "kopt/Pass/ResourceEstimator.h"

#include <map>
#include <mutex>
#include <string>

namespace kopt {

class NvccResourceEstimator : public ResourceEstimator {
public:
  /// Nvcc: the compiler to run; empty looks for one ($KOPT_NVCC,
  /// $CUDA_PATH/bin, PATH, /usr/local/cuda/bin).
  explicit NvccResourceEstimator(std::string Nvcc = "");

  std::optional<std::string> unavailable() const override;
  llvm::Expected<ResourceReport> estimate(llvm::StringRef Path,
                                          llvm::StringRef Code,
                                          llvm::StringRef Arch) override;

  const std::string &nvcc() const { return Nvcc; }
  /// How many times nvcc actually ran (the rest came from the cache).
  unsigned compilations() const { return Compilations; }

private:
  llvm::Expected<ResourceReport>
  compile(llvm::StringRef Path, llvm::StringRef Code, llvm::StringRef Arch);

  std::string Nvcc;
  bool Searched; ///< Nvcc was looked for, not given
  std::mutex CacheMutex;
  std::map<std::string, ResourceReport> Cache;
  unsigned Compilations = 0;
};

} // namespace kopt

#endif // KOPT_DRIVER_NVCCRESOURCEESTIMATOR_H
