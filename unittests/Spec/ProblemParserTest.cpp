#include "kopt/Spec/ProblemParser.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace kopt::spec;

namespace {
const char *Axpby = R"({
  "name": "axpby", "source": "kernel.cu", "entry": "launch_axpby",
  "args": [
    {"name": "x", "buffer": "f32", "shape": ["n"], "init": {"dist": "normal", "mean": 0, "std": 1}, "intent": "in"},
    {"name": "y", "buffer": "bf16", "shape": ["n", 2], "init": {"dist": "uniform", "lo": -1, "hi": 1}},
    {"name": "out", "buffer": "f32", "shape": ["n"], "intent": "out"},
    {"name": "a", "scalar": "f32", "value": 1.5},
    {"name": "n", "scalar": "i32", "value": "n"},
    {"name": "stream", "stream": true}
  ],
  "shapes": [{"n": 16}, {"n": 7}],
  "benchmark_shape": 1,
  "tolerance": {"atol": 1e-4, "rtol": 1e-3},
  "bytes": "12 * n", "flops": "3*n", "fast_math": true, "timeout_s": 30
})";

bool hasError(const ProblemLoadResult &R, const std::string &Text) {
  return std::any_of(R.Errors.begin(), R.Errors.end(), [&](const auto &E) {
    return E.find(Text) != std::string::npos;
  });
}

TEST(ProblemParser, ParsesTheIssueExample) {
  auto R = parseProblemJson(Axpby, "dir/problem.json");
  ASSERT_TRUE(R.ok()) << (R.Errors.empty() ? "" : R.Errors.front());
  const Problem &P = *R.Value;
  EXPECT_EQ(P.Name, "axpby");
  EXPECT_EQ(P.Reference, "kernel.cu"); // defaults to the source
  EXPECT_EQ(P.Directory, "dir");
  ASSERT_EQ(P.Args.size(), 6u);
  EXPECT_TRUE(P.Args[0].isInput());
  EXPECT_TRUE(P.Args[1].isInput()); // intent defaults to in
  EXPECT_TRUE(P.Args[2].isOutput());
  EXPECT_EQ(P.Args[1].Type, DType::BF16);
  EXPECT_EQ(elementCount(P.Args[1], P.Shapes[0]), 32);
  EXPECT_EQ(scalarValue(P.Args[4], P.Shapes[1]), 7);
  EXPECT_TRUE(P.hasStreamArg());
  EXPECT_EQ(P.BenchmarkShape, 1u);
  EXPECT_DOUBLE_EQ(P.DefaultTolerance.Rtol, 1e-3);
  EXPECT_DOUBLE_EQ(bytesMoved(P, P.Shapes[0]), 192);
  EXPECT_DOUBLE_EQ(*flopCount(P, P.Shapes[0]), 48);
  EXPECT_TRUE(P.FastMath);
  EXPECT_EQ(P.TimeoutSeconds, 30);
  EXPECT_EQ(P.Seeds, 3);
}

TEST(ProblemParser, DefaultBytesCountBuffers) {
  std::string Text = Axpby;
  Text.replace(Text.find("\"bytes\": \"12 * n\", "), 19, "");
  auto R = parseProblemJson(Text, "problem.json");
  ASSERT_TRUE(R.ok());
  // x (4n) + y (2 * 2n bf16) + out (4n) at n = 16.
  EXPECT_DOUBLE_EQ(bytesMoved(*R.Value, R.Value->Shapes[0]), 16 * 12);
}

TEST(ProblemParser, ReportsEveryErrorWithItsField) {
  auto R = parseProblemJson(R"({
    "name": "p", "source": "k.cu",
    "args": [
      {"name": "x", "buffer": "f33", "shape": ["k"]},
      {"name": "x", "scalar": "i32", "value": 1.5},
      {"name": "o", "buffer": "f32", "shape": ["n"], "intent": "sideways"},
      {"name": "z", "buffer": "f32", "shape": ["n"], "init": {"dist": "gaussian"}},
      {"name": "w"}
    ],
    "shapes": [{"n": 0}],
    "benchmark_shape": 4,
    "mystery": 1
  })",
                            "problem.json");
  EXPECT_FALSE(R.ok());
  EXPECT_TRUE(hasError(R, "missing field 'entry'"));
  EXPECT_TRUE(hasError(R, "args[0] (\"x\").buffer: unknown dtype 'f33'"));
  EXPECT_TRUE(hasError(R, "args[0] (\"x\").shape[0]: unknown size name 'k'"));
  EXPECT_TRUE(hasError(R, "duplicate argument name 'x'"));
  EXPECT_TRUE(hasError(R, "an integer scalar needs an integer"));
  EXPECT_TRUE(hasError(R, "unknown intent 'sideways'"));
  EXPECT_TRUE(hasError(R, "unknown distribution 'gaussian'"));
  EXPECT_TRUE(hasError(R, "missing field 'buffer', 'scalar' or 'stream'"));
  EXPECT_TRUE(hasError(R, "shapes[0].n: must be a positive integer"));
  EXPECT_TRUE(hasError(R, "benchmark_shape: must be an index"));
  EXPECT_TRUE(hasError(R, "unknown field 'mystery'"));
}

