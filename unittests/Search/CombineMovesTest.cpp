//===- CombineMovesTest.cpp - Improving moves replayed on a parent --------===//
#include "kopt/Search/CombineMoves.h"

#include <gtest/gtest.h>

using namespace kopt::search;

namespace {

SearchSpace space() {
  SearchSpace S;
  S.Passes.push_back({"a",
                      {{"w", "AutoUInt", "auto", false, {"2", "4"}},
                       {"re", "Bool", "false", true, {"true"}}}});
  S.Passes.push_back({"b", {{"re", "Bool", "false", true, {"true"}}}});
  S.Passes.push_back({"c", {}});
  S.DefaultPipeline = "a,c";
  return S;
}

Recipe recipe(const std::string &Text) {
  Recipe R;
  EXPECT_TRUE(parseRecipe(Text, R)) << Text;
  return R;
}

/// The edit From -> To replayed on On; "none" where either step fails.
std::string replay(const std::string &From, const std::string &To,
                   const std::string &On) {
  std::optional<RecipeEdit> E = recipeEdit(recipe(From), recipe(To), space());
  if (!E)
    return "none";
  std::optional<Recipe> R = applyEdit(recipe(On), *E, space());
  return R ? formatRecipe(*R) : "none";
}

Candidate evaluated(std::int64_t Id, std::int64_t Parent,
                    const std::string &Recipe, double Speedup) {
  Candidate C;
  C.Id = Id;
  C.ParentId = Parent;
  C.Recipe = Recipe;
  C.Eval = Evaluation();
  C.Eval->Status = "ok";
  C.Eval->Speedup = Speedup;
  C.Eval->SpeedupLow = Speedup * 0.98;
  C.Eval->SpeedupHigh = Speedup * 1.02;
  return C;
}

std::vector<std::string> combined(const std::vector<Candidate> &History,
                                  std::int64_t ParentId) {
  static const kopt::spec::Problem Problem;
  const Candidate *Parent = nullptr;
  for (const Candidate &C : History)
    if (C.Id == ParentId)
      Parent = &C;
  ProposalContext Ctx{*Parent, Problem, 1, History, nullptr, nullptr};
  std::vector<std::string> Out;
  for (const Proposal &P : combinedMoves(Ctx, space()))
    Out.push_back(P.Recipe);
  return Out;
}

} // namespace

TEST(CombineMovesTest, EditsAreAppendsRemovalsAndParameterChanges) {
  EXPECT_EQ(replay("a,c", "a,c,b", "a{w=2},c"), "a{w=2},c,b");
  EXPECT_EQ(replay("a,c", "a", "a{w=2},c"), "a{w=2}");
  EXPECT_EQ(replay("a,c", "a{w=4},c", "c,a{re=true}"), "c,a{w=4,re=true}");
  // Back to a default is a change too.
  EXPECT_EQ(replay("a{w=2},c", "a,c", "a{w=2,re=true}"), "a{re=true}");
  // A swap, two steps changed, or nothing changed: not one move.
  EXPECT_EQ(replay("a,c", "c,a", "a,c"), "none");
  EXPECT_EQ(replay("a,b", "a{w=2},b{re=true}", "a,b"), "none");
  EXPECT_EQ(replay("a,c", "a,c", "a,c"), "none");
}

TEST(CombineMovesTest, AnEditThatDoesNotFitIsNotForced) {
  // The parent set the same parameter itself.
  EXPECT_EQ(replay("a,c", "a{w=4},c", "a{w=2},c"), "none");
  // Two steps of the pass: which one is meant is unknown.
  EXPECT_EQ(replay("a,c", "a{w=4},c", "a,c,a"), "none");
  // Already there, or nothing to remove.
  EXPECT_EQ(replay("a,c", "a,c,b", "a,b"), "none");
  EXPECT_EQ(replay("a,c", "a,c,b{re=true}", "a,b"), "none");
  EXPECT_EQ(replay("a,c", "a", "a,b"), "none");
}

TEST(CombineMovesTest, ImprovementsOfTheLineageComeBiggestFirstThenAll) {
  std::vector<Candidate> H{
      evaluated(1, 0, "", 1.0),
      evaluated(2, 1, "a,c", 2.0),
      evaluated(3, 2, "a{w=2},c", 3.0),        // the beam's winner
      evaluated(4, 2, "a,c,b", 2.5),           // x1.25 on #2
      evaluated(5, 2, "c", 1.5),               // slower: not replayed
      evaluated(6, 2, "a", 2.3),               // x1.15 on #2
      evaluated(7, 2, "a,c,b{re=true}", 2.03), // within #2's interval
  };
  EXPECT_EQ(combined(H, 3),
            (std::vector<std::string>{"a{w=2},c,b", "a{w=2}", "a{w=2},b"}));
  // A grandchild gets its grandparent's siblings' improvements too; its
  // own lineage's edits are there already.
  H.push_back(evaluated(8, 3, "a{w=2},c,b", 3.6));
  EXPECT_EQ(combined(H, 8), (std::vector<std::string>{"a{w=2},b"}));
  // Nothing improved: nothing to combine.
  EXPECT_TRUE(
      combined({evaluated(1, 0, "", 1.0), evaluated(2, 1, "a,c", 2.0)}, 2)
          .empty());
}

TEST(CombineMovesTest, AnLLMStartIsKeptAndNotMixed) {
  std::vector<Candidate> H{
      evaluated(1, 0, "", 1.0),          evaluated(2, 1, "llm#1", 2.0),
      evaluated(3, 2, "llm#1 | a", 3.0), evaluated(4, 2, "llm#1 | b", 2.5),
      evaluated(5, 2, "llm#2", 4.0), // another start: not an edit
  };
  EXPECT_EQ(combined(H, 3), (std::vector<std::string>{"llm#1 | a,b"}));
}
