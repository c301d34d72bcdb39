#include "kopt/Tidy/Checks.h"
#include "kopt/Passes/BuiltinPasses.h"

#include <gtest/gtest.h>

using namespace kopt;

TEST(Checks, NamesAndOptions) {
  const PassRegistry &R = builtinPasses();
  const PassSpec *LB = passForCheck(R, "kopt-launch-bounds");
  ASSERT_NE(LB, nullptr);
  EXPECT_EQ(checkName(*LB), "kopt-launch-bounds");
  EXPECT_EQ(passForCheck(R, "launch-bounds"), nullptr);
  EXPECT_EQ(passForCheck(R, "kopt-nonsense"), nullptr);
  EXPECT_EQ(optionName("min-blocks"), "MinBlocks");
  EXPECT_EQ(optionName("width"), "Width");
}

TEST(Checks, InstanceFromOptions) {
  const PassSpec &LB = *passForCheck(builtinPasses(), "kopt-launch-bounds");
  auto Set = [](llvm::StringRef Name) -> std::optional<std::string> {
    if (Name == "MinBlocks")
      return std::string("2");
    return std::nullopt;
  };
  llvm::Expected<PassInstance> I = checkInstance(LB, Set);
  ASSERT_TRUE(static_cast<bool>(I)) << llvm::toString(I.takeError());
  EXPECT_EQ(I->str(),
            "launch-bounds{max-threads=auto,min-blocks=2,replace=false}");

  auto Bad = [](llvm::StringRef Name) -> std::optional<std::string> {
    if (Name == "Replace")
      return std::string("maybe");
    return std::nullopt;
  };
  llvm::Expected<PassInstance> E = checkInstance(LB, Bad);
  ASSERT_FALSE(static_cast<bool>(E));
  EXPECT_NE(llvm::toString(E.takeError())
                .find("invalid value 'maybe' for option "
                      "kopt-launch-bounds.Replace"),
            std::string::npos);
}

TEST(Checks, ValidateOptionKeys) {
  const PassRegistry &R = builtinPasses();
  EXPECT_FALSE(static_cast<bool>(validateCheckOptions(
      R, {{"kopt-vectorize-loads.Width", "4"}, {"readability-x.Y", "1"}})));
  llvm::Error E =
      validateCheckOptions(R, {{"kopt-vectorise-loads.Width", "4"}});
  ASSERT_TRUE(static_cast<bool>(E));
  EXPECT_EQ(llvm::toString(std::move(E)),
            "CheckOptions: unknown check 'kopt-vectorise-loads'");
}
