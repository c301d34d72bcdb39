//===- NcuProfileTest.cpp - Reading ncu's raw CSV -------------------------===//
#include "kopt/Eval/NcuProfile.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace kopt::eval;

TEST(NcuProfileTest, ReadsEachKernelRowAndSkipsTheUnitsRow) {
  std::string Csv =
      "==PROF== Connected to process 42\n"
      "\"ID\",\"Process ID\",\"Process Name\",\"Kernel Name\",\"Block Size\","
      "\"Grid Size\",\"gpu__time_duration.sum\","
      "\"sm__throughput.avg.pct_of_peak_sustained_elapsed\","
      "\"launch__registers_per_thread\"\n"
      "\"\",\"\",\"\",\"\",\"\",\"\",\"nsecond\",\"%\",\"register/thread\"\n"
      "\"0\",\"42\",\"kopt-bench\",\"sgemm_tiled(const float *, int)\","
      "\"(256, 1, 1)\",\"(64, 64, 1)\",\"7,312,448\",\"87.5\",\"48\"\n";
  nlohmann::json P = parseNcuCsv(Csv);
  ASSERT_TRUE(P.contains("kernels")) << P.dump();
  ASSERT_EQ(P["kernels"].size(), 1u);
  const nlohmann::json &K = P["kernels"][0];
  EXPECT_EQ(K["name"], "sgemm_tiled(const float *, int)");
  EXPECT_EQ(K["grid"], "(64, 64, 1)");
  EXPECT_DOUBLE_EQ(K["metrics"]["gpu__time_duration.sum"].get<double>(),
                   7312448);
  EXPECT_DOUBLE_EQ(K["metrics"]["launch__registers_per_thread"].get<double>(),
                   48);
}

TEST(NcuProfileTest, NoKernelRowIsAnError) {
  EXPECT_TRUE(parseNcuCsv("").contains("error"));
  EXPECT_TRUE(parseNcuCsv("==ERROR== ERR_NVGPUCTRPERM\n").contains("error"));
}

TEST(NcuProfileTest, TheCommandProfilesOnlyBetweenStartAndStop) {
  std::vector<std::string> C = ncuCommand("ncu", "kopt-bench", "j", "o.csv");
  auto Has = [&](const char *S) {
    return std::find(C.begin(), C.end(), S) != C.end();
  };
  EXPECT_TRUE(Has("--profile-from-start"));
  EXPECT_TRUE(Has("off"));
  EXPECT_TRUE(Has("__evaluate"));
  EXPECT_EQ(C.back(), "j");
}
