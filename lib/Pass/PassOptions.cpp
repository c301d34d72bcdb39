//===- PassOptions.cpp - Typed, self-describing pass parameters -----------===//

#include "kopt/Pass/PassOptions.h"
#include "kopt/Pass/PassRegistry.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
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

SmallVector<StringRef, 8> ParamSpec::searchValues() const {
  SmallVector<StringRef, 8> Values;
  if (Search.empty())
    return Values;
  for (StringRef V : split(Search, ','))
    Values.push_back(V.trim());
  return Values;
}

std::string ParamValue::str(ParamType T) const {
  switch (T) {
  case ParamType::Bool:
    return Bool ? "true" : "false";
  case ParamType::UInt:
    return utostr(UInt);
  case ParamType::AutoUInt:
    return IsAuto ? "auto" : utostr(UInt);
  case ParamType::String:
    return String;
  }
  llvm_unreachable("bad parameter type");
}

Expected<ParamValue> parseParamValue(ParamType T, StringRef Text) {
  ParamValue V;
  auto Fail = [&](StringRef Expected) -> llvm::Error {
    return createStringError(inconvertibleErrorCode(),
                             "expects " + Expected + ", got '" + Text + "'");
  };
  switch (T) {
  case ParamType::Bool:
    if (Text == "true" || Text == "1")
      V.Bool = true;
    else if (Text == "false" || Text == "0")
      V.Bool = false;
    else
      return Fail("true or false");
    return V;
  case ParamType::AutoUInt:
    if (Text == "auto") {
      V.IsAuto = true;
      return V;
    }
    [[fallthrough]];
  case ParamType::UInt:
    // getAsInteger accepts 0x and leading zeros' octal; users mean decimal.
    if (Text.empty() || !all_of(Text, isDigit) || Text.size() > 9 ||
        Text.getAsInteger(10, V.UInt))
      return Fail(T == ParamType::AutoUInt
                      ? "'auto' or an unsigned integer below 10^9"
                      : "an unsigned integer below 10^9");
    return V;
  case ParamType::String:
    V.String = Text.str();
    return V;
  }
  llvm_unreachable("bad parameter type");
}

StringRef PassInstance::name() const { return Spec->Name; }

const ParamValue &PassInstance::value(StringRef Key) const {
  for (size_t I = 0; I < Spec->Params.size(); ++I)
    if (Spec->Params[I].Key == Key)
      return Values[I];
  report_fatal_error(Twine("pass '") + Spec->Name + "' has no parameter '" +
                     Key + "'");
}

std::string PassInstance::str() const {
  std::string S = Spec->Name.str();
  if (Spec->Params.empty())
    return S;
  S += "{";
  for (size_t I = 0; I < Spec->Params.size(); ++I) {
    if (I)
      S += ",";
    S += Spec->Params[I].Key.str() + "=" + Values[I].str(Spec->Params[I].Type);
  }
  return S + "}";
}

} // namespace kopt
