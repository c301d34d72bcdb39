//===- Checks.cpp - kopt's passes as lint checks --------------------------===//

#include "kopt/Tidy/Checks.h"

#include "llvm/ADT/StringExtras.h"

using namespace llvm;

namespace kopt {

std::string checkName(const PassSpec &Spec) {
  return (CheckPrefix + Spec.Name).str();
}

const PassSpec *passForCheck(const PassRegistry &Registry, StringRef Check) {
  if (!Check.consume_front(CheckPrefix))
    return nullptr;
  return Registry.findPass(Check);
}

std::string optionName(StringRef ParamKey) {
  std::string Out;
  bool Upper = true;
  for (char C : ParamKey) {
    if (C == '-') {
      Upper = true;
      continue;
    }
    Out += Upper ? toUpper(C) : C;
    Upper = false;
  }
  return Out;
}

StringRef checkDefault(const PassSpec &Spec, const ParamSpec &P) {
  // A lint proposes edits a developer keeps in their source: restrict-const
  // does not add a __restrict__ copy of a kernel and a run-time check there
  // (-O does; CheckOptions can ask for it).
  if (Spec.Name == "restrict-const" && P.Key == "version")
    return "false";
  return P.Default;
}

Expected<PassInstance> checkInstance(const PassSpec &Spec,
                                     const OptionLookup &Lookup) {
  std::vector<ParamValue> Values;
  for (const ParamSpec &P : Spec.Params) {
    std::string Name = optionName(P.Key);
    std::optional<std::string> Set = Lookup(Name);
    Expected<ParamValue> V =
        parseParamValue(P.Type, Set ? StringRef(*Set) : checkDefault(Spec, P));
    if (!V)
      return createStringError(inconvertibleErrorCode(),
                               "invalid value '%s' for option %s.%s: %s",
                               Set->c_str(), checkName(Spec).c_str(),
                               Name.c_str(), toString(V.takeError()).c_str());
    Values.push_back(std::move(*V));
  }
  return PassInstance(Spec, std::move(Values));
}

Error validateCheckOptions(const PassRegistry &Registry,
                           const std::map<std::string, std::string> &Options) {
  for (const auto &[Key, Value] : Options) {
    StringRef K = Key;
    if (!K.starts_with(CheckPrefix))
      continue;
    auto [Check, Option] = K.split('.');
    const PassSpec *Spec = passForCheck(Registry, Check);
    if (!Spec)
      return createStringError(inconvertibleErrorCode(),
                               "CheckOptions: unknown check '%s'",
                               Check.str().c_str());
    std::vector<std::string> Names;
    for (const ParamSpec &P : Spec->Params)
      Names.push_back(optionName(P.Key));
    if (!is_contained(Names, Option))
      return createStringError(
          inconvertibleErrorCode(),
          "CheckOptions: %s has no option '%s' (it has: %s)",
          Check.str().c_str(), Option.str().c_str(),
          Names.empty() ? "none" : join(Names, ", ").c_str());
  }
  return Error::success();
}

} // namespace kopt
