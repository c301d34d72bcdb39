//===- PassRegistry.cpp - What passes exist and how to build them ---------===//

#include "kopt/Pass/PassRegistry.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace kopt {

const ParamSpec *PassSpec::param(StringRef Key) const {
  for (const ParamSpec &P : Params)
    if (P.Key == Key)
      return &P;
  return nullptr;
}

const PassSpec *PassRegistry::findPass(StringRef Name) const {
  for (const PassSpec &P : Passes)
    if (P.Name == Name)
      return &P;
  return nullptr;
}

const PipelineAlias *PassRegistry::findAlias(StringRef Name) const {
  for (const PipelineAlias &A : Aliases)
    if (A.Name == Name)
      return &A;
  return nullptr;
}

std::string PassRegistry::describe() const {
  std::string S;
  raw_string_ostream OS(S);
  OS << "Passes:\n";
  for (const PassSpec &P : Passes) {
    OS << "  " << P.Name << "\n      " << P.Summary << "\n";
    for (const ParamSpec &Param : P.Params)
      OS << formatv("      {0,-12} {1,-10} default {2,-6} {3}\n", Param.Key,
                    paramTypeName(Param.Type), Param.Default, Param.Help);
  }
  OS << "Pipelines:\n";
  for (const PipelineAlias &A : Aliases)
    OS << "  " << A.Name << " = " << A.Pipeline << "\n      " << A.Summary
       << "\n";
  return S;
}

} // namespace kopt
