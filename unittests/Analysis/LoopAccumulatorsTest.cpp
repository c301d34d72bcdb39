//===- LoopAccumulatorsTest.cpp - What a loop only accumulates into -------===//

#include "kopt/Analysis/LoopAccumulators.h"

#include "AnalyzedSource.h"

using namespace kopt;

namespace {

/// The first for loop of kernel `k`, whose body is Body.
struct FirstLoop : AnalyzedSource {
  const clang::ForStmt *Loop = nullptr;

  explicit FirstLoop(const std::string &Body)
      : AnalyzedSource("__global__ void k(const float *x, float *y, "
                       "const int *v, int n) {\n" +
                       Body + "\n}\n") {
    std::vector<const clang::ForStmt *> Loops = all<clang::ForStmt>();
    EXPECT_FALSE(Loops.empty());
    if (!Loops.empty())
      Loop = Loops.front();
  }

  Decision<std::vector<Accumulator>> accumulators() {
    return loopAccumulators(Loop, ctx());
  }
};

std::vector<Accumulator> accepted(const std::string &Body) {
  FirstLoop L(Body);
  if (!L.Loop)
    return {};
  auto D = L.accumulators();
  if (auto *Why = std::get_if<Refusal>(&D)) {
    ADD_FAILURE() << "refused: " << Why->Message << "\nin: " << Body;
    return {};
  }
  return std::get<std::vector<Accumulator>>(D);
}

std::string refusal(const std::string &Body) {
  FirstLoop L(Body);
  if (!L.Loop)
    return "";
  auto D = L.accumulators();
  if (auto *Why = std::get_if<Refusal>(&D))
    return Why->Message;
  ADD_FAILURE() << "accepted: " << Body;
  return "";
}

TEST(LoopAccumulatorsTest, FloatSumIsNotExact) {
  auto A = accepted("float s = 0; for (int j = 0; j < n; j++) s += x[j];");
  ASSERT_EQ(A.size(), 1u);
  EXPECT_EQ(A[0].Var->getName(), "s");
  EXPECT_EQ(A[0].Kind, Accumulator::Sum);
  EXPECT_FALSE(A[0].Exact);
}

TEST(LoopAccumulatorsTest, IntegerSumsMaximaAndMinimaAreExact) {
  auto A = accepted("int c = 0; long long t = 0; float hi = 0, lo = 0;\n"
                    "for (int j = 0; j < n; j++) {\n"
                    "  if (x[j] > 0) ++c;\n"
                    "  t = t - v[j];\n"
                    "  hi = fmaxf(hi, x[j]);\n"
                    "  lo = fminf(x[j], lo);\n"
                    "}");
  ASSERT_EQ(A.size(), 4u);
  EXPECT_EQ(A[0].Kind, Accumulator::Sum);
  EXPECT_EQ(A[1].Kind, Accumulator::Sum);
  EXPECT_EQ(A[2].Kind, Accumulator::Max);
  EXPECT_EQ(A[2].Combine, "fmaxf");
  EXPECT_EQ(A[3].Kind, Accumulator::Min);
  for (const Accumulator &X : A)
    EXPECT_TRUE(X.Exact) << X.Var->getName().str();
}

TEST(LoopAccumulatorsTest, NoOuterWriteHasNone) {
  EXPECT_TRUE(accepted("for (int j = 0; j < n; j++) y[j] = x[j];").empty());
}

TEST(LoopAccumulatorsTest, RefusesPartialValuesRead) {
  EXPECT_NE(refusal("float s = 0; for (int j = 0; j < n; j++) if (s < 1) s "
                    "+= x[j];")
                .find("reads the partial value of 's'"),
            std::string::npos);
  EXPECT_NE(refusal("float s = 0; for (int j = 0; j < n; j++) s = s + s * "
                    "x[j];")
                .find("partial value"),
            std::string::npos);
}

TEST(LoopAccumulatorsTest, RefusesOtherUpdates) {
  EXPECT_NE(refusal("int b = 0; for (int j = 0; j < n; j++) if (x[j] > 0) b "
                    "= j;")
                .find("other than as a sum"),
            std::string::npos);
  EXPECT_NE(refusal("float p = 1; for (int j = 0; j < n; j++) p *= x[j];")
                .find("other than as a sum"),
            std::string::npos);
  EXPECT_NE(refusal("float p = 0; for (int j = 0; j < n; j++) { p += x[j]; p "
                    "= fmaxf(p, 0.0f); }")
                .find("updated in two ways"),
            std::string::npos);
  EXPECT_NE(refusal("short c = 0; for (int j = 0; j < n; j++) c += v[j];")
                .find("not a 32- or 64-bit integer"),
            std::string::npos);
}

} // namespace
