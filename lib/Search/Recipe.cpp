//===- Recipe.cpp - The -passes= string that makes a candidate ------------===//
#include "kopt/Search/Recipe.h"

#include <algorithm>
#include <cctype>

namespace kopt::search {

std::string RecipeStep::str() const {
  std::string S = Pass;
  if (Params.empty())
    return S;
  S += "{";
  for (std::size_t I = 0; I < Params.size(); ++I)
    S += (I ? "," : "") + Params[I].first + "=" + Params[I].second;
  return S + "}";
}

std::string formatRecipe(const Recipe &R) {
  std::string S;
  for (std::size_t I = 0; I < R.size(); ++I)
    S += (I ? "," : "") + R[I].str();
  return S;
}

static bool parseStep(const std::string &Text, RecipeStep &Step) {
  std::size_t Open = Text.find('{');
  Step.Pass = Text.substr(0, Open);
  Step.Params.clear();
  if (Step.Pass.empty())
    return false;
  if (Open == std::string::npos)
    return true;
  if (Text.back() != '}')
    return false;
  std::string Body = Text.substr(Open + 1, Text.size() - Open - 2);
  std::size_t Start = 0;
  while (Start <= Body.size() && !Body.empty()) {
    std::size_t Comma = Body.find(',', Start);
    std::string Item = Body.substr(Start, Comma - Start);
    std::size_t Eq = Item.find('=');
    if (Eq == std::string::npos || Eq == 0)
      return false;
    Step.Params.emplace_back(Item.substr(0, Eq), Item.substr(Eq + 1));
    if (Comma == std::string::npos)
      break;
    Start = Comma + 1;
  }
  return true;
}

bool parseRecipe(const std::string &Text, Recipe &Out) {
  Out.clear();
  int Depth = 0;
  std::string Current;
  for (char C : Text) {
    if (C == '{')
      ++Depth;
    if (C == '}' && --Depth < 0)
      return false;
    if (C == ',' && Depth == 0) {
      Out.emplace_back();
      if (!parseStep(Current, Out.back()))
        return false;
      Current.clear();
      continue;
    }
    Current += C;
  }
  if (Depth != 0)
    return false;
  if (!Current.empty()) {
    Out.emplace_back();
    return parseStep(Current, Out.back());
  }
  return Text.empty();
}

RecipeStart splitRecipeStart(const std::string &Text) {
  RecipeStart Out;
  if (Text.rfind("llm#", 0) != 0) {
    Out.Passes = Text;
    return Out;
  }
  std::size_t End = 4;
  while (End < Text.size() &&
         std::isdigit(static_cast<unsigned char>(Text[End])))
    ++End;
  std::string Rest = Text.substr(End);
  std::size_t Bar = Rest.find('|');
  std::string Before = Rest.substr(0, Bar);
  // At most 18 digits: the number fits (a longer one is no exchange of
  // ours; found by fuzz/recipe.cpp, it threw out of std::stoll).
  if (End == 4 || End - 4 > 18 ||
      Before.find_first_not_of(' ') != std::string::npos) {
    Out.Passes = Text; // not "llm#N": kopt-opt will say what is wrong
    return Out;
  }
  Out.LLMSeq = std::stoll(Text.substr(4, End - 4));
  if (Bar != std::string::npos) {
    Out.Passes = Rest.substr(Bar + 1);
    Out.Passes.erase(0, Out.Passes.find_first_not_of(' '));
  }
  return Out;
}

std::string joinRecipeStart(std::int64_t LLMSeq, const std::string &Passes) {
  if (LLMSeq == 0)
    return Passes;
  std::string Base = "llm#" + std::to_string(LLMSeq);
  return Passes.empty() ? Base : Base + " | " + Passes;
}

namespace {

/// "key a -> b" for each parameter whose value differs ("default" where
/// one side leaves it out).
std::string paramChanges(const RecipeStep &From, const RecipeStep &To) {
  auto Value = [](const RecipeStep &S, const std::string &Key) {
    for (const auto &[K, V] : S.Params)
      if (K == Key)
        return V;
    return std::string("default");
  };
  std::vector<std::string> Keys;
  for (const RecipeStep *S : {&From, &To})
    for (const auto &KV : S->Params)
      if (std::find(Keys.begin(), Keys.end(), KV.first) == Keys.end())
        Keys.push_back(KV.first);
  std::string Out;
  for (const std::string &K : Keys) {
    std::string A = Value(From, K), B = Value(To, K);
    if (A != B)
      Out += (Out.empty() ? "" : ", ") + K + " " + A + " -> " + B;
  }
  return Out;
}

} // namespace

std::string describeStep(const std::string &Parent, const std::string &Child) {
  RecipeStart P = splitRecipeStart(Parent), C = splitRecipeStart(Child);
  if (C.LLMSeq != P.LLMSeq)
    return C.LLMSeq ? "llm#" + std::to_string(C.LLMSeq) +
                          (C.Passes.empty() ? "" : ", then " + C.Passes)
           : Child.empty() ? "the original source"
                           : "recipe " + Child;
  Recipe From, To;
  if (!parseRecipe(P.Passes, From) || !parseRecipe(C.Passes, To))
    return "recipe " + Child;
  std::size_t Common = 0;
  while (Common < From.size() && Common < To.size() &&
         From[Common] == To[Common])
    ++Common;
  if (Common == From.size() && Common < To.size())
    return "+ " + formatRecipe(Recipe(To.begin() + Common, To.end()));
  if (Common == To.size() && Common < From.size())
    return "- " + formatRecipe(Recipe(From.begin() + Common, From.end()));
  if (From.size() == To.size()) {
    std::string Out;
    for (std::size_t I = Common; I < To.size(); ++I) {
      if (From[I] == To[I])
        continue;
      if (From[I].Pass != To[I].Pass)
        return "recipe " + Child;
      Out += (Out.empty() ? "" : "; ") + To[I].Pass + ": " +
             paramChanges(From[I], To[I]);
    }
    if (!Out.empty())
      return Out;
  }
  return Child.empty() ? "the original source" : "recipe " + Child;
}

} // namespace kopt::search
