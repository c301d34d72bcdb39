//===- PassRegistry.cpp - What passes exist and how to build them ---------===//

#include "kopt/Pass/PassRegistry.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
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
  // One column for the parameter names, as wide as the longest.
  size_t KeyWidth = 12;
  for (const PassSpec &P : Passes)
    for (const ParamSpec &Param : P.Params)
      KeyWidth = std::max(KeyWidth, Param.Key.size());
  OS << "Passes:\n";
  for (const PassSpec &P : Passes) {
    OS << "  " << P.Name << "\n      " << P.Summary << "\n";
    for (const ParamSpec &Param : P.Params)
      OS << "      " << left_justify(Param.Key, KeyWidth)
         << formatv(" {0,-10} default {1,-6} {2}\n", paramTypeName(Param.Type),
                    Param.Default, Param.Help);
  }
  OS << "Pipelines:\n";
  for (const PipelineAlias &A : Aliases)
    OS << "  " << A.Name << " = " << A.Pipeline << "\n      " << A.Summary
       << "\n";
  return S;
}

std::string PassRegistry::describeJSON() const {
  json::Array PassList;
  for (const PassSpec &P : Passes) {
    json::Array Params;
    for (const ParamSpec &Param : P.Params) {
      json::Array Values;
      for (StringRef V : Param.searchValues())
        Values.push_back(V.str());
      Params.push_back(json::Object{
          {"key", Param.Key},
          {"type", paramTypeName(Param.Type)},
          {"default", Param.Default},
          {"effect", Param.Effect == ParamEffect::Precision  ? "precision"
                     : Param.Effect == ParamEffect::Rounding ? "rounding"
                                                             : "exact"},
          {"search", std::move(Values)},
          {"help", Param.Help}});
    }
    PassList.push_back(json::Object{{"name", P.Name},
                                    {"summary", P.Summary},
                                    {"params", std::move(Params)}});
  }
  json::Array AliasList;
  for (const PipelineAlias &A : Aliases)
    AliasList.push_back(json::Object{
        {"name", A.Name}, {"pipeline", A.Pipeline}, {"summary", A.Summary}});
  std::string S;
  raw_string_ostream OS(S);
  OS << formatv("{0:2}",
                json::Value(json::Object{{"passes", std::move(PassList)},
                                         {"pipelines", std::move(AliasList)}}))
     << "\n";
  return S;
}

} // namespace kopt
