//===- PassManager.h - Run a pipeline with verification ---------*- C++ -*-===//
//
// Runs passes one after the other. After each pass that proposed edits, the
// edited source is re-parsed (device and host) and checked: a pass whose
// output does not parse, or that changes a kernel's or launcher's signature,
// is rolled back with a missed remark, and the pipeline goes on from the
// source before it.
//
//===----------------------------------------------------------------------===//

#ifndef KOPT_PIPELINE_PASSMANAGER_H
#define KOPT_PIPELINE_PASSMANAGER_H

#include "kopt/Frontend/CudaFrontend.h"
#include "kopt/Pass/Remark.h"
#include "kopt/Pass/ResourceEstimator.h"
#include "kopt/Pipeline/Pipeline.h"

#include <functional>
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

struct PassManagerOptions {
  /// Answers passes' register and spill questions; null: none available.
  ResourceEstimator *Estimator = nullptr;
  /// Sees each rolled-back candidate source, for debugging a pass.
  std::function<void(llvm::StringRef Pass, llvm::StringRef Code)> OnRollback;
  /// Runs each pass alone on the input and applies none of their edits:
  /// the remarks say what each would do there (its applied remarks are
  /// not verified by a re-parse), and the result's code is the input.
  bool Probe = false;
  /// A source parsed before from the same path (empty at first): it is
  /// reparsed with the new code, keeping its precompiled headers, instead
  /// of parsed afresh, and is left holding the pipeline's output. A batch
  /// of pipelines over one file pays for the CUDA headers once.
  ParsedSource *Reuse = nullptr;
};

/// Parses Code and runs P over it. Fails only if the input itself does not
/// parse; a broken pass is rolled back, not an error.
llvm::Expected<OptimizeResult>
runPipeline(const CudaFrontend &Frontend, llvm::StringRef Path,
            llvm::StringRef Code, const Pipeline &P,
            const PassManagerOptions &Options = {});

} // namespace kopt

#endif // KOPT_PIPELINE_PASSMANAGER_H
