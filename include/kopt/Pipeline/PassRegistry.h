//===- PassRegistry.h - What passes exist and what they take ----*- C++ -*-===//
//
// The metadata side of passes/Passes.def: names, summaries and typed
// parameters. The factory that builds pass objects lives with the passes.
//
//===----------------------------------------------------------------------===//

#ifndef KOPT_PIPELINE_PASSREGISTRY_H
#define KOPT_PIPELINE_PASSREGISTRY_H

#include "llvm/ADT/StringRef.h"

#include <vector>

namespace kopt {

enum class ParamType { Bool, UInt, AutoUInt, String };

llvm::StringRef paramTypeName(ParamType T);

struct ParamSpec {
  llvm::StringRef Key;
  ParamType Type;
  llvm::StringRef Default;
  llvm::StringRef Help;
};

struct PassSpec {
  llvm::StringRef Name;
  llvm::StringRef Summary;
  std::vector<ParamSpec> Params;

  const ParamSpec *param(llvm::StringRef Key) const;
};

struct PipelineAlias {
  llvm::StringRef Name;
  llvm::StringRef Pipeline;
  llvm::StringRef Summary;
};

const std::vector<PassSpec> &registeredPasses();
const PassSpec *findPass(llvm::StringRef Name);
const std::vector<PipelineAlias> &pipelineAliases();
const PipelineAlias *findPipelineAlias(llvm::StringRef Name);

} // namespace kopt

#endif // KOPT_PIPELINE_PASSREGISTRY_H
