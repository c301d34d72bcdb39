//===- ModelSearcherTest.cpp - The move model and the model searcher ------===//
#include "kopt/Search/MoveModel.h"
#include "kopt/Search/SearchSpace.h"
#include "kopt/Search/Searcher.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace kopt::search;

namespace {

SearchSpace space() {
  SearchSpace S;
  S.Passes.push_back(
      {"block-size",
       {{"threads", "UInt", "256", false, {"128", "512", "1024"}}}});
  S.Passes.push_back({"bounds", {{"min", "UInt", "0", false, {"1", "2"}}}});
  S.Passes.push_back({"fold", {{"re", "Bool", "false", true, {"true"}}}});
  S.Passes.push_back({"vec", {}});
  return S;
}

MoveFeatures move(const std::string &From, const std::string &To) {
  Recipe A, B;
  EXPECT_TRUE(parseRecipe(From, A) && parseRecipe(To, B));
  std::optional<RecipeEdit> E = recipeEdit(A, B, space());
  EXPECT_TRUE(E.has_value()) << From << " -> " << To;
  return E ? moveFeatures(*E) : MoveFeatures();
}

Candidate candidate(std::int64_t Id, std::int64_t Parent,
                    const std::string &Recipe, std::optional<double> Speedup,
                    const std::string &Status = "ok") {
  Candidate C;
  C.Id = Id;
  C.ParentId = Parent;
  C.Recipe = Recipe;
  C.Status = "evaluated";
  if (Speedup) {
    Evaluation E;
    E.Status = Status;
    E.Speedup = E.SpeedupLow = E.SpeedupHigh = *Speedup;
    C.Eval = E;
  }
  return C;
}

std::vector<Candidate> children(const std::vector<std::string> &Recipes) {
  std::vector<Candidate> Out;
  for (const std::string &R : Recipes)
    Out.push_back(candidate(0, 0, R, std::nullopt));
  return Out;
}

} // namespace

TEST(MoveModelTest, FeaturesOfEachKindOfMove) {
  MoveFeatures Set = move("block-size", "block-size{threads=512}");
  EXPECT_EQ(Set.Kind, "set");
  EXPECT_EQ(Set.Keys, "threads");
  EXPECT_EQ(Set.Value, "512");
  ASSERT_TRUE(Set.Log2Value.has_value());
  EXPECT_DOUBLE_EQ(*Set.Log2Value, 9.0);
  MoveFeatures Flag = move("fold", "fold{re=true}");
  EXPECT_FALSE(Flag.Log2Value.has_value());
  MoveFeatures Append = move("vec", "vec,bounds{min=2}");
  EXPECT_EQ(Append.Kind, "append");
  EXPECT_EQ(Append.Pass, "bounds");
  EXPECT_EQ(Append.Value, "bounds{min=2}");
  EXPECT_EQ(move("vec,bounds", "vec").Kind, "remove");
}

TEST(MoveModelTest, SimilarityFallsWithDistance) {
  MoveFeatures T512 = move("block-size", "block-size{threads=512}");
  MoveFeatures T1024 = move("block-size", "block-size{threads=1024}");
  MoveFeatures T128 = move("block-size", "block-size{threads=128}");
  MoveFeatures Other = move("vec", "vec,bounds{min=2}");
  EXPECT_DOUBLE_EQ(moveSimilarity(T512, T512), 1.0);
  EXPECT_GT(moveSimilarity(T512, T1024), moveSimilarity(T512, T128));
  EXPECT_GT(moveSimilarity(T512, T128), 0.25); // same pass and parameter
  EXPECT_EQ(moveSimilarity(T512, Other), 0.0);
}

TEST(MoveModelTest, PredictsFromTheMovesMeasured) {
  MoveFeatures T512 = move("block-size", "block-size{threads=512}");
  MoveFeatures T1024 = move("block-size", "block-size{threads=1024}");
  MoveFeatures Fresh = move("vec", "vec,bounds{min=1}");
  MoveModel M;
  M.observe(T512, std::log(1.4));
  M.fit();
  MoveModel::Prediction Same = M.predict(T512), Near = M.predict(T1024),
                        Unseen = M.predict(Fresh);
  EXPECT_NEAR(Same.Mean, std::log(1.4), 0.02);
  EXPECT_LT(Same.StdDev, 0.06);
  EXPECT_GT(Near.Mean, 0.1); // borrows from 512
  EXPECT_LT(Near.Mean, Same.Mean);
  EXPECT_DOUBLE_EQ(Unseen.Mean, 0.0);
  EXPECT_NEAR(Unseen.StdDev, 0.3, 1e-9); // the prior
}

