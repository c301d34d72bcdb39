//===- RemarkHints.cpp - What a parent's remarks say about its moves ------===//
#include "kopt/Search/RemarkHints.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>

namespace kopt::search {

using json = nlohmann::json;

namespace {

bool isKeyChar(char C) {
  return std::isalnum(static_cast<unsigned char>(C)) || C == '-';
}

/// Every `key=value` in Message whose key is a parameter of P.
void collectSuggestions(const std::string &Message, const SpacePass &P,
                        PassOutcome &Out) {
  for (std::size_t Eq = Message.find('='); Eq != std::string::npos;
       Eq = Message.find('=', Eq + 1)) {
    std::size_t KeyBegin = Eq;
    while (KeyBegin > 0 && isKeyChar(Message[KeyBegin - 1]))
      --KeyBegin;
    std::size_t ValueEnd = Eq + 1;
    while (ValueEnd < Message.size() && isKeyChar(Message[ValueEnd]))
      ++ValueEnd;
    std::string Key = Message.substr(KeyBegin, Eq - KeyBegin);
    std::string Value = Message.substr(Eq + 1, ValueEnd - Eq - 1);
    if (Key.empty() || Value.empty())
      continue;
    bool IsParam =
        std::any_of(P.Params.begin(), P.Params.end(),
                    [&](const SpaceParam &S) { return S.Key == Key; });
    std::pair<std::string, std::string> KV{Key, Value};
    if (IsParam && std::find(Out.Suggested.begin(), Out.Suggested.end(), KV) ==
                       Out.Suggested.end())
      Out.Suggested.push_back(std::move(KV));
  }
}

} // namespace

std::map<std::string, PassOutcome> passOutcomes(const std::string &RemarksJson,
                                                const SearchSpace &Space) {
  std::map<std::string, PassOutcome> Out;
  json R = json::parse(RemarksJson, nullptr, /*allow_exceptions=*/false);
  if (!R.is_object() || !R.contains("remarks") || !R["remarks"].is_array())
    return Out;
  for (const json &M : R["remarks"]) {
    if (!M.is_object() || !M.contains("pass") || !M["pass"].is_string() ||
        !M.contains("kind") || !M["kind"].is_string())
      continue;
    std::string Pass = M["pass"].get<std::string>();
    PassOutcome &O = Out[Pass];
    if (M["kind"] == "applied") {
      ++O.Applied;
      continue;
    }
    ++O.Missed;
    if (const SpacePass *P = Space.pass(Pass);
        P && M.contains("message") && M["message"].is_string())
      collectSuggestions(M["message"].get<std::string>(), *P, O);
  }
  return Out;
}

bool stepOutcomes(const std::string &RemarksJson, std::vector<long> &Applied) {
  json R = json::parse(RemarksJson, nullptr, /*allow_exceptions=*/false);
  if (!R.is_object() || !R.contains("remarks") || !R["remarks"].is_array())
    return false;
  for (const json &M : R["remarks"]) {
    if (!M.is_object() || !M.contains("step") ||
        !M["step"].is_number_unsigned() || M.value("kind", "") != "applied")
      continue;
    std::size_t Step = M["step"].get<std::size_t>();
    if (Step < Applied.size())
      ++Applied[Step];
  }
  return true;
}

std::vector<std::vector<std::pair<std::string, std::string>>>
stepSuggestions(const std::string &RemarksJson, const SearchSpace &Space,
                const std::vector<std::string> &StepPasses) {
  std::vector<std::vector<std::pair<std::string, std::string>>> Out(
      StepPasses.size());
  json R = json::parse(RemarksJson, nullptr, /*allow_exceptions=*/false);
  if (!R.is_object() || !R.contains("remarks") || !R["remarks"].is_array())
    return Out;
  for (const json &M : R["remarks"]) {
    if (!M.is_object() || !M.contains("step") ||
        !M["step"].is_number_unsigned() || M.value("kind", "") != "missed" ||
        !M.contains("message") || !M["message"].is_string())
      continue;
    std::size_t Step = M["step"].get<std::size_t>();
    const SpacePass *P =
        Step < StepPasses.size() ? Space.pass(StepPasses[Step]) : nullptr;
    if (!P)
      continue;
    PassOutcome O;
    collectSuggestions(M["message"].get<std::string>(), *P, O);
    for (auto &KV : O.Suggested)
      if (std::find(Out[Step].begin(), Out[Step].end(), KV) == Out[Step].end())
        Out[Step].push_back(KV);
  }
  return Out;
}

} // namespace kopt::search
