//===- PassProposer.cpp - Children from the pass registry -----------------===//
//
// Moves from a parent recipe, each one edit away:
//   append  a pass: with its defaults, and with each search value of one
//           parameter (block-size{threads=128}, ...); a pass the recipe ran
//           already only where the probe says it applies again, and an
//           append that applies nothing with the value its remark names
//   remove  one step (-O without launch-bounds)
//   change  one parameter of one step to another search value
//   swap    two neighbouring steps (passes see each other's output, so the
//           order can matter: vectorize-loads before or after
//           register-cache)
//   combine a move that improved on an ancestor of the parent, replayed on
//           it (CombineMoves.h); these come first
// Duplicates among the moves collapse; the loop drops recipes seen before
// and children whose source a sibling already made. The parent's remarks
// (RemarkHints.h) put first the parameter values its missed remarks name,
// and leave out the moves that cannot change its source: removing or
// changing a step that applied nothing, swapping two such steps.
//
//===----------------------------------------------------------------------===//
#include "kopt/Search/CombineMoves.h"
#include "kopt/Search/Proposer.h"
#include "kopt/Search/Recipe.h"
#include "kopt/Search/RemarkHints.h"

#include <set>

namespace kopt::search {

Proposer::~Proposer() = default;

std::vector<Proposal> Proposer::repair(const ProposalContext &, int) {
  return {};
}

namespace {

class PassProposer : public Proposer {
public:
  PassProposer(SearchSpace Space, bool AllowRounding)
      : Space(std::move(Space)), AllowRounding(AllowRounding) {}

  std::string name() const override { return "passes"; }

  std::vector<Proposal> propose(const ProposalContext &Context) override {
    // An LLM's candidate is a start like the problem's source: the moves
    // change only the passes that run on it.
    RecipeStart Start = splitRecipeStart(Context.Parent.Recipe);
    Recipe Parent;
    if (!parseRecipe(Start.Passes, Parent))
      return {};
    // What each step did: the remarks of the parent's own recipe (a source
    // no pass ran on has -O's, which say nothing of its steps).
    std::map<std::string, PassOutcome> Outcomes;
    if (!Start.Passes.empty() && Context.Remarks)
      Outcomes = passOutcomes(Context.Remarks(), Space);
    auto Idle = [&](const RecipeStep &Step) {
      if (Outcomes.empty())
        return false;
      auto It = Outcomes.find(Step.Pass);
      return It == Outcomes.end() || It->second.Applied == 0;
    };
    auto Skip = [&](const std::string &Why) {
      if (Context.Skipped)
        ++(*Context.Skipped)[Why];
    };
    std::vector<Proposal> Out;
    std::set<std::string> Seen{Context.Parent.Recipe};
    auto Add = [&](const Recipe &R, const std::string &Why) {
      std::string Text = joinRecipeStart(Start.LLMSeq, formatRecipe(R));
      if (!Text.empty() && Seen.insert(Text).second)
        Out.push_back({Text, Why});
    };
    auto Change = [&](std::size_t I, const RecipeStep &Step) {
      Recipe R = Parent;
      R[I] = Step;
      Add(R, "change " + Parent[I].str() + " to " + Step.str());
    };
    // Changes that improved on an ancestor, replayed on this parent, first
    // (CombineMoves.h); then what the missed remarks ask for.
    for (Proposal &C : combinedMoves(Context, Space))
      if (Seen.insert(C.Recipe).second)
        Out.push_back(std::move(C));
    for (std::size_t I = 0; I < Parent.size(); ++I) {
      const SpacePass *P = Space.pass(Parent[I].Pass);
      auto It = Outcomes.find(Parent[I].Pass);
      if (!P || It == Outcomes.end())
        continue;
      for (const auto &[Key, Value] : It->second.Suggested) {
        const SpaceParam *Param = P->param(Key);
        if (Param && Param->ChangesRounding && !AllowRounding)
          Skip("change: a remark's value changes rounding, which the "
               "problem's tolerance does not admit");
        else if (Param)
          Change(I, P->withParam(Parent[I], Key, Value));
      }
    }
    for (std::size_t I = 0; I < Parent.size(); ++I) {
      const SpacePass *P = Space.pass(Parent[I].Pass);
      if (!P)
        continue;
      if (Idle(Parent[I])) {
        Skip("change: the step applied nothing");
        continue;
      }
      for (const RecipeStep &Step : variants(*P, Parent[I]))
        Change(I, Step);
    }
    // Appends: each variant of each pass but the recipe's last, asked of
    // the parent's source alone first; those that would apply nothing there
    // are left out. A pass the recipe ran earlier may apply again to what a
    // later step made (register-cache's serial loops after
    // thread-per-block).
    // Without the probe's answer only passes the recipe lacks are appended.
    Recipe Appends;
    std::vector<bool> Again;
    std::set<std::string> Steps;
    for (const SpacePass &P : Space.Passes)
      if (Parent.empty() || Parent.back().Pass != P.Name)
        for (const RecipeStep &Step : variants(P, {P.Name, {}}))
          if ((Context.Probe || !contains(Parent, P.Name)) &&
              Steps.insert(Step.str()).second) {
            Appends.push_back(Step);
            Again.push_back(contains(Parent, P.Name));
          }
    std::string ProbeJson;
    std::vector<long> Applies = probe(Context, Appends, ProbeJson);
    // An append that applies nothing may name the value that lets it
    // (block-size{threads=1024}: "... (reassociate=true allows it)"): that
    // combination is made too.
    std::vector<std::string> AppendPasses;
    for (const RecipeStep &S : Appends)
      AppendPasses.push_back(S.Pass);
    auto Named =
        Applies.empty()
            ? std::vector<std::vector<std::pair<std::string, std::string>>>()
            : stepSuggestions(ProbeJson, Space, AppendPasses);
    for (std::size_t I = 0; I < Appends.size(); ++I) {
      if (!Applies.empty() && Applies[I] == 0) {
        Skip("append: the step applies nothing to the parent's source");
        const SpacePass *P = Space.pass(Appends[I].Pass);
        for (const auto &[Key, Value] : Named[I]) {
          const SpaceParam *Param = P ? P->param(Key) : nullptr;
          if (!Param || (Param->ChangesRounding && !AllowRounding))
            continue;
          Recipe R = Parent;
          R.push_back(P->withParam(Appends[I], Key, Value));
          Add(R, "append " + R.back().str() + " (" + Key + "=" + Value +
                     " named by the remark of " + Appends[I].str() + ")");
        }
        continue;
      }
      if (Applies.empty() && Again[I]) {
        Skip("append: no probe says that a pass the recipe ran applies "
             "again");
        continue;
      }
      Recipe R = Parent;
      R.push_back(Appends[I]);
      Add(R, "append " + Appends[I].str());
    }
    for (std::size_t I = 0; I < Parent.size(); ++I) {
      if (Parent.size() <= 1 && Start.LLMSeq == 0)
        continue;
      if (Idle(Parent[I])) {
        Skip("remove: the step applied nothing");
        continue;
      }
      Recipe R = Parent;
      R.erase(R.begin() + I);
      Add(R, "remove " + Parent[I].str());
    }
    for (std::size_t I = 0; I + 1 < Parent.size(); ++I) {
      if (Idle(Parent[I]) && Idle(Parent[I + 1])) {
        Skip("swap: neither step applied anything");
        continue;
      }
      Recipe R = Parent;
      std::swap(R[I], R[I + 1]);
      Add(R, "run " + Parent[I + 1].str() + " before " + Parent[I].str());
    }
    return Out;
  }

private:
  SearchSpace Space;
  bool AllowRounding;

