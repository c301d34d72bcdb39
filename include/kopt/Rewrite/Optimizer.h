//===- Optimizer.h - Run a pipeline with verification -----------*- C++ -*-===//
//
// Runs passes one after the other. After each pass that proposed edits, the
// edited source is re-parsed (device and host) and checked: a pass whose
// output does not parse, or that changes a kernel's or launcher's signature,
// is rolled back with a missed remark, and the pipeline goes on from the
// source before it.
//
//===----------------------------------------------------------------------===//

#ifndef KOPT_REWRITE_OPTIMIZER_H
#define KOPT_REWRITE_OPTIMIZER_H

#include "kopt/Frontend/CudaFrontend.h"
#include "kopt/Pipeline/Pipeline.h"
#include "kopt/Pipeline/Remark.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace kopt {

struct PassRun {
  std::string Pass;   ///< canonical `name{params}`
  unsigned Edits = 0; ///< edits kept (0 if rolled back)
  bool RolledBack = false;
  double Seconds = 0; ///< pass, re-parse and verification
};

struct OptimizeResult {
  std::string Code;
  std::vector<Remark> Remarks;
  std::vector<PassRun> Runs;
  double InitialParseSeconds = 0;
  /// Kernels defined in the input's main file.
  size_t InputKernels = 0;
};

class Pass;

struct OptimizerHooks {
  /// Builds a pass by name; createPass (the registry) by default. Tests
  /// substitute passes that misbehave on purpose.
  std::function<std::unique_ptr<Pass>(llvm::StringRef)> CreatePass;
  /// Sees each rolled-back candidate source, for debugging a pass.
  std::function<void(llvm::StringRef Pass, llvm::StringRef Code)> OnRollback;
};

/// Parses Code and runs P over it. Fails only if the input itself does not
/// parse; a broken pass is rolled back, not an error.
llvm::Expected<OptimizeResult> optimize(const CudaFrontend &Frontend,
                                        llvm::StringRef Path,
                                        llvm::StringRef Code, const Pipeline &P,
                                        const OptimizerHooks &Hooks = {});

} // namespace kopt

#endif // KOPT_REWRITE_OPTIMIZER_H
