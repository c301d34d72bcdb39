//===- PassRegistry.h - What passes exist and how to build them -*- C++ -*-===//
//
// A registry is a table of passes (name, summary, typed parameters and a
// factory) and named pipelines. The passes library fills one from
// passes/Passes.def (kopt::builtinPasses()); the pipeline parser, the pass
// manager, the tools' help and kopt-search's parameter space read it. Tests
// build registries of their own.
//
//===----------------------------------------------------------------------===//

#ifndef KOPT_PASS_PASSREGISTRY_H
#define KOPT_PASS_PASSREGISTRY_H

#include "kopt/Pass/PassOptions.h"

#include "llvm/ADT/StringRef.h"

#include <functional>
#include <memory>
#include <vector>

namespace kopt {

class Pass;

struct PassSpec {
  llvm::StringRef Name;
  llvm::StringRef Summary;
  std::vector<ParamSpec> Params;
  std::function<std::unique_ptr<Pass>()> Create;

  const ParamSpec *param(llvm::StringRef Key) const;
};

struct PipelineAlias {
  llvm::StringRef Name;
  llvm::StringRef Pipeline;
  llvm::StringRef Summary;
};

class PassRegistry {
public:
  void addPass(PassSpec Spec) { Passes.push_back(std::move(Spec)); }
  void addAlias(PipelineAlias Alias) { Aliases.push_back(Alias); }

  const std::vector<PassSpec> &passes() const { return Passes; }
  const std::vector<PipelineAlias> &aliases() const { return Aliases; }
  const PassSpec *findPass(llvm::StringRef Name) const;
  const PipelineAlias *findAlias(llvm::StringRef Name) const;

  /// The help text: every pass with its parameters, then the pipelines.
  std::string describe() const;
  /// The same as JSON: passes with their parameters' types, defaults,
  /// effects and search values, then the pipelines (kopt-search reads it).
  std::string describeJSON() const;

private:
  std::vector<PassSpec> Passes;
  std::vector<PipelineAlias> Aliases;
};

} // namespace kopt

#endif // KOPT_PASS_PASSREGISTRY_H
