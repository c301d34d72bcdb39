//===- PassRegistry.cpp - What passes exist and what they take ------------===//

#include "kopt/Pipeline/PassRegistry.h"

#include "llvm/Support/ErrorHandling.h"

using namespace llvm;

namespace kopt {

StringRef paramTypeName(ParamType T) {
  switch (T) {
  case ParamType::Bool:
    return "bool";
  case ParamType::UInt:
    return "uint";
  case ParamType::AutoUInt:
    return "auto|uint";
  case ParamType::String:
    return "string";
  }
  llvm_unreachable("bad parameter type");
}

const ParamSpec *PassSpec::param(StringRef Key) const {
  for (const ParamSpec &P : Params)
    if (P.Key == Key)
      return &P;
  return nullptr;
}

namespace {

std::vector<PassSpec> buildPasses() {
  std::vector<PassSpec> Passes;
#define KOPT_PASS(NAME, CLASS, SUMMARY) Passes.push_back({NAME, SUMMARY, {}});
#define KOPT_PASS_PARAM(PASS, KEY, TYPE, DEFAULT, HELP)                        \
  for (PassSpec & P : Passes)                                                  \
    if (P.Name == PASS)                                                        \
      P.Params.push_back({KEY, ParamType::TYPE, DEFAULT, HELP});
#include "Passes.def"
  return Passes;
}

} // namespace

const std::vector<PassSpec> &registeredPasses() {
  static const std::vector<PassSpec> Passes = buildPasses();
  return Passes;
}

const PassSpec *findPass(StringRef Name) {
  for (const PassSpec &P : registeredPasses())
    if (P.Name == Name)
      return &P;
  return nullptr;
}

const std::vector<PipelineAlias> &pipelineAliases() {
  static const std::vector<PipelineAlias> Aliases = {
#define KOPT_PIPELINE(NAME, PIPELINE, SUMMARY) {NAME, PIPELINE, SUMMARY},
#include "Passes.def"
  };
  return Aliases;
}

const PipelineAlias *findPipelineAlias(StringRef Name) {
  for (const PipelineAlias &A : pipelineAliases())
    if (A.Name == Name)
      return &A;
  return nullptr;
}

} // namespace kopt
