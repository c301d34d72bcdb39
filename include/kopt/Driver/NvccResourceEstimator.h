//===- NvccResourceEstimator.h - Registers and spills from ptxas -*- C++
//-*-===//
//
// The resource estimator the tools give passes: compiles a candidate text
// to a cubin with `nvcc -Xptxas -v` in a temporary directory and reads
// ptxas's report. Answers are cached in memory by (arch, text), so a
// process that asks about the same source twice compiles it once, and on
// disk (resources/ in the cache directory) by what the report depends on:
// the kopt-opt processes of a search ask about the same intermediate texts
// again and again (every child of -O runs -O's checks), and an nvcc -E
// (about a fifth of the compile) answers them. The key covers every header
// the text includes, so an edited header is another key.
//
//===----------------------------------------------------------------------===//

#ifndef KOPT_DRIVER_NVCCRESOURCEESTIMATOR_H
#define KOPT_DRIVER_NVCCRESOURCEESTIMATOR_H

#include "kopt/Pass/ResourceEstimator.h"

#include "llvm/ADT/ArrayRef.h"

#include <map>
#include <mutex>
#include <string>
#include <vector>

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

  /// The on-disk cache's directory: resources/ in the cache directory.
  static std::string diskCacheDir();

private:
  llvm::Expected<ResourceReport>
  compile(llvm::StringRef Path, llvm::StringRef Code, llvm::StringRef Arch);
  /// The disk cache's key for the source at \p Source compiled with the
  /// \p Language flags: nvcc -E's device-side text of it (every header's
  /// contents as nvcc sees them, line markers removed), the flags, nvcc's
  /// and ptxas's identities and the environment; "" when nvcc -E fails
  /// (its output goes to \p Work).
  std::string diskKey(llvm::ArrayRef<std::string> Language,
                      llvm::StringRef Source, llvm::StringRef Work) const;

  std::string Nvcc;
  bool Searched; ///< Nvcc was looked for, not given
  std::mutex CacheMutex;
  std::map<std::string, ResourceReport> Cache;
  unsigned Compilations = 0;
};

} // namespace kopt

#endif // KOPT_DRIVER_NVCCRESOURCEESTIMATOR_H
