//===- OutputsTest.cpp - best.test and atomic writes ----------------------===//
#include "kopt/Search/Outputs.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

using namespace kopt::search;
namespace fs = std::filesystem;

TEST(OutputsTest, BestTestChecksTheLinesTheRecipeAdds) {
  std::string Original = "__global__ void k(float *x) {\n  x[0] = 1;\n}\n";
  std::string Best = "__global__ void __launch_bounds__(256) k(float *x) {\n"
                     "  x[0] = 1;\n}\n";
  std::string T = bestTest(Original, Best, "launch-bounds", "summary");
  EXPECT_NE(T.find("// RUN: kopt-opt %s -passes='launch-bounds' | FileCheck "
                   "%s\n"),
            std::string::npos);
  EXPECT_NE(T.find("// CHECK: {{^ *}}__global__ void __launch_bounds__(256) "
                   "k(float *x) {\n"),
            std::string::npos);
  EXPECT_EQ(T.find("CHECK: {{^ *}}x[0] = 1;"), std::string::npos);
  EXPECT_NE(T.find(Original), std::string::npos); // the input follows
}

TEST(OutputsTest, BestTestLeavesOutLinesFileCheckWouldMisread) {
  std::string T = bestTest("int a;\n", "int a;\nint b[[2]];\n// c\n", "p", "s");
  EXPECT_EQ(T.find("b[[2]]"), std::string::npos);
  EXPECT_NE(T.find("// CHECK: {{.}}"), std::string::npos);
}

TEST(OutputsTest, AtomicWriteReplacesWholeOrFails) {
  fs::path Dir = fs::temp_directory_path() / "kopt-outputs-test";
  fs::create_directories(Dir);
  std::string Error;
  ASSERT_TRUE(writeFileAtomically((Dir / "f").string(), "one", Error));
  ASSERT_TRUE(writeFileAtomically((Dir / "f").string(), "two", Error));
  std::ifstream In(Dir / "f");
  std::string Text((std::istreambuf_iterator<char>(In)), {});
  EXPECT_EQ(Text, "two");
  EXPECT_FALSE(
      writeFileAtomically((Dir / "no" / "such" / "f").string(), "x", Error));
  EXPECT_FALSE(Error.empty());
  fs::remove_all(Dir);
}

TEST(OutputsTest, LLMExchangesGivePromptAndReplyAsText) {
  LLMExchangeRow OpenAI;
  OpenAI.Seq = 1;
  OpenAI.Kind = "propose";
  OpenAI.Request = R"({"model": "m", "messages": [
      {"role": "system", "content": "You tune CUDA."},
      {"role": "user", "content": [{"type": "text", "text": "Kernel:"},
                                   {"type": "text", "text": " x"}]}]})";
  OpenAI.Text = "Use float4.";
  LLMExchangeRow Anthropic;
  Anthropic.Seq = 2;
  Anthropic.Request = R"({"system": "Be brief.", "messages": [
      {"role": "user", "content": "Kernel"}]})";
  Anthropic.Error = "the reply holds no code block";
  LLMExchangeRow Raw;
  Raw.Seq = 3;
  Raw.Request = "not json";
  nlohmann::json J = llmExchangesJson({OpenAI, Anthropic, Raw});
  ASSERT_EQ(J.size(), 3u);
  EXPECT_EQ(J[0]["prompt"],
            "[system]\nYou tune CUDA.\n\n[user]\nKernel: x\n\n");
  EXPECT_EQ(J[0]["reply"], "Use float4.");
  EXPECT_EQ(J[1]["prompt"], "[system]\nBe brief.\n\n[user]\nKernel\n\n");
  EXPECT_EQ(J[1]["error"], "the reply holds no code block");
  EXPECT_EQ(J[2]["prompt"], "not json");
}
