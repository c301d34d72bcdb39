//===- PipelineTest.cpp - Pipeline parsing and printing -------------------===//

#include "kopt/Pipeline/Pipeline.h"
#include "kopt/Passes/BuiltinPasses.h"

#include "../TestHelpers.h"
#include "gtest/gtest.h"

using namespace kopt;

namespace {

std::string canonical(llvm::StringRef Text) {
  llvm::Expected<Pipeline> P = parsePipeline(Text, builtinPasses());
  if (!P)
    return "error: " + llvm::toString(P.takeError());
  return P->str();
}

/// The error message and position of a pipeline that must not parse.
std::pair<std::string, size_t> failure(llvm::StringRef Text) {
  llvm::Expected<Pipeline> P = parsePipeline(Text, builtinPasses());
  EXPECT_FALSE(static_cast<bool>(P)) << Text.str();
  if (P)
    return {"", 0};
  std::pair<std::string, size_t> Result;
  llvm::handleAllErrors(P.takeError(), [&](const PipelineError &E) {
    Result = {E.Message, E.Position};
  });
  return Result;
}

TEST(PipelineTest, FillsDefaults) {
  EXPECT_EQ(canonical("launch-bounds"),
            "launch-bounds{max-threads=auto,min-blocks=0,replace=false}");
}

TEST(PipelineTest, ParsesTypedParameters) {
  llvm::Expected<Pipeline> P = parsePipeline(
      "launch-bounds{max-threads=256,replace=true}", builtinPasses());
  KOPT_ASSERT_VALUE(P);
  ASSERT_EQ(P->Passes.size(), 1u);
  EXPECT_EQ(P->Passes[0].get<ParamType::AutoUInt>("max-threads"),
            std::optional<uint64_t>(256));
  EXPECT_EQ(P->Passes[0].get<ParamType::UInt>("min-blocks"), 0u);
  EXPECT_TRUE(P->Passes[0].get<ParamType::Bool>("replace"));
}

TEST(PipelineTest, AutoIsNotAValue) {
  llvm::Expected<Pipeline> P =
      parsePipeline("vectorize-loads", builtinPasses());
  KOPT_ASSERT_VALUE(P);
  EXPECT_EQ(P->Passes[0].get<ParamType::AutoUInt>("width"), std::nullopt);
}

TEST(PipelineTest, RoundTripsEveryRegisteredPass) {
  for (const PassSpec &Spec : builtinPasses().passes()) {
    std::string Once = canonical(Spec.Name);
    EXPECT_EQ(canonical(Once), Once) << Spec.Name.str();
  }
  std::string Default = canonical("default");
  EXPECT_EQ(canonical(Default), Default);
}

TEST(PipelineTest, ExpandsNamedPipelines) {
  const PipelineAlias *Default = builtinPasses().findAlias("default");
  ASSERT_NE(Default, nullptr);
  EXPECT_EQ(canonical("default"), canonical(Default->Pipeline));
}

TEST(PipelineTest, ToleratesWhitespace) {
  EXPECT_EQ(canonical(" launch-bounds { replace = true } , vectorize-loads "),
            canonical("launch-bounds{replace=true},vectorize-loads"));
}

TEST(PipelineTest, ReportsErrorsAtTheirToken) {
  EXPECT_EQ(failure("launch-bounds,nope").second, 14u);
  EXPECT_EQ(failure("launch-bounds{nope=1}").second, 14u);
  EXPECT_EQ(failure("launch-bounds{min-blocks=x}").second, 25u);
  EXPECT_EQ(failure("launch-bounds{replace=true,replace=true}").second, 27u);
  EXPECT_EQ(failure("").second, 0u);
  EXPECT_EQ(failure("launch-bounds,").second, 14u);
  EXPECT_EQ(failure("launch-bounds vectorize-loads").second, 14u);
  EXPECT_EQ(failure("launch-bounds{replace=true").second, 13u);
}

TEST(PipelineTest, RejectsBadValues) {
  EXPECT_NE(failure("launch-bounds{min-blocks=-3}").first.find("unsigned"),
            std::string::npos);
  EXPECT_NE(failure("launch-bounds{min-blocks=0x10}").first.find("unsigned"),
            std::string::npos);
  EXPECT_NE(failure("launch-bounds{min-blocks=99999999999}").first.find("10^9"),
            std::string::npos);
  EXPECT_NE(failure("launch-bounds{replace=yes}").first.find("true or false"),
            std::string::npos);
  EXPECT_NE(failure("default{x=1}").first.find("takes no parameters"),
            std::string::npos);
}

TEST(PipelineTest, ParamValuesPrintAsWritten) {
  llvm::Expected<ParamValue> V = parseParamValue(ParamType::AutoUInt, "auto");
  KOPT_ASSERT_VALUE(V);
  EXPECT_EQ(V->str(ParamType::AutoUInt), "auto");
  V = parseParamValue(ParamType::Bool, "1");
  KOPT_ASSERT_VALUE(V);
  EXPECT_EQ(V->str(ParamType::Bool), "true");
}

} // namespace
