//===- Pipeline.cpp - Parsed pass pipelines -------------------------------===//

#include "kopt/Pipeline/Pipeline.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/ErrorHandling.h"

using namespace llvm;

namespace kopt {

char PipelineError::ID = 0;

void PipelineError::log(raw_ostream &OS) const {
  OS << Message << " (at position " << Position << ")";
}

std::error_code PipelineError::convertToErrorCode() const {
  return inconvertibleErrorCode();
}

std::string Pipeline::str() const {
  std::string S;
  for (const PassInstance &P : Passes) {
    if (!S.empty())
      S += ",";
    S += P.str();
  }
  return S;
}

namespace {

bool isNameChar(char C) { return isAlnum(C) || C == '-' || C == '_'; }

class Parser {
public:
  Parser(StringRef Text, const PassRegistry &Registry)
      : Text(Text), Registry(Registry) {}

  Expected<Pipeline> parse() {
    Pipeline P;
    skipSpace();
    if (Pos == Text.size())
      return error("empty pipeline", Pos);
    while (true) {
      if (Error E = parseElement(P))
        return std::move(E);
      skipSpace();
      if (Pos == Text.size())
        break;
      if (Text[Pos] != ',')
        return error("expected ',' between passes, found '" +
                         Text.substr(Pos, 1) + "'",
                     Pos);
      ++Pos;
      skipSpace();
      if (Pos == Text.size())
        return error("expected a pass name after ','", Pos);
    }
    return std::move(P);
  }

private:
  Error error(const Twine &Message, size_t At) {
    return make_error<PipelineError>(Message.str(), At);
  }

  void skipSpace() {
    while (Pos < Text.size() && isSpace(Text[Pos]))
      ++Pos;
  }

  StringRef lexName() {
    size_t Start = Pos;
    while (Pos < Text.size() && isNameChar(Text[Pos]))
      ++Pos;
    return Text.slice(Start, Pos);
  }

  /// A value runs to the next ',' or '}'.
  StringRef lexValue() {
    size_t Start = Pos;
    while (Pos < Text.size() && Text[Pos] != ',' && Text[Pos] != '}')
      ++Pos;
    return Text.slice(Start, Pos).trim();
  }

  Error parseElement(Pipeline &P) {
    size_t NameStart = Pos;
    StringRef Name = lexName();
    if (Name.empty())
      return error("expected a pass name, found '" + Text.substr(Pos, 1) + "'",
                   Pos);
    skipSpace();
    if (const PipelineAlias *Alias = Registry.findAlias(Name)) {
      if (Pos < Text.size() && Text[Pos] == '{')
        return error("pipeline '" + Name + "' takes no parameters", Pos);
      Expected<Pipeline> Expanded = parsePipeline(Alias->Pipeline, Registry);
      if (!Expanded)
        return Expanded.takeError();
      append_range(P.Passes, Expanded->Passes);
      return Error::success();
    }
    const PassSpec *Spec = Registry.findPass(Name);
    if (!Spec)
      return error("unknown pass '" + Name +
                       "' (kopt-opt --print-passes lists them)",
                   NameStart);
    std::vector<ParamValue> Values;
    for (const ParamSpec &PS : Spec->Params) {
      Expected<ParamValue> V = parseParamValue(PS.Type, PS.Default);
      if (!V)
        report_fatal_error(Twine("bad default for ") + Spec->Name + "." +
                           PS.Key + ": " + toString(V.takeError()));
      Values.push_back(*V);
    }
    if (Pos < Text.size() && Text[Pos] == '{')
      if (Error E = parseParams(*Spec, Values))
        return E;
    P.Passes.emplace_back(*Spec, std::move(Values));
    return Error::success();
  }

  Error parseParams(const PassSpec &Spec, std::vector<ParamValue> &Values) {
    size_t Open = Pos++;
    std::vector<bool> Given(Spec.Params.size(), false);
    skipSpace();
    if (Pos < Text.size() && Text[Pos] == '}') {
      ++Pos;
      return Error::success();
    }
    while (true) {
      skipSpace();
      size_t KeyStart = Pos;
      StringRef Key = lexName();
      if (Key.empty())
        return Pos == Text.size()
                   ? error("unterminated parameter list of pass '" + Spec.Name +
                               "'",
                           Open)
                   : error("expected a parameter name, found '" +
                               Text.substr(Pos, 1) + "'",
                           Pos);
      size_t Index = 0;
      while (Index < Spec.Params.size() && Spec.Params[Index].Key != Key)
        ++Index;
      if (Index == Spec.Params.size()) {
        std::string Known;
        for (const ParamSpec &PS : Spec.Params)
          Known += (Known.empty() ? "" : ", ") + PS.Key.str();
        return error(
            "unknown parameter '" + Key + "' of pass '" + Spec.Name + "' (" +
                (Known.empty() ? "it takes none" : "known: " + Known) + ")",
            KeyStart);
      }
      if (Given[Index])
        return error("parameter '" + Key + "' of pass '" + Spec.Name +
                         "' given twice",
                     KeyStart);
      Given[Index] = true;
      skipSpace();
      if (Pos == Text.size() || Text[Pos] != '=')
        return error("expected '=' after parameter '" + Key + "'", Pos);
      ++Pos;
      skipSpace();
      size_t ValueStart = Pos;
      StringRef ValueText = lexValue();
      const ParamSpec &PS = Spec.Params[Index];
      Expected<ParamValue> V = parseParamValue(PS.Type, ValueText);
      if (!V)
        return error("parameter '" + Key + "' of pass '" + Spec.Name + "' " +
                         toString(V.takeError()),
                     ValueStart);
      Values[Index] = *V;
      if (Pos == Text.size())
        return error("unterminated parameter list of pass '" + Spec.Name +
                         "': expected '}'",
                     Open);
      if (Text[Pos++] == '}')
        return Error::success();
    }
  }

  StringRef Text;
  const PassRegistry &Registry;
  size_t Pos = 0;
};

} // namespace

Expected<Pipeline> parsePipeline(StringRef Text, const PassRegistry &Registry) {
  return Parser(Text, Registry).parse();
}

} // namespace kopt
