//===- CombineMoves.cpp - Changes that improved elsewhere, on this parent -===//
#include "kopt/Search/CombineMoves.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

namespace kopt::search {

std::optional<RecipeEdit> recipeEdit(const Recipe &From, const Recipe &To,
                                     const SearchSpace &Space) {
  std::size_t Common = 0;
  while (Common < From.size() && Common < To.size() &&
         From[Common] == To[Common])
    ++Common;
  RecipeEdit E;
  if (To.size() == From.size() + 1 && Common == From.size()) {
    E.What = RecipeEdit::Kind::Append;
    E.Step = To.back();
    return E;
  }
  if (From.size() == To.size() + 1 &&
      std::equal(To.begin() + Common, To.end(), From.begin() + Common + 1)) {
    E.What = RecipeEdit::Kind::Remove;
    E.Step = From[Common];
    return E;
  }
  if (From.size() != To.size() || Common == From.size() ||
      From[Common].Pass != To[Common].Pass ||
      !std::equal(To.begin() + Common + 1, To.end(), From.begin() + Common + 1))
    return std::nullopt;
  const SpacePass *P = Space.pass(From[Common].Pass);
  if (!P)
    return std::nullopt;
  E.What = RecipeEdit::Kind::Set;
  E.Step = From[Common];
  for (const SpaceParam &Param : P->Params) {
    std::string Before = P->value(From[Common], Param.Key),
                After = P->value(To[Common], Param.Key);
    if (Before != After)
      E.Changes.push_back({Param.Key, Before, After});
  }
  if (E.Changes.empty())
    return std::nullopt;
  return E;
}

std::optional<Recipe> applyEdit(const Recipe &R, const RecipeEdit &E,
                                const SearchSpace &Space) {
  auto Only = [&](auto Matches) -> std::optional<std::size_t> {
    std::optional<std::size_t> Found;
    for (std::size_t I = 0; I < R.size(); ++I)
      if (Matches(R[I])) {
        if (Found)
          return std::nullopt;
        Found = I;
      }
    return Found;
  };
  Recipe Out = R;
  switch (E.What) {
  case RecipeEdit::Kind::Append:
    if (std::any_of(R.begin(), R.end(),
                    [&](const RecipeStep &S) { return S.Pass == E.Step.Pass; }))
      return std::nullopt;
    Out.push_back(E.Step);
    return Out;
  case RecipeEdit::Kind::Remove: {
    auto I = Only([&](const RecipeStep &S) { return S == E.Step; });
    if (!I)
      return std::nullopt;
    Out.erase(Out.begin() + *I);
    return Out;
  }
  case RecipeEdit::Kind::Set: {
    const SpacePass *P = Space.pass(E.Step.Pass);
    auto I = Only([&](const RecipeStep &S) { return S.Pass == E.Step.Pass; });
    if (!P || !I)
      return std::nullopt;
    RecipeStep Step = R[*I];
    for (const RecipeEdit::Change &C : E.Changes) {
      if (P->value(Step, C.Key) != C.Before)
        return std::nullopt;
      Step = P->withParam(Step, C.Key, C.After);
    }
    Out[*I] = Step;
    return Out;
  }
  }
  return std::nullopt;
}

namespace {

/// A change that improved on an ancestor of the parent.
struct Improvement {
  RecipeEdit Edit;
  double Gain; // the child's speedup over its parent's
  std::int64_t From, To;
};

std::string ratio(double X) {
  char Buf[32];
  std::snprintf(Buf, sizeof(Buf), "%.3fx", X);
  return Buf;
}

/// The edits that improved on an ancestor of \p Parent (its interval above
/// the ancestor's), largest gain first.
std::vector<Improvement> improvements(const Candidate &Parent,
                                      const std::vector<Candidate> &History,
                                      const SearchSpace &Space) {
  std::map<std::int64_t, const Candidate *> ById;
  for (const Candidate &C : History)
    ById[C.Id] = &C;
  std::set<std::int64_t> Lineage;
  for (std::int64_t Id = Parent.ParentId; Id && !Lineage.count(Id);) {
    Lineage.insert(Id);
    auto It = ById.find(Id);
    Id = It == ById.end() ? 0 : It->second->ParentId;
  }
  std::vector<Improvement> Out;
  for (const Candidate &Q : History) {
    auto A = ById.find(Q.ParentId);
    if (!Lineage.count(Q.ParentId) || A == ById.end() || Q.Id == Parent.Id ||
        !Q.evaluatedOk() || !A->second->evaluatedOk() ||
        Q.Eval->SpeedupLow <= A->second->Eval->SpeedupHigh)
      continue;
    RecipeStart From = splitRecipeStart(A->second->Recipe),
                To = splitRecipeStart(Q.Recipe);
    Recipe F, T;
    if (From.LLMSeq != To.LLMSeq || !parseRecipe(From.Passes, F) ||
        !parseRecipe(To.Passes, T))
      continue;
    if (auto E = recipeEdit(F, T, Space))
      Out.push_back({*E, Q.Eval->Speedup / A->second->Eval->Speedup,
                     A->second->Id, Q.Id});
  }
  std::stable_sort(Out.begin(), Out.end(),
                   [](const Improvement &A, const Improvement &B) {
                     return A.Gain > B.Gain;
                   });
  return Out;
}

} // namespace

std::vector<Proposal> combinedMoves(const ProposalContext &Context,
                                    const SearchSpace &Space,
                                    std::size_t Most) {
  RecipeStart Start = splitRecipeStart(Context.Parent.Recipe);
  Recipe Parent;
  if (!parseRecipe(Start.Passes, Parent))
    return {};
  std::vector<Proposal> Out;
  std::set<std::string> Seen{formatRecipe(Parent)};
  Recipe All = Parent;
  std::string AllWhy;
  std::size_t Combined = 0;
  for (const Improvement &I :
       improvements(Context.Parent, Context.History, Space)) {
    std::optional<Recipe> One = applyEdit(Parent, I.Edit, Space);
    if (!One || !Seen.insert(formatRecipe(*One)).second)
      continue;
    std::string Why = describeStep(formatRecipe(Parent), formatRecipe(*One)) +
                      " (it made #" + std::to_string(I.To) + " " +
                      ratio(I.Gain) + " of #" + std::to_string(I.From) + ")";
    if (Out.size() < Most)
      Out.push_back({joinRecipeStart(Start.LLMSeq, formatRecipe(*One)),
                     "combine " + Why});
    if (std::optional<Recipe> More = applyEdit(All, I.Edit, Space)) {
      All = *More;
      AllWhy += (AllWhy.empty() ? "" : "; ") + Why;
      ++Combined;
    }
  }
  if (Combined >= 2 && Seen.insert(formatRecipe(All)).second)
    Out.push_back({joinRecipeStart(Start.LLMSeq, formatRecipe(All)),
                   "combine all: " + AllWhy});
  return Out;
}

} // namespace kopt::search
