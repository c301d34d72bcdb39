//===- ReplyEditTest.cpp - Replies into candidate sources -----------------===//
#include "kopt/LLM/ReplyEdit.h"

#include <gtest/gtest.h>

using namespace kopt::llm;

namespace {

const std::string Original =
    "#include <cuda_runtime.h>\n"
    "__global__ void k(float *x, int n) {\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i < n)\n"
    "    x[i] *= 2.0f;\n"
    "}\n";

TEST(ReplyEdit, AFullFileInACudaBlock) {
  std::string Reply = "Here is a faster version:\n\n```cuda\n"
                      "__global__ void k(float *x, int n) { /* new */ }\n"
                      "```\nIt vectorizes.\n";
  ReplyEdit E = candidateFromReply(Reply, Original);
  ASSERT_TRUE(E.ok()) << E.Error;
  EXPECT_EQ(E.Kind, ReplyEdit::Form::FullFile);
  EXPECT_EQ(E.Source, "__global__ void k(float *x, int n) { /* new */ }\n");
}

TEST(ReplyEdit, TheLongestBlockWithAKernelWins) {
  std::string Reply = "```bash\nnvcc -O3 k.cu\n```\n"
                      "```cpp\n__device__ float f();\n```\n"
                      "```\n__global__ void a() {}\n```\n"
                      "~~~cu\n__global__ void k() {}\n// and more\n~~~\n";
  ReplyEdit E = candidateFromReply(Reply, Original);
  ASSERT_TRUE(E.ok()) << E.Error;
  EXPECT_EQ(E.Source, "__global__ void k() {}\n// and more\n");
}

TEST(ReplyEdit, ADiffIsAppliedToTheOriginal) {
  std::string Reply = "```diff\n"
                      "--- a/kernel.cu\n"
                      "+++ b/kernel.cu\n"
                      "@@ -3,3 +3,3 @@\n"
                      "   int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                      "   if (i < n)\n"
                      "-    x[i] *= 2.0f;\n"
                      "+    x[i] += x[i];\n"
                      "```\n";
  ReplyEdit E = candidateFromReply(Reply, Original);
  ASSERT_TRUE(E.ok()) << E.Error;
  EXPECT_EQ(E.Kind, ReplyEdit::Form::Diff);
  EXPECT_NE(E.Source.find("    x[i] += x[i];\n"), std::string::npos);
  EXPECT_EQ(E.Source.find("*= 2.0f"), std::string::npos);
  EXPECT_EQ(E.Source.rfind("#include <cuda_runtime.h>\n", 0), 0u);
}

TEST(ReplyEdit, AHunkMayBeOffsetButMustMatch) {
  std::string Out, Error;
  // The header says line 1; the context is at line 4.
  ASSERT_TRUE(applyUnifiedDiff(
      Original, "@@ -1,1 +1,2 @@\n   if (i < n)\n+    ;\n", Out, Error))
      << Error;
  EXPECT_NE(Out.find("  if (i < n)\n    ;\n"), std::string::npos);
  EXPECT_FALSE(applyUnifiedDiff(
      Original, "@@ -2,1 +2,1 @@\n-no such line\n+x\n", Out, Error));
  EXPECT_NE(Error.find("hunk 1 (at line 2) does not match"), std::string::npos);
  EXPECT_FALSE(applyUnifiedDiff(Original, "just text\n", Out, Error));
  EXPECT_EQ(Error, "the diff has no hunks");
  // A line number past any source (found by fuzz/llm-reply.cpp: the
  // offset arithmetic overflowed).
  EXPECT_FALSE(applyUnifiedDiff(
      Original, "@@ -9223372036854775807,1 +1,1 @@\n-x\n+y\n", Out, Error));
  EXPECT_NE(Error.find("out of range"), std::string::npos);
}

TEST(ReplyEdit, RepliesWithoutACandidate) {
  EXPECT_EQ(candidateFromReply("I cannot help with that.", Original).Error,
            "the reply holds no code block");
  EXPECT_EQ(candidateFromReply("```python\nprint(1)\n```\n", Original).Error,
            "no code block in the reply defines a __global__ kernel");
  EXPECT_EQ(
      candidateFromReply("```cuda\n__global__ void k() {\n", Original).Error,
      "the reply has an unterminated code block (truncated?)");
  ReplyEdit Two = candidateFromReply(
      "```diff\n@@ -1 +1 @@\n-a\n+b\n```\n```diff\n@@ -1 +1 @@\n-a\n+b\n```\n",
      Original);
  EXPECT_EQ(Two.Error, "the reply has 2 diffs; one is expected");
  ReplyEdit Bad = candidateFromReply(
      "```patch\n@@ -1 +1 @@\n-not in the file\n+b\n```\n", Original);
  EXPECT_EQ(Bad.Error.rfind("the reply's diff does not apply: hunk 1", 0), 0u);
}

} // namespace
