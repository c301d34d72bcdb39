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

#include "kopt/Pipeline/PassRegistry.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kopt {

/// A parameter's value, of its spec's type.
struct ParamValue {
  bool Bool = false;
  uint64_t UInt = 0;
  bool IsAuto = false; ///< for AutoUInt
  std::string String;

  /// The value as the user writes it.
  std::string str(ParamType T) const;
};

/// Parses Text as a value of type T; returns an error message on failure.
llvm::Expected<ParamValue> parseParamValue(ParamType T, llvm::StringRef Text);

/// One pass of a pipeline with all its parameters set.
class PassInstance {
public:
  PassInstance(const PassSpec &Spec, std::vector<ParamValue> Values)
      : Spec(&Spec), Values(std::move(Values)) {}

  const PassSpec &spec() const { return *Spec; }
  llvm::StringRef name() const { return Spec->Name; }

  bool getBool(llvm::StringRef Key) const;
  uint64_t getUInt(llvm::StringRef Key) const;
  /// std::nullopt means "auto".
  std::optional<uint64_t> getAutoUInt(llvm::StringRef Key) const;
  llvm::StringRef getString(llvm::StringRef Key) const;

  /// `name{key=value,...}` with every parameter.
  std::string str() const;

private:
  const ParamValue &value(llvm::StringRef Key) const;

  const PassSpec *Spec;
  std::vector<ParamValue> Values; ///< in the order of Spec->Params
};

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

/// Parses a pipeline; named pipelines (e.g. `default`) are expanded.
llvm::Expected<Pipeline> parsePipeline(llvm::StringRef Text);

} // namespace kopt

#endif // KOPT_PIPELINE_PIPELINE_H
