//===- LessonsTest.cpp - What worked, for similar kernels -----------------===//
#include "kopt/Search/Lessons.h"

#include <gtest/gtest.h>

using namespace kopt::search;

TEST(LessonsTest, FeaturesComeFromTheAnalysis) {
  std::string Analysis = R"({"kernels": [{"name": "k", "template": false,
    "loops": [{"kind": "grid-stride"}],
    "accesses": [{"kind": "load", "class": "contiguous", "element_type": "float"},
                 {"kind": "store", "class": "contiguous", "element_type": "float"}],
    "barriers": [{}], "shared_arrays": [], "rereads": []}]})";
  EXPECT_EQ(kernelFeatures(Analysis), "barriers load:contiguous "
                                      "loop:grid-stride store:contiguous "
                                      "type:float");
  EXPECT_EQ(kernelFeatures("not json"), "");
}

TEST(LessonsTest, TheMostSimilarOtherProblemsFirst) {
  std::vector<Lesson> All = {
      {"rowsum", "gpu", "loop:block-stride shared barriers", "r", "w", 1.9},
      {"axpby", "gpu", "loop:grid-stride load:contiguous", "a", "v", 1.1},
      {"gelu", "gpu", "loop:grid-stride load:contiguous type:half", "g", "v",
       1.5},
      {"self", "gpu", "loop:grid-stride load:contiguous", "s", "v", 3.0}};
  std::vector<Lesson> L =
      similarLessons(All, "loop:grid-stride load:contiguous", "self", 2);
  ASSERT_EQ(L.size(), 2u);
  EXPECT_EQ(L[0].Problem, "axpby"); // identical features
  EXPECT_EQ(L[1].Problem, "gelu");
  EXPECT_DOUBLE_EQ(featureSimilarity("a b", "b c"), 1.0 / 3);
  EXPECT_DOUBLE_EQ(featureSimilarity("", ""), 0);
}

TEST(LessonsTest, OnlyABestThatSurelyBeatsTheOriginal) {
  auto Make = [](std::int64_t Id, const std::string &Recipe, double Low,
                 double Speedup) {
    Candidate C;
    C.Id = Id;
    C.Recipe = Recipe;
    C.Proposer = "passes: append " + Recipe;
    C.Status = "ok";
    Evaluation E;
    E.Executor = "gpu";
    E.Status = "ok";
    E.Speedup = Speedup;
    E.SpeedupLow = Low;
    E.SpeedupHigh = Speedup + 0.01;
    C.Eval = E;
    return C;
  };
  EXPECT_FALSE(lessonOf("p", {Make(1, "", 0.99, 1.0)}, "f"));
  EXPECT_FALSE(lessonOf("p", {Make(1, "", 0.99, 1.0), Make(2, "x", 0.995, 1.02)},
                        "f"));
  auto L = lessonOf("p", {Make(1, "", 0.99, 1.0), Make(2, "x", 1.4, 1.5)}, "f");
  ASSERT_TRUE(L);
  EXPECT_EQ(L->Recipe, "x");
  EXPECT_EQ(L->Executor, "gpu");
  EXPECT_DOUBLE_EQ(L->Speedup, 1.5);
}
