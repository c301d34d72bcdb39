//===- EditsTest.cpp - Merging edits from the device and host parses -----===//

#include "kopt/Pass/Edits.h"

#include "../TestHelpers.h"
#include "gtest/gtest.h"

using namespace kopt;

namespace {

TEST(EditsTest, IdenticalEditsFromBothSidesApplyOnce) {
  EditSet Device("k.cu"), Host("k.cu");
  KOPT_ASSERT_OK(Device.replaceChars(4, 3, "four"));
  KOPT_ASSERT_OK(Host.replaceChars(4, 3, "four"));
  KOPT_ASSERT_OK(Host.replaceChars(0, 0, "// x\n"));
  KOPT_ASSERT_OK(Device.merge(Host));
  EXPECT_EQ(Device.size(), 2u);
  llvm::Expected<std::string> Out = Device.apply("int one = 1;");
  KOPT_ASSERT_VALUE(Out);
  EXPECT_EQ(*Out, "// x\nint four = 1;");
}

TEST(EditsTest, ConflictingEditsAreRefused) {
  EditSet Device("k.cu"), Host("k.cu");
  KOPT_ASSERT_OK(Device.replaceChars(4, 3, "four"));
  KOPT_ASSERT_OK(Host.replaceChars(5, 3, "xyz"));
  llvm::Error E = Device.merge(Host);
  ASSERT_TRUE(static_cast<bool>(E));
  EXPECT_NE(llvm::toString(std::move(E)).find("conflicting edits"),
            std::string::npos);
}

TEST(EditsTest, TheSameInsertionTwiceIsOneEdit) {
  EditSet A("k.cu"), B("k.cu");
  KOPT_ASSERT_OK(A.replaceChars(12, 0, "\nint two;"));
  KOPT_ASSERT_OK(B.replaceChars(12, 0, "\nint two;"));
  KOPT_ASSERT_OK(A.merge(B));
  KOPT_ASSERT_OK(A.replaceChars(12, 0, "\nint two;"));
  llvm::Expected<std::string> Out = A.apply("int one = 1;");
  KOPT_ASSERT_VALUE(Out);
  EXPECT_EQ(*Out, "int one = 1;\nint two;");
}

TEST(EditsTest, AConflictingMergeAddsNothing) {
  EditSet A("k.cu"), B("k.cu");
  KOPT_ASSERT_OK(A.replaceChars(4, 3, "four"));
  KOPT_ASSERT_OK(B.replaceChars(0, 0, "// x\n"));
  KOPT_ASSERT_OK(B.replaceChars(5, 3, "xyz"));
  llvm::Error E = A.merge(B);
  ASSERT_TRUE(static_cast<bool>(E));
  llvm::consumeError(std::move(E));
  EXPECT_EQ(A.size(), 1u);
  llvm::Expected<std::string> Out = A.apply("int one = 1;");
  KOPT_ASSERT_VALUE(Out);
  EXPECT_EQ(*Out, "int four = 1;");
}

TEST(EditsTest, DisjointEditsCommute) {
  EditSet A("k.cu"), B("k.cu");
  KOPT_ASSERT_OK(A.replaceChars(0, 3, "long"));
  KOPT_ASSERT_OK(B.replaceChars(8, 1, "2"));
  KOPT_ASSERT_OK(A.merge(B));
  llvm::Expected<std::string> Out = A.apply("int x = 1;");
  KOPT_ASSERT_VALUE(Out);
  EXPECT_EQ(*Out, "long x = 2;");
}

TEST(EditsTest, EmptySetLeavesTextAlone) {
  EditSet E("k.cu");
  EXPECT_TRUE(E.empty());
  llvm::Expected<std::string> Out = E.apply("unchanged");
  KOPT_ASSERT_VALUE(Out);
  EXPECT_EQ(*Out, "unchanged");
}

} // namespace
