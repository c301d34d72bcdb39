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

/// The children of Parent when its recipe's remarks are Remarks and a probe
/// of the appends answers Probe (kopt-opt's --remarks JSON texts; "" for
/// none: nothing is left out).
std::vector<std::string> guided(Proposer &P, const std::string &Parent,
                                const std::string &Remarks,
                                const std::string &Probe,
                                std::map<std::string, long> &Skipped) {
  Candidate C;
  C.Recipe = Parent;
  static const kopt::spec::Problem Problem;
  static const std::vector<Candidate> History;
  ProposalContext Ctx{C,
                      Problem,
                      1,
                      History,
                      [Remarks] { return Remarks; },
                      [] { return std::string(); }};
  Ctx.Probe = [Probe](const std::string &) { return Probe; };
  Ctx.Skipped = &Skipped;
  std::vector<std::string> Out;
  for (const Proposal &Pr : P.propose(Ctx))
    Out.push_back(Pr.Recipe);
  return Out;
}

std::vector<std::string> recipes(Proposer &P, const std::string &Parent) {
  std::map<std::string, long> Skipped;
  return guided(P, Parent, "", "", Skipped);
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

TEST(PassProposerTest, RemarksLeaveOutMovesThatCannotChangeTheSource) {
  auto P = createPassProposer(space(), /*AllowRounding=*/true);
  // a applied something, c applied nothing and names no parameter.
  std::string Remarks = R"({"remarks": [
      {"pass": "a", "kind": "applied", "step": 0, "message": "did"},
      {"pass": "c", "kind": "missed", "step": 1, "message": "no"}]})";
  // The appends probed, in the space's order: a again (steps 0-2: a,
  // a{w=2}, a{w=4}; the recipe ran a, but it may apply to what c made), of
  // which a{w=2} applies; b (step 3) applies nothing, b{re=true} (step 4)
  // applies.
  std::string Probe = R"({"remarks": [
      {"pass": "a", "kind": "applied", "step": 1, "message": "did"},
      {"pass": "b", "kind": "missed", "step": 3, "message": "no"},
      {"pass": "b", "kind": "applied", "step": 4, "message": "did"}]})";
  std::map<std::string, long> Skipped;
  std::vector<std::string> R = guided(*P, "a,c", Remarks, Probe, Skipped);
  EXPECT_TRUE(has(R, "a{w=2},c"));       // a's parameters change
  EXPECT_TRUE(has(R, "c"));              // a is removed
  EXPECT_FALSE(has(R, "a"));             // c applied nothing: not removed
  EXPECT_TRUE(has(R, "a,c,b{re=true}")); // the append that applies
  EXPECT_FALSE(has(R, "a,c,b"));         // the one that does not
  EXPECT_TRUE(has(R, "a,c,a{w=2}"));     // a again, where it applies
  EXPECT_FALSE(has(R, "a,c,a"));
  EXPECT_FALSE(has(R, "a,c,c")); // never the last step again
  EXPECT_EQ(Skipped["remove: the step applied nothing"], 1);
  EXPECT_EQ(Skipped["append: the step applies nothing to the parent's source"],
            3);
}

TEST(PassProposerTest, AnAppendThatAppliesNothingTriesTheValueItNames) {
  auto P = createPassProposer(space(), /*AllowRounding=*/true);
  std::string Remarks = R"({"remarks": [
      {"pass": "a", "kind": "applied", "step": 0, "message": "did"},
      {"pass": "c", "kind": "applied", "step": 1, "message": "did"}]})";
  // Steps 0-2 are a again, 3 is b, 4 b{re=true}: b says re=true would
  // apply; b{re=true} is probed but its answer (nothing) does not matter:
  // the combination is made from the remark of b.
  std::string Probe = R"J({"remarks": [
      {"pass": "b", "kind": "missed", "step": 3,
       "message": "not done: a sum (re=true allows it)"}]})J";
  std::map<std::string, long> Skipped;
  std::vector<std::string> R = guided(*P, "a,c", Remarks, Probe, Skipped);
  EXPECT_TRUE(has(R, "a,c,b{re=true}"));
  EXPECT_FALSE(has(R, "a,c,b"));
  // Without rounding, the named value is not made.
  auto Exact = createPassProposer(space(), /*AllowRounding=*/false);
  R = guided(*Exact, "a,c", Remarks, Probe, Skipped);
  EXPECT_FALSE(has(R, "a,c,b{re=true}"));
}

TEST(PassProposerTest, ValuesMissedRemarksNameComeFirst) {
  auto P = createPassProposer(space(), /*AllowRounding=*/true);
  // b applied nothing, and says which value would let it.
  std::string Remarks = R"J({"remarks": [
      {"pass": "a", "kind": "applied", "step": 0, "message": "did"},
      {"pass": "b", "kind": "missed", "step": 1,
       "message": "not done: a sum (re=true allows it)"}]})J";
  std::map<std::string, long> Skipped;
  std::vector<std::string> R = guided(*P, "a,b", Remarks, "", Skipped);
  ASSERT_FALSE(R.empty());
  EXPECT_EQ(R.front(), "a,b{re=true}");
  EXPECT_EQ(Skipped["change: the step applied nothing"], 1);
  // Not where the tolerance forbids rounding changes.
  auto Exact = createPassProposer(space(), /*AllowRounding=*/false);
  std::map<std::string, long> Skipped2;
  R = guided(*Exact, "a,b", Remarks, "", Skipped2);
  EXPECT_FALSE(has(R, "a,b{re=true}"));
}

TEST(PassProposerTest, RegistryEffectsThatNeedATolerance) {
  // kopt-opt --print-passes=json's effects: reordered sums ("rounding") and
  // fewer bits ("precision") both need a non-zero tolerance.
  std::string Error;
  std::optional<SearchSpace> S = parseSearchSpace(
      R"J({"passes": [{"name": "p", "params": [
         {"key": "e", "type": "Bool", "default": "false",
          "effect": "exact", "search": ["true"]},
         {"key": "r", "type": "Bool", "default": "false",
          "effect": "rounding", "search": ["true"]},
         {"key": "m", "type": "String", "default": "f32",
          "effect": "precision", "search": ["tf32"]}]}],
          "pipelines": [{"name": "default", "pipeline": "p"}]})J",
      Error);
  ASSERT_TRUE(S.has_value()) << Error;
  const SpacePass *P = S->pass("p");
  ASSERT_NE(P, nullptr);
  EXPECT_FALSE(P->param("e")->ChangesRounding);
  EXPECT_TRUE(P->param("r")->ChangesRounding);
  EXPECT_TRUE(P->param("m")->ChangesRounding);
  std::vector<std::string> R =
      recipes(*createPassProposer(*S, /*AllowRounding=*/false), "");
  EXPECT_FALSE(has(R, "p{m=tf32}"));
  EXPECT_TRUE(has(R, "p{e=true}"));
}
