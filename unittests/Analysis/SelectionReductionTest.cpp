//===- SelectionReductionTest.cpp - First-index argmax/argmin trees -------===//

#include "kopt/Analysis/SelectionReduction.h"

#include "AnalyzedSource.h"

using namespace kopt;

namespace {

/// An argmax kernel as the header draws it, with the feed loop's update
/// Update, the tree's test Test, the element type and v's first value.
std::string
argmax(const std::string &Update = "e > v",
       const std::string &Test = "ov > V[t] || (ov == V[t] && oi < I[t])",
       const std::string &Type = "float",
       const std::string &Init = "-INFINITY") {
  return "__global__ void k(const " + Type +
         " *x, int *out, int n) {\n"
         "  __shared__ " +
         Type +
         " V[256];\n  __shared__ int I[256];\n"
         "  const int t = threadIdx.x;\n"
         "  " +
         Type + " v = " + Init +
         ";\n  int idx = n;\n"
         "  for (int j = t; j < n; j += blockDim.x) {\n"
         "    " +
         Type +
         " e = x[blockIdx.x * n + j];\n"
         "    if (" +
         Update +
         ") { v = e; idx = j; }\n"
         "  }\n"
         "  V[t] = v; I[t] = idx;\n  __syncthreads();\n"
         "  for (int s = blockDim.x / 2; s > 0; s >>= 1) {\n"
         "    if (t < s) {\n"
         "      " +
         Type +
         " ov = V[t + s]; int oi = I[t + s];\n"
         "      if (" +
         Test +
         ") { V[t] = ov; I[t] = oi; }\n"
         "    }\n"
         "    __syncthreads();\n"
         "  }\n"
         "  if (t == 0) out[blockIdx.x] = I[0];\n"
         "}\n";
}

struct Found {
  std::vector<SelectionTree> Trees;
  std::vector<Refusal> Refused;
};

Found find(const std::string &Source) {
  AnalyzedSource S(Source);
  Found F;
  if (const KernelInfo *K = S.kernel())
    findSelectionTrees(K->Decl, S.ctx(), F.Trees, F.Refused);
  return F;
}

} // namespace

TEST(SelectionReductionTest, FirstIndexArgmaxAndArgmin) {
  Found Max = find(argmax());
  ASSERT_EQ(Max.Trees.size(), 1u);
  EXPECT_TRUE(Max.Refused.empty());
  const SelectionTree &T = Max.Trees.front();
  EXPECT_TRUE(T.Max);
  EXPECT_NE(T.Feed, nullptr);
  EXPECT_EQ(T.Value->getName(), "v");
  EXPECT_EQ(T.Index->getName(), "idx");
  EXPECT_EQ(T.ValueArray->getName(), "V");
  EXPECT_EQ(T.IndexArray->getName(), "I");
  EXPECT_FALSE(T.ValueRead);  // only I[0] is read after the tree
  EXPECT_EQ(T.Loc.Line, 13u); // the tree loop
  Found Min = find(argmax("e < v", "ov < V[t] || (ov == V[t] && oi < I[t])"));
  ASSERT_EQ(Min.Trees.size(), 1u);
  EXPECT_FALSE(Min.Trees.front().Max);
  // Doubles and a comparison written the other way round.
  Found Flipped =
      find(argmax("v < e", "V[t] < ov || (ov == V[t] && oi < I[t])", "double"));
  EXPECT_EQ(Flipped.Trees.size(), 1u);
}

TEST(SelectionReductionTest, TreesThatDoNotKeepTheFirstIndexAreRefused) {
  // The last of equal maxima in a thread or in the tree, or a tree that
  // keeps minima after a loop that keeps maxima: another answer for another
  // partition of the elements. Each refusal says which part is wrong.
  const char *Update = "other than by a selection";
  const char *Step = "the (value, index) tree step is not";
  struct Case {
    std::string Update, Test;
    const char *Why;
  };
  for (const Case &C : std::vector<Case>{
           {"e >= v", "ov > V[t] || (ov == V[t] && oi < I[t])", Update},
           {"e > v", "ov > V[t] || (ov == V[t] && oi > I[t])", Step},
           {"e > v", "ov >= V[t]", Step},
           {"e > v", "ov < V[t] || (ov == V[t] && oi < I[t])", Update}}) {
    Found F = find(argmax(C.Update, C.Test));
    EXPECT_TRUE(F.Trees.empty()) << C.Update << " / " << C.Test;
    ASSERT_EQ(F.Refused.size(), 1u) << C.Update << " / " << C.Test;
    EXPECT_NE(F.Refused.front().Message.find(C.Why), std::string::npos)
        << F.Refused.front().Message;
  }
}

TEST(SelectionReductionTest, AStartThatMayDifferBetweenThreadsIsRefused) {
  // v from memory: kopt does not prove every thread starts from the same
  // value (here it would: x is only read), and says so.
  Found F = find(argmax("e > v", "ov > V[t] || (ov == V[t] && oi < I[t])",
                        "float", "x[0]"));
  EXPECT_TRUE(F.Trees.empty());
  ASSERT_EQ(F.Refused.size(), 1u);
  EXPECT_EQ(F.Refused.front().Message,
            "'v' does not start with the same value in every thread");
}
