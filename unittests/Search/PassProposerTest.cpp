//===- PassProposerTest.cpp - Children from the registry ------------------===//
#include "kopt/Search/Proposer.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace kopt::search;

namespace {

SearchSpace space() {
  SearchSpace S;
  S.Passes.push_back({"a", {{"w", "AutoUInt", "auto", false, {"2", "4"}}}});
  S.Passes.push_back({"b", {{"re", "Bool", "false", true, {"true"}}}});
  S.Passes.push_back({"c", {}});
  S.DefaultPipeline = "a,c";
  return S;
}

std::vector<std::string> recipes(Proposer &P, const std::string &Parent) {
  Candidate C;
  C.Recipe = Parent;
  static const kopt::spec::Problem Problem;
  static const std::vector<Candidate> History;
  ProposalContext Ctx{C,
                      Problem,
                      1,
                      History,
                      [] { return std::string(); },
                      [] { return std::string(); }};
  std::vector<std::string> Out;
  for (const Proposal &Pr : P.propose(Ctx))
    Out.push_back(Pr.Recipe);
  return Out;
}

bool has(const std::vector<std::string> &V, const std::string &S) {
  return std::find(V.begin(), V.end(), S) != V.end();
}

} // namespace

TEST(PassProposerTest, FromTheOriginalEachPassWithEachValue) {
  auto P = createPassProposer(space(), /*AllowRounding=*/true);
  std::vector<std::string> R = recipes(*P, "");
  EXPECT_EQ(R, (std::vector<std::string>{"a", "a{w=2}", "a{w=4}", "b",
                                         "b{re=true}", "c"}));
}

TEST(PassProposerTest, AnLLMCandidateKeepsItsStartAndGetsPasses) {
  auto P = createPassProposer(space(), /*AllowRounding=*/true);
  std::vector<std::string> R = recipes(*P, "llm#3");
  EXPECT_TRUE(has(R, "llm#3 | a{w=2}"));
  EXPECT_FALSE(has(R, "llm#3"));
  R = recipes(*P, "llm#3 | a,c");
  EXPECT_TRUE(has(R, "llm#3 | a"));     // remove c
  EXPECT_TRUE(has(R, "llm#3 | c,a"));   // swap
  EXPECT_TRUE(has(R, "llm#3 | a,c,b")); // append
  EXPECT_FALSE(has(R, "a,c"));          // never loses its start
}

TEST(PassProposerTest, RoundingValuesOnlyWhenTheToleranceAdmitsThem) {
  auto P = createPassProposer(space(), /*AllowRounding=*/false);
  std::vector<std::string> R = recipes(*P, "");
  EXPECT_TRUE(has(R, "b"));
  EXPECT_FALSE(has(R, "b{re=true}"));
}

TEST(PassProposerTest, AppendsRemovesChangesAndSwapsOneThingAtATime) {
  auto P = createPassProposer(space(), /*AllowRounding=*/true);
  std::vector<std::string> R = recipes(*P, "a{w=2},c");
  EXPECT_TRUE(has(R, "a{w=2},c,b"));          // append
  EXPECT_TRUE(has(R, "a{w=2},c,b{re=true}")); // append with a value
  EXPECT_TRUE(has(R, "c"));                   // remove a
  EXPECT_TRUE(has(R, "a{w=2}"));              // remove c
  EXPECT_TRUE(has(R, "a{w=4},c"));            // change
  EXPECT_TRUE(has(R, "a,c"));                 // back to the default
  EXPECT_TRUE(has(R, "c,a{w=2}"));            // swap
  EXPECT_FALSE(has(R, "a{w=2},c"));           // not the parent itself
  std::vector<std::string> Sorted = R;
  std::sort(Sorted.begin(), Sorted.end());
  EXPECT_EQ(std::unique(Sorted.begin(), Sorted.end()), Sorted.end());
}

TEST(PassProposerTest, UnknownProposerIsNull) {
  EXPECT_EQ(createProposer("llm-not-yet", space(), true), nullptr);
  EXPECT_NE(createProposer("passes", space(), true), nullptr);
}