TEST(ModelSearcherTest, EvaluatesEverythingBeforeItKnowsAnything) {
  SearchSpace S = space();
  auto Model = createSearcher("model", {2, 1, &S});
  ASSERT_NE(Model, nullptr);
  Candidate Root = candidate(1, 0, "vec", 1.0);
  std::vector<std::size_t> Chosen =
      Model->children(Root,
                      children({"vec,bounds", "vec,bounds{min=1}",
                                "vec,block-size", "llm#1 | vec"}),
                      {Root});
  // The LLM's child, which the model cannot judge, first; the moves keep
  // their order (the same prior bound).
  EXPECT_EQ(Chosen, (std::vector<std::size_t>{3, 0, 1, 2}));
}

TEST(ModelSearcherTest, DropsMovesThatDidNothingOrFailedAndRanksNeighbours) {
  SearchSpace S = space();
  auto Model = createSearcher("model", {1, 1, &S});
  // Measured so far: +bounds{min=2} did nothing three times, +fold{re=true}
  // gave a wrong result, block-size 512 gained 40%.
  std::vector<Candidate> History = {
      candidate(1, 0, "vec", 1.0),
      candidate(2, 1, "vec,bounds{min=2}", 1.0),
      candidate(3, 0, "block-size", 1.2),
      candidate(4, 3, "block-size,bounds{min=2}", 1.2),
      candidate(5, 0, "fold", 1.1),
      candidate(6, 5, "fold,bounds{min=2}", 1.1),
      candidate(7, 1, "vec,fold{re=true}", 0.9, "wrong-result"),
      candidate(8, 3, "block-size{threads=512}", 1.68),
  };
  History[3].DuplicateOf = 3; // made the parent's source again: no gain
  History[3].Eval.reset();
  History[3].Status = "duplicate";
  Candidate Parent = candidate(9, 0, "block-size,vec", 1.5);
  std::vector<Candidate> Proposed =
      children({"block-size,vec,bounds{min=2}", "block-size,vec,fold{re=true}",
                "block-size{threads=1024},vec", "block-size,vec,bounds{min=1}",
                "block-size{threads=512},vec"});
  std::vector<std::size_t> Chosen = Model->children(Parent, Proposed, History);
  // 1024 borrows 512's +40% with more doubt, so its upper bound comes
  // first; then 512, then the untried bounds{min=1}; bounds{min=2} (no
  // gain, three times) and fold{re=true} (a wrong result) are left out.
  EXPECT_EQ(Chosen, (std::vector<std::size_t>{2, 4, 3}));
  // Without a space the model judges nothing: every child, in order.
  auto Blind = createSearcher("model", {1, 1, nullptr});
  EXPECT_EQ(Blind->children(Parent, Proposed, History).size(), 5u);
}

TEST(ModelSearcherTest, KeepsAtLeastTheWidth) {
  SearchSpace S = space();
  auto Model = createSearcher("model", {2, 1, &S});
  std::vector<Candidate> History = {
      candidate(1, 0, "vec", 1.0),
      candidate(2, 1, "vec,fold{re=true}", 0.5, "wrong-result"),
      candidate(3, 1, "vec,bounds{min=2}", std::nullopt)};
  History[2].Status = "compile-error"; // failed before the device
  std::vector<std::size_t> Chosen = Model->children(
      History[0], children({"vec,fold{re=true}", "vec,bounds{min=2}"}),
      History);
  EXPECT_EQ(Chosen.size(), 2u);
}

TEST(ModelSearcherTest, FailuresBeforeTheDeviceAreLearned) {
  SearchSpace S = space();
  auto Model = createSearcher("model", {1, 1, &S});
  std::vector<Candidate> History = {
      candidate(1, 0, "vec", 1.0),
      candidate(2, 1, "vec,fold{re=true}", std::nullopt),
      candidate(3, 1, "vec,bounds{min=2}", std::nullopt),
      candidate(4, 1, "vec,block-size", std::nullopt)};
  History[1].Status = "compile-error";
  History[2].Status = "rejected";
  History[3].Status = "validated"; // not measured yet: nothing learned
  // The two appends that failed are not tried again; the untried change
  // and a cousin of the rejected append (its bound lowered, not below 3%)
  // are.
  Candidate Parent = candidate(5, 0, "vec,block-size", 1.2);
  std::vector<std::size_t> Chosen = Model->children(
      Parent,
      children({"vec,block-size,fold{re=true}", "vec,block-size,bounds{min=2}",
                "vec,block-size{threads=512}", "vec,block-size,bounds{min=1}"}),
      History);
  EXPECT_EQ(Chosen, (std::vector<std::size_t>{2, 3}));
}

TEST(ModelSearcherTest, ARemovalDoesNotBorrowAnAppendsGain) {
  MoveFeatures Append = move("fold", "fold,vec");
  MoveFeatures Remove = move("fold,vec", "fold");
  EXPECT_EQ(moveSimilarity(Append, Remove), 0.0);
}