  /// The applied remarks of each of Steps run alone on the parent's source;
  /// empty when the probe cannot be asked or does not answer.
  static std::vector<long> probe(const ProposalContext &Context,
                                 const Recipe &Steps, std::string &Json) {
    if (Steps.empty() || !Context.Probe)
      return {};
    Json = Context.Probe(formatRecipe(Steps));
    std::vector<long> Applied(Steps.size(), 0);
    if (!stepOutcomes(Json, Applied))
      return {};
    return Applied;
  }

  static bool contains(const Recipe &R, const std::string &Pass) {
    for (const RecipeStep &S : R)
      if (S.Pass == Pass)
        return true;
    return false;
  }

  /// \p Base itself, then \p Base with one parameter set to each value the
  /// search tries (or back to its default); parameters in registry order.
  std::vector<RecipeStep> variants(const SpacePass &P,
                                   const RecipeStep &Base) const {
    std::vector<RecipeStep> Out{Base};
    for (const SpaceParam &Param : P.Params) {
      if (Param.ChangesRounding && !AllowRounding)
        continue;
      std::vector<std::string> Values = Param.Values;
      Values.push_back(Param.Default);
      for (const std::string &V : Values)
        Out.push_back(P.withParam(Base, Param.Key, V));
    }
    return Out;
  }
};

} // namespace

std::unique_ptr<Proposer> createPassProposer(SearchSpace Space,
                                             bool AllowRounding) {
  return std::make_unique<PassProposer>(std::move(Space), AllowRounding);
}

std::unique_ptr<Proposer> createProposer(const std::string &Name,
                                         const SearchSpace &Space,
                                         bool AllowRounding) {
  if (Name == "passes")
    return createPassProposer(Space, AllowRounding);
  return nullptr;
}

} // namespace kopt::search
