//===- DeviationSumsTest.cpp - Loops summing functions of deviations -----===//

#include "kopt/Analysis/DeviationSums.h"

#include "AnalyzedSource.h"

using namespace kopt;

namespace {

/// Kernel `k` with Body, its for loops and ifs in source order.
struct Loops : AnalyzedSource {
  const clang::FunctionDecl *F = nullptr;
  std::vector<const clang::ForStmt *> For;
  std::vector<const clang::IfStmt *> If;

  explicit Loops(const std::string &Body)
      : AnalyzedSource("__global__ void k(const float *__restrict__ x, "
                       "float *y, int n, float mean) {\n" +
                       Body + "\n}\n") {
    if (const KernelInfo *K = kernel())
      F = K->Decl;
    For = all<clang::ForStmt>();
    If = all<clang::IfStmt>();
  }

  /// What the last loop is: "none", "refused: ..." or "v <- elem - centre"
  /// ("v <- expf: elem - centre" for an exponential).
  std::string last(DeviationTerm Term = DeviationTerm::Square) {
    if (For.empty())
      return "no loop";
    auto M = matchDeviationSum(For.back(), Term, ctx());
    if (!M)
      return "none";
    if (const auto *R = std::get_if<Refusal>(&*M))
      return "refused: " + R->Message;
    const auto &D = std::get<DeviationSumLoop>(*M);
    std::string Exp =
        D.Exp ? D.Exp->getDirectCallee()->getNameAsString() + ": " : "";
    return D.Acc->getNameAsString() + " <- " + Exp +
           sourceText(D.Element->getSourceRange(), ctx()) + " - " +
           sourceText(D.Center->getSourceRange(), ctx());
  }
};

const char *Loop = "for (int i = threadIdx.x; i < n; i += blockDim.x)";

TEST(DeviationSumsTest, TheSpellingsOfASquaredDeviation) {
  EXPECT_EQ(Loops("float v = 0;\n" + std::string(Loop) +
                  " { float d = x[i] - mean; v += d * d; }\ny[0] = v;")
                .last(),
            "v <- x[i] - mean");
  EXPECT_EQ(Loops("float v = 0;\n" + std::string(Loop) +
                  " v += (x[i] - mean) * (x[i] - mean);\ny[0] = v;")
                .last(),
            "v <- x[i] - mean");
  EXPECT_EQ(Loops("float v = 0;\n" + std::string(Loop) +
                  " { float xi = x[i]; float d = mean - xi; "
                  "v = fmaf(d, d, v); }\ny[0] = v;")
                .last(),
            "v <- x[i] - mean");
  EXPECT_EQ(Loops("double v = 0;\n" + std::string(Loop) +
                  " { float d = x[i] - mean; v = v + d * d; }\ny[0] = v;")
                .last(),
            "v <- x[i] - mean");
}

TEST(DeviationSumsTest, PowersOfTwoAndSquaresInLocals) {
  EXPECT_EQ(Loops("float v = 0;\n" + std::string(Loop) +
                  " v += powf(x[i] - mean, 2.0f);\ny[0] = v;")
                .last(),
            "v <- x[i] - mean");
  EXPECT_EQ(Loops("float v = 0;\n" + std::string(Loop) +
                  " { float d = x[i] - mean; float sq = d * d; v += sq; }\n"
                  "y[0] = v;")
                .last(),
            "v <- x[i] - mean");
  EXPECT_EQ(Loops("float v = 0;\n" + std::string(Loop) +
                  " v += powf(x[i] - mean, 3.0f);\ny[0] = v;")
                .last(),
            "none");
}

TEST(DeviationSumsTest, SumsOfSquaresAreNoCandidates) {
  EXPECT_EQ(Loops("float q = 0;\n" + std::string(Loop) +
                  " q += x[i] * x[i];\ny[0] = q;")
                .last(),
            "none");
  EXPECT_EQ(Loops("float q = 0;\n" + std::string(Loop) +
                  " q += (x[i] - mean) * x[i];\ny[0] = q;")
                .last(),
            "none");
}

TEST(DeviationSumsTest, RefusesWhatIsMoreThanTheSum) {
  EXPECT_EQ(Loops("float v = 0, a = 0;\n" + std::string(Loop) +
                  " { float d = x[i] - mean; v += d * d; a += d; }\n"
                  "y[0] = v + a;")
                .last(),
            "refused: the loop at 3:1 does more than add squared deviations "
            "to 'v' (at 3:88)");
  EXPECT_EQ(Loops("float v = 0;\n" + std::string(Loop) +
                  " v += (x[i] - y[i]) * (x[i] - y[i]);\ny[0] = v;")
                .last(),
            "refused: the loop at 3:1 adds the square of 'x[i] - y[i]', not "
            "the difference of an element and a value the loop does not "
            "change");
  EXPECT_EQ(Loops("int v = 0;\n" + std::string(Loop) +
                  " v += (n - i) * (n - i);\ny[0] = v;")
                .last(),
            "refused: the loop at 3:1 adds to 'v', which is not a local "
            "floating-point scalar");
}

TEST(DeviationSumsTest, TheClosedFormIsAFoldOfTheLoopsSums) {
  const std::string Sums =
      "float k = x[0];\nfloat s = 0, q = 0;\nunsigned long long c = 0;\n" +
      std::string(Loop) +
      " {\n  float d = x[i] - k;\n  s += d;\n  q += d * d;\n  ++c;\n}\n"
      "float v = 0;\n";
  const std::string Closed = "if (c != 0) {\n  const float m = mean - k;\n"
                             "  v += q - m * (2.0f * s - (float)c * m);\n}\n"
                             "y[0] = v;";
  Loops Good(Sums + Closed);
  ASSERT_EQ(Good.For.size(), 1u);
  ASSERT_FALSE(Good.If.empty());
  auto Fold =
      matchVarianceFold(Good.If.back(), Good.For[0], Good.F, Good.ctx());
  ASSERT_TRUE(Fold.has_value());
  EXPECT_EQ(Fold->Into->getName(), "v");
  EXPECT_EQ(Fold->Sum->getName(), "s");
  EXPECT_EQ(Fold->Squares->getName(), "q");
  EXPECT_EQ(Fold->Count->getName(), "c");

  // The shift changed after the loop: the form no longer cancels it.
  Loops Moved(Sums + "k = 0;\n" + Closed);
  EXPECT_FALSE(
      matchVarianceFold(Moved.If.back(), Moved.For[0], Moved.F, Moved.ctx())
          .has_value());
  // 3 s instead of 2 s.
  std::string Three = Closed;
  Three.replace(Three.find("2.0f"), 4, "3.0f");
  Loops Wrong(Sums + Three);
  EXPECT_FALSE(
      matchVarianceFold(Wrong.If.back(), Wrong.For[0], Wrong.F, Wrong.ctx())
          .has_value());
  // A sum the loop also updates elsewhere.
  std::string Twice = Sums;
  Twice.replace(Twice.find("++c;"), 4, "++c; s += 1;");
  Loops Extra(Twice + Closed);
  EXPECT_FALSE(
      matchVarianceFold(Extra.If.back(), Extra.For[0], Extra.F, Extra.ctx())
          .has_value());
}

} // namespace