TEST(ProblemParser, InvalidJson) {
  auto R = parseProblemJson("{\"name\": }", "problem.json");
  EXPECT_TRUE(hasError(R, "not valid JSON"));
}

TEST(ProblemParser, OutputsMayNotHaveInit) {
  std::string Text = Axpby;
  Text.replace(Text.find("\"intent\": \"out\""), 15,
               "\"intent\": \"out\", \"init\": {\"dist\": \"constant\", "
               "\"value\": 0}");
  auto R = parseProblemJson(Text, "problem.json");
  EXPECT_TRUE(hasError(R, "args[2] (\"out\").init: an intent 'out' buffer is "
                          "poisoned before every run"));
}
} // namespace

namespace {
ProblemLoadResult parseFixed(const std::string &Text) {
  return parseProblemJson(Text, "problem.json");
}

std::string withReplaced(std::string Text, const std::string &From,
                         const std::string &To) {
  Text.replace(Text.find(From), From.size(), To);
  return Text;
}

TEST(ProblemParser, NumbersThatDoNotFitAreErrors) {
  auto R = parseFixed(withReplaced(Axpby, "1e-4", "1e999"));
  EXPECT_TRUE(hasError(R, "(in the value of 'atol')"));
  R = parseFixed(
      withReplaced(Axpby, "\"timeout_s\": 30", "\"seeds\": 4294967297"));
  EXPECT_TRUE(hasError(R, "seeds: must be an integer from 1 to 100"));
  R = parseFixed(
      withReplaced(Axpby, "{\"n\": 7}", "{\"n\": 18446744073709551615}"));
  EXPECT_TRUE(hasError(R, "shapes[1].n: must be a positive integer"));
  R = parseFixed(withReplaced(Axpby, "{\"n\": 7}", "{\"n\": 3000000000}"));
  EXPECT_TRUE(hasError(R, "size 'n' = 3000000000"));
  R = parseFixed(withReplaced(Axpby, "\"value\": 1.5", "\"value\": 1e39"));
  EXPECT_TRUE(hasError(R, "does not fit f32"));
}

TEST(ProblemParser, BufferSizesAreChecked) {
  auto R = parseFixed(
      withReplaced(Axpby, "[\"n\", 2]", "[\"n\", 4611686018427387904]"));
  EXPECT_TRUE(hasError(R, "overflows 64 bits")) << R.Errors.front();
  R = parseFixed(withReplaced(Axpby, "[\"n\", 2]", "[\"n\", 68719476736]"));
  EXPECT_TRUE(hasError(R, "above the limit of 2^40 bytes"));
  Arg A;
  A.Type = DType::F64;
  A.Shape = {Dim{"", 1ll << 31}, Dim{"", 1ll << 31}};
  EXPECT_FALSE(checkedBufferBytes(A, Shape{})); // 2^62 elements of 8 bytes
  A.Shape = {Dim{"", 1ll << 31}, Dim{"n", 0}};
  Shape S;
  S.Sizes = {{"n", 2}};
  EXPECT_EQ(checkedBufferBytes(A, S), std::optional<std::int64_t>(1ll << 35));
}
} // namespace

namespace {
TEST(ProblemParser, FileCheckEntries) {
  auto With = [](const std::string &List) {
    return parseProblemJson(
        withReplaced(Axpby, "\"timeout_s\": 30", "\"filecheck\": " + List),
        "problem.json");
  };
  auto R = With(R"([{"over": "ptxas", "file": "a.check"},
                    {"over": "sass", "file": "b.check", "prefixes": ["S"]},
                    {"over": "ptx", "file": "c.check"}])");
  ASSERT_TRUE(R.ok());
  ASSERT_EQ(R.Value->FileChecks.size(), 3u);
  EXPECT_EQ(R.Value->FileChecks[0].Over, FileCheckSpec::Input::Ptxas);
  EXPECT_EQ(R.Value->FileChecks[1].Over, FileCheckSpec::Input::Sass);
  EXPECT_EQ(R.Value->FileChecks[2].Over, FileCheckSpec::Input::Ptx);
  EXPECT_EQ(R.Value->FileChecks[1].File, "b.check");
  EXPECT_EQ(R.Value->FileChecks[1].Prefixes, std::vector<std::string>{"S"});

  EXPECT_TRUE(hasError(With("{}"), "filecheck: must be an array"));
  EXPECT_TRUE(hasError(With(R"([{"over": "llvm-ir", "file": "a"}])"),
                       "filecheck[0].over: must be \"ptxas\""));
  EXPECT_TRUE(hasError(With(R"([{"over": "sass"}])"),
                       "filecheck[0]: missing field 'file'"));
  EXPECT_TRUE(hasError(With(R"([{"over": "sass", "file": "a", "x": 1}])"),
                       "filecheck[0]: unknown field 'x'"));
  EXPECT_TRUE(hasError(With("[3]"), "filecheck[0]: must be an object"));
  EXPECT_TRUE(
      hasError(With(R"([{"over": "sass", "file": "a", "prefixes": [1]}])"),
               "filecheck[0].prefixes: must be an array of strings"));
}
} // namespace
