//===- SearcherTest.cpp - Ranking and the three strategies ----------------===//
#include "kopt/Search/Searcher.h"

#include <gtest/gtest.h>

using namespace kopt::search;

namespace {

Candidate measured(std::int64_t Id, const std::string &Recipe, double S,
                   double HalfWidth) {
  Candidate C;
  C.Id = Id;
  C.Recipe = Recipe;
  Evaluation E;
  E.Status = "ok";
  E.Speedup = S;
  E.SpeedupLow = S - HalfWidth;
  E.SpeedupHigh = S + HalfWidth;
  C.Eval = E;
  return C;
}

std::vector<Candidate> proposed(std::size_t N) {
  return std::vector<Candidate>(N);
}

} // namespace

TEST(SearcherTest, RanksBySpeedupAndPrefersShorterRecipesWithinNoise) {
  Candidate A = measured(1, "a,b,c", 1.50, 0.05); // overlaps B
  Candidate B = measured(2, "a", 1.48, 0.05);
  Candidate C = measured(3, "", 1.00, 0.01);
  std::vector<const Candidate *> R = rankCandidates({&C, &A, &B});
  ASSERT_EQ(R.size(), 3u);
  EXPECT_EQ(R[0], &B); // within A's interval and shorter
  EXPECT_EQ(R[1], &A);
  EXPECT_EQ(R[2], &C);
}

TEST(SearcherTest, ClearlyFasterLongerRecipeStaysFirst) {
  Candidate A = measured(1, "a,b,c", 1.50, 0.01);
  Candidate B = measured(2, "a", 1.40, 0.01);
  std::vector<const Candidate *> R = rankCandidates({&B, &A});
  ASSERT_EQ(R.size(), 2u);
  EXPECT_EQ(R[0], &A);
}

TEST(SearcherTest, BeamKeepsTheWidthBest) {
  auto S = createSearcher("beam", {2, 1});
  ASSERT_NE(S, nullptr);
  Candidate A = measured(1, "a", 1.1, 0.0), B = measured(2, "b", 1.3, 0.0),
            C = measured(3, "c", 1.2, 0.0);
  std::vector<const Candidate *> P = S->parents({&A, &B, &C}, {&A, &B, &C});
  ASSERT_EQ(P.size(), 2u);
  EXPECT_EQ(P[0], &B);
  EXPECT_EQ(P[1], &C);
  EXPECT_EQ(S->children(A, proposed(3), {}).size(), 3u);
}

TEST(SearcherTest, ExhaustiveExpandsEverything) {
  auto S = createSearcher("exhaustive", {1, 1});
  ASSERT_NE(S, nullptr);
  Candidate A = measured(1, "a", 1.1, 0.0), B = measured(2, "b", 1.3, 0.0);
  EXPECT_EQ(S->parents({&A, &B}, {&A, &B}).size(), 2u);
  EXPECT_EQ(S->children(A, proposed(7), {}).size(), 7u);
}

TEST(SearcherTest, RandomIsRepeatableForASeed) {
  auto S1 = createSearcher("random", {3, 42});
  auto S2 = createSearcher("random", {3, 42});
  auto S3 = createSearcher("random", {3, 7});
  ASSERT_NE(S1, nullptr);
  Candidate P;
  std::vector<std::size_t> A = S1->children(P, proposed(20), {}),
                           B = S2->children(P, proposed(20), {}),
                           C = S3->children(P, proposed(20), {});
  EXPECT_EQ(A.size(), 3u);
  EXPECT_EQ(A, B);
  EXPECT_NE(A, C);
}

TEST(SearcherTest, UnknownStrategyIsNull) {
  EXPECT_EQ(createSearcher("annealing", {}), nullptr);
}

TEST(SearcherTest, BestIgnoresFailures) {
  std::vector<Candidate> All{measured(1, "", 1.0, 0.0),
                             measured(2, "a", 3.0, 0.0)};
  All[1].Eval->Status = "wrong-result";
  const Candidate *Best = bestCandidate(All);
  ASSERT_NE(Best, nullptr);
  EXPECT_EQ(Best->Id, 1);
}

TEST(SearcherTest, BestIsRankedWithinOneDeviceModel) {
  auto On = [](Candidate C, const std::string &Model, const std::string &Node) {
    C.Eval->Device =
        "{\"name\": \"" + Model + "\", \"node\": \"" + Node + "\"}";
    return C;
  };
  // The H200 measured a higher speedup, but most evaluations ran on H100s:
  // the best is the H100's best; each model keeps its own.
  std::vector<Candidate> All{On(measured(1, "", 1.0, 0.0), "H100", "n1"),
                             On(measured(2, "a", 1.5, 0.0), "H100", "n2"),
                             On(measured(3, "b", 2.0, 0.0), "H200", "n3")};
  const Candidate *Best = bestCandidate(All);
  ASSERT_NE(Best, nullptr);
  EXPECT_EQ(Best->Id, 2);
  EXPECT_EQ(deviceModel(*Best->Eval), "H100");
  EXPECT_EQ(deviceNode(*Best->Eval), "n2");
  std::map<std::string, const Candidate *> Each = bestPerDeviceModel(All);
  ASSERT_EQ(Each.size(), 2u);
  EXPECT_EQ(Each.at("H200")->Id, 3);
  EXPECT_EQ(Each.at("H100")->Id, 2);
}

TEST(SearcherTest, DeviceModelOfSimulatedAndUnknownEvaluations) {
  Evaluation E;
  E.Executor = "simulate:cost";
  EXPECT_EQ(deviceModel(E), "simulated");
  E.Executor = "gpu";
  EXPECT_EQ(deviceModel(E), "");
  E.Device = "not json";
  EXPECT_EQ(deviceModel(E), "");
  EXPECT_EQ(deviceNode(E), "");
}
