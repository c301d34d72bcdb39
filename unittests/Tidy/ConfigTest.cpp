#include "kopt/Tidy/Config.h"

#include <gtest/gtest.h>

using namespace kopt;

TEST(Config, ParsesEveryKey) {
  llvm::Expected<TidyConfig> C = parseConfig("Checks: 'kopt-*'\n"
                                             "WarningsAsErrors: kopt-unroll\n"
                                             "CheckOptions:\n"
                                             "  kopt-vectorize-loads.Width: 4\n"
                                             "Pipeline: launch-bounds\n"
                                             "GpuArch: sm_80\n"
                                             "ExtraArgs: ['-DA', '-Iinc']\n"
                                             "ShowMissed: true\n"
                                             "InheritParentConfig: true\n",
                                             "/p/.kopt.yaml");
  ASSERT_TRUE(static_cast<bool>(C)) << llvm::toString(C.takeError());
  EXPECT_EQ(*C->Checks, "kopt-*");
  EXPECT_EQ(*C->WarningsAsErrors, "kopt-unroll");
  EXPECT_EQ(C->CheckOptions.at("kopt-vectorize-loads.Width"), "4");
  EXPECT_EQ(*C->Pipeline, "launch-bounds");
  EXPECT_EQ(*C->GpuArch, "sm_80");
  EXPECT_EQ(C->ExtraArgs->size(), 2u);
  EXPECT_EQ(C->ShowMissed, std::optional<bool>(true));
  EXPECT_TRUE(C->InheritParentConfig);
  EXPECT_EQ(C->Sources, std::vector<std::string>{"/p/.kopt.yaml"});
}

TEST(Config, ErrorsNameFileLineAndColumn) {
  llvm::Expected<TidyConfig> C = parseConfig(
      "Checks: 'kopt-*'\n  Pipeline: x\nChekcs: y\n", "/p/.kopt.yaml");
  ASSERT_FALSE(static_cast<bool>(C));
  std::string Message = llvm::toString(C.takeError());
  EXPECT_EQ(Message.rfind("/p/.kopt.yaml:", 0), 0u) << Message;
  EXPECT_NE(Message.find(": error: "), std::string::npos) << Message;

  llvm::Expected<TidyConfig> Unknown =
      parseConfig("Checks: 'kopt-*'\nChekcs: y\n", "/p/.kopt.yaml");
  ASSERT_FALSE(static_cast<bool>(Unknown));
  EXPECT_EQ(llvm::toString(Unknown.takeError()),
            "/p/.kopt.yaml:2:1: error: unknown key 'Chekcs'");
}

TEST(Config, EmptyFileConfiguresNothing) {
  llvm::Expected<TidyConfig> C = parseConfig("# nothing\n", "/p/.kopt.yaml");
  ASSERT_TRUE(static_cast<bool>(C));
  EXPECT_FALSE(C->Checks.has_value());
}

TEST(Config, MergeOverridesKeyByKey) {
  TidyConfig Parent = cantFail(
      parseConfig("Checks: 'kopt-*'\nCheckOptions:\n  a.B: 1\n  a.C: 2\n",
                  "/p/.kopt.yaml"));
  TidyConfig Child = cantFail(
      parseConfig("InheritParentConfig: true\nCheckOptions:\n  a.C: 3\n",
                  "/p/q/.kopt.yaml"));
  TidyConfig Merged;
  Merged.mergeFrom(Parent);
  Merged.mergeFrom(Child);
  EXPECT_EQ(*Merged.Checks, "kopt-*");
  EXPECT_EQ(Merged.CheckOptions.at("a.B"), "1");
  EXPECT_EQ(Merged.CheckOptions.at("a.C"), "3");
  EXPECT_EQ(Merged.Sources,
            (std::vector<std::string>{"/p/q/.kopt.yaml", "/p/.kopt.yaml"}));
}
