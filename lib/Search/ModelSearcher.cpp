//===- ModelSearcher.cpp - Spend evaluations where a model expects gains --===//
//
// Parents as the beam chooses them (the W best not yet expanded). Children
// by a model: every move the search has measured (a child against its
// parent; MoveModel.h) trains a Gaussian process, and a proposed child is
// evaluated only when the upper confidence bound of its move's gain, mean
// plus one standard deviation, reaches MinGain; the most promising first.
// A move never seen keeps the prior's bound and is tried; a move that did
// nothing twice, made a candidate slower or broke one is not tried again,
// nor are its near neighbours once their bound falls; a neighbour of a move
// that gained borrows its gain, with more doubt, which the bound rewards.
// Children the model cannot judge (an LLM's source, several edits at once) are
// always evaluated, first. At least W children of a parent are evaluated.
//
//===----------------------------------------------------------------------===//
#include "kopt/Search/MoveModel.h"
#include "kopt/Search/Searcher.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

namespace kopt::search {

namespace {

/// log(0.5): a child that failed (wrong result, no compile, a rule) counts
/// as a move that halved the speed.
const double FailedGain = std::log(0.5);
/// A child is evaluated when mean + Kappa * stddev of its move's gain
/// reaches MinGain (3%).
constexpr double Kappa = 1.0;
const double MinGain = std::log(1.03);
/// The model learns from the newest moves only: fitting is cubic in their
/// number (800: 0.06 s a parent with 40 children on this 2-core machine).
constexpr std::size_t MaxObservations = 800;

/// The move from recipe \p From to \p To (the same start, one edit).
std::optional<RecipeEdit> moveOf(const std::string &From, const std::string &To,
                                 const SearchSpace &Space) {
  RecipeStart A = splitRecipeStart(From), B = splitRecipeStart(To);
  Recipe RA, RB;
  if (A.LLMSeq != B.LLMSeq || !parseRecipe(A.Passes, RA) ||
      !parseRecipe(B.Passes, RB))
    return std::nullopt;
  return recipeEdit(RA, RB, Space);
}

/// What \p C, a child of \p Parent, gained over it; none when it has no
/// verdict yet (or a replay recorded none).
std::optional<double>
gainOf(const Candidate &C, const Candidate &Parent,
       const std::map<std::int64_t, const Candidate *> &ById) {
  const Candidate *Measured = &C;
  if (C.DuplicateOf) { // the same source as another: its measurement
    auto It = ById.find(C.DuplicateOf);
    if (It == ById.end())
      return std::nullopt;
    Measured = It->second;
  }
  if (!Measured->Eval) {
    // Not measured yet, or failed before the device: kopt-opt refused it
    // (invalid), it did not compile or a static rule rejected it.
    const std::string &S = Measured->Status;
    if (S == status::Pending || S == status::Made || S == status::Validated ||
        S == status::LLMError || S == status::Duplicate)
      return std::nullopt;
    return FailedGain;
  }
  if (Measured->Eval->Status == "not-recorded")
    return std::nullopt;
  if (!Measured->evaluatedOk() || Measured->Eval->Speedup <= 0)
    return FailedGain;
  return std::log(Measured->Eval->Speedup / Parent.Eval->Speedup);
}

class ModelSearcher : public Searcher {
public:
  explicit ModelSearcher(const SearcherOptions &O)
      : Width(O.BeamWidth), Space(O.Space) {}
  std::string name() const override { return "model"; }

  std::vector<const Candidate *>
  parents(const std::vector<const Candidate *> &Fresh,
          const std::vector<const Candidate *> &) override {
    return bestParents(Fresh, Width);
  }

  std::vector<std::size_t>
  children(const Candidate &Parent, const std::vector<Candidate> &Proposed,
           const std::vector<Candidate> &History) override {
    MoveModel Model = learn(History);
    std::vector<std::pair<double, std::size_t>> Scored;
    for (std::size_t I = 0; I < Proposed.size(); ++I) {
      std::optional<RecipeEdit> Move =
          Space ? moveOf(Parent.Recipe, Proposed[I].Recipe, *Space)
                : std::nullopt;
      double Bound = std::numeric_limits<double>::infinity();
      if (Move) {
        MoveModel::Prediction P = Model.predict(moveFeatures(*Move));
        Bound = P.Mean + Kappa * P.StdDev;
      }
      Scored.emplace_back(Bound, I);
    }
    std::stable_sort(
        Scored.begin(), Scored.end(),
        [](const auto &A, const auto &B) { return A.first > B.first; });
    std::vector<std::size_t> Out;
    for (const auto &[Bound, I] : Scored)
      if (Bound >= MinGain || Out.size() < static_cast<std::size_t>(Width))
        Out.push_back(I);
    return Out;
  }

private:
  int Width;
  const SearchSpace *Space;

  MoveModel learn(const std::vector<Candidate> &History) const {
    MoveModel Model;
    if (!Space)
      return Model;
    std::map<std::int64_t, const Candidate *> ById;
    for (const Candidate &C : History)
      ById[C.Id] = &C;
    std::vector<std::pair<MoveFeatures, double>> Seen; // by id, oldest first
    for (const auto &[Id, C] : ById) {
      auto Parent = ById.find(C->ParentId);
      if (!C->ParentId || Parent == ById.end() ||
          !Parent->second->evaluatedOk() || Parent->second->Eval->Speedup <= 0)
        continue;
      std::optional<double> Gain = gainOf(*C, *Parent->second, ById);
      std::optional<RecipeEdit> Move =
          Gain ? moveOf(Parent->second->Recipe, C->Recipe, *Space)
               : std::nullopt;
      if (Move)
        Seen.emplace_back(moveFeatures(*Move), *Gain);
    }
    std::size_t From =
        Seen.size() > MaxObservations ? Seen.size() - MaxObservations : 0;
    for (std::size_t I = From; I < Seen.size(); ++I)
      Model.observe(Seen[I].first, Seen[I].second);
    Model.fit();
    return Model;
  }
};

} // namespace

std::unique_ptr<Searcher> createModelSearcher(const SearcherOptions &O) {
  return std::make_unique<ModelSearcher>(O);
}

} // namespace kopt::search