TEST(DeviationSumsTest, TheSpellingsOfAnExponentialOfADeviation) {
  auto Exp = [](const std::string &Body) {
    return Loops("float s = 0.0f, m = mean;\n" + std::string(Loop) + " {\n" +
                 Body + "\n}")
        .last(DeviationTerm::Exp);
  };
  EXPECT_EQ(Exp("s += expf(x[i] - m);"), "s <- expf: x[i] - m");
  EXPECT_EQ(Exp("s = s + __expf(x[i] - m);"), "s <- __expf: x[i] - m");
  EXPECT_EQ(Exp("float d = x[i] - m; s = exp(d) + s;"), "s <- exp: x[i] - m");
  EXPECT_EQ(Exp("float e = expf(x[i] - m); s += e;"), "s <- expf: x[i] - m");
  // Not a softmax's denominator: no candidate, or refused with the reason.
  EXPECT_EQ(Exp("s += expf(x[i]);"), "none");
  EXPECT_EQ(Exp("s += (x[i] - m) * (x[i] - m);"), "none");
  EXPECT_EQ(Loops(std::string("float s = 0.0f;\n") + Loop +
                  " s += (x[i] - mean) * (x[i] - mean);")
                .last(DeviationTerm::Exp),
            "none");
  EXPECT_NE(Exp("s += expf(m - x[i]);").find("refused: the loop at "),
            std::string::npos);
  EXPECT_NE(Exp("s += expf(m - x[i]);").find("(element - value)"),
            std::string::npos);
  EXPECT_NE(Exp("s += expf(x[i] - m); y[i] = s;")
                .find("does more than add exponentials of deviations to 's'"),
            std::string::npos);
  // A sum of exponentials is no squared deviation.
  EXPECT_EQ(Loops("float s = 0.0f;\n" + std::string(Loop) +
                  " s += expf(x[i] - mean);")
                .last(DeviationTerm::Square),
            "none");
}

TEST(DeviationSumsTest, TheRunningPairAndItsClosedFormAreASoftmaxFold) {
  const std::string Pair =
      "float m = -3.4e38f, s = 0.0f;\n" + std::string(Loop) +
      " {\n  const float e = x[i];\n  const float n = fmaxf(m, e);\n"
      "  s = s * expf(m - n) + expf(e - n);\n  m = n;\n}\n"
      "float w = 0.0f;\n";
  const std::string Closed =
      "if (s != 0.0f) {\n  w += s * expf(m - mean);\n}\ny[0] = w;";
  auto Match = [](const std::string &Body) {
    Loops L(Body);
    return L.For.empty() ? std::nullopt
                         : matchSoftmaxFold(L.For[0], L.F, L.ctx());
  };
  auto Good = Match(Pair + Closed);
  ASSERT_TRUE(Good.has_value());
  EXPECT_EQ(Good->Max->getName(), "m");
  EXPECT_EQ(Good->Sum->getName(), "s");
  EXPECT_EQ(Good->Into->getName(), "w");
  // The running maximum read after the loop other than by the closed form.
  EXPECT_FALSE(Match(Pair + Closed + "\ny[1] = m;").has_value());
  // The sum starting elsewhere than 0, or rescaled with another value.
  std::string From1 = Pair;
  From1.replace(From1.find("s = 0.0f"), 8, "s = 1.0f");
  EXPECT_FALSE(Match(From1 + Closed).has_value());
  std::string Other = Pair;
  Other.replace(Other.find("expf(m - n)"), 11, "expf(e - n)");
  EXPECT_FALSE(Match(Other + Closed).has_value());
  // No closed form: nothing vouches for the pair.
  EXPECT_FALSE(Match(Pair + "y[0] = s;").has_value());
}
