//===- LLMPromptTest.cpp - Templates and the sections that fill them ------===//
#include "kopt/Search/LLMPrompt.h"

#include "kopt/Search/Candidate.h"

#include <gtest/gtest.h>

using namespace kopt::search;

TEST(LLMPromptTest, FillsKnownPlaceholdersAndSaysNoneForEmptyOnes) {
  std::string Out, Error;
  ASSERT_TRUE(renderPrompt("A {{source}} B {{ history }} C",
                           {{"source", "int x;"}}, Out, Error))
      << Error;
  EXPECT_EQ(Out, "A int x; B (none) C");
}

TEST(LLMPromptTest, AnUnknownOrOpenPlaceholderNamesItsLine) {
  std::string Out, Error;
  EXPECT_FALSE(renderPrompt("ok\n{{source}}\n{{sauce}}", {}, Out, Error));
  EXPECT_NE(Error.find("line 3: unknown placeholder {{sauce}}"),
            std::string::npos)
      << Error;
  EXPECT_FALSE(renderPrompt("{{source", {}, Out, Error));
  EXPECT_NE(Error.find("line 1: '{{' without '}}'"), std::string::npos);
}

TEST(LLMPromptTest, TheBuiltInTemplatesRender) {
  std::string Out, Error;
  for (const char *T : {defaultProposeTemplate(), defaultRepairTemplate(),
                        defaultSystemPrompt()})
    EXPECT_TRUE(renderPrompt(T, {}, Out, Error)) << Error;
}

TEST(LLMPromptTest, HistoryKeepsTheLastOnesAndTheirReasons) {
  std::vector<Candidate> History;
  for (int I = 1; I <= 25; ++I) {
    Candidate C;
    C.Proposer = "llm: llm#" + std::to_string(I);
    C.Recipe = "llm#" + std::to_string(I);
    C.Status = "compile-error";
    C.Reason = "error " + std::to_string(I) + "\nmore lines";
    History.push_back(C);
  }
  Candidate Pass;
  Pass.Proposer = "passes: append unroll";
  History.push_back(Pass);
  std::string H = summarizeHistory(History, 20);
  EXPECT_NE(H.find("(5 earlier ones left out)"), std::string::npos);
  EXPECT_EQ(H.find("llm#5:"), std::string::npos);
  EXPECT_NE(H.find("- llm#6: compile-error: error 6\n"), std::string::npos);
  EXPECT_EQ(H.find("more lines"), std::string::npos);
  EXPECT_EQ(H.find("unroll"), std::string::npos);
}

TEST(LLMPromptTest, ProfileAndMeasurementRead) {
  EXPECT_EQ(summarizeProfile(R"({"error": "ncu not found"})"),
            "(not available: ncu not found)\n");
  std::string P = summarizeProfile(
      R"J({"kernels": [{"name": "k(int)", "grid": "(4, 1, 1)", "block": "(256, 1, 1)",
          "metrics": {"gpu__time_duration.sum": 1500,
                      "dram__throughput.avg.pct_of_peak_sustained_elapsed": 80.5}}]})J");
  EXPECT_NE(P.find("- k(int) (grid (4, 1, 1), block (256, 1, 1)): time (ns) "
                   "1500; DRAM throughput (% of peak) 80.5;"),
            std::string::npos)
      << P;
  Candidate C;
  Evaluation E;
  E.Status = "ok";
  E.MedianMs = 0.5;
  E.Speedup = 2;
  E.SpeedupLow = 1.9;
  E.SpeedupHigh = 2.1;
  E.Device = R"({"name": "NVIDIA H100 80GB HBM3", "index": 0})";
  E.FractionOfCopyBandwidth = 0.42;
  C.Eval = E;
  EXPECT_EQ(summarizeMeasurement(C),
            "median 0.5 ms on NVIDIA H100 80GB HBM3; speedup 2x [1.9, 2.1] "
            "over the problem's original source (42% of the device's "
            "measured copy bandwidth)\n");
}
