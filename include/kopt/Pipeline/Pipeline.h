//===- Pipeline.h - Parsed pass pipelines -----------------------*- C++ -*-===//
//
// A pipeline is a comma-separated list of passes with typed parameters:
//
//   launch-bounds{max-threads=256,replace=true},vectorize-loads
//
// Parsing fills in every parameter's default, so the canonical form printed
// by str() names all of them and parses back to the same pipeline.
//
//===----------------------------------------------------------------------===//

#ifndef KOPT_PIPELINE_PIPELINE_H
#define KOPT_PIPELINE_PIPELINE_H

#include "kopt/Pass/PassOptions.h"
#include "kopt/Pass/PassRegistry.h"

#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace kopt {

struct Pipeline {
  std::vector<PassInstance> Passes;
  std::string str() const;
};

/// A pipeline syntax or semantic error at a byte offset of the text.
class PipelineError : public llvm::ErrorInfo<PipelineError> {
public:
  static char ID;
  PipelineError(std::string Message, size_t Position)
      : Message(std::move(Message)), Position(Position) {}
  void log(llvm::raw_ostream &OS) const override;
  std::error_code convertToErrorCode() const override;
  std::string Message;
  size_t Position;
};

/// Parses a pipeline of Registry's passes; named pipelines (e.g. `default`)
/// are expanded.
llvm::Expected<Pipeline> parsePipeline(llvm::StringRef Text,
                                       const PassRegistry &Registry);

} // namespace kopt

#endif // KOPT_PIPELINE_PIPELINE_H
