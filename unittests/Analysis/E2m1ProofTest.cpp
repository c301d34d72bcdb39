//===- E2m1ProofTest.cpp - Is a helper exactly float -> e2m1? -------------===//

#include "kopt/Analysis/E2m1Proof.h"

#include "AnalyzedSource.h"

#include <cmath>

using namespace kopt;

namespace {

/// An e2m1 helper written as a ladder of threshold comparisons, as real
/// NVFP4 code writes it before Blackwell; Cmp[i] is the comparison with the
/// i-th midpoint (0.25, 0.75, ..., 5): "<=" rounds a tie down, "<" up.
std::string ladder(const std::vector<std::string> &Cmp) {
  const char *Mid[] = {"0.25f", "0.75f", "1.25f", "1.75f",
                       "2.5f",  "3.5f",  "5.0f"};
  std::string S = "__device__ int to_e2m1(float v) {\n"
                  "  int s = v < 0.f ? 8 : 0;\n  float a = fabsf(v);\n"
                  "  int m;\n";
  for (int I = 0; I < 7; ++I)
    S += std::string(I ? "  else if" : "  if") + " (a " + Cmp[I] + " " +
         Mid[I] + ") m = " + std::to_string(I) + ";\n";
  return S + "  else m = 7;\n  return s | m;\n}\n"
             "__global__ void k(const float *x, int *y) { y[0] = "
             "to_e2m1(x[0]); }\n";
}

/// Round-to-nearest-even at the midpoints: a tie goes to the even code.
const std::vector<std::string> Even = {"<=", "<", "<=", "<", "<=", "<", "<="};

E2m1Verdict prove(const std::string &Source, bool ExactNaN = true) {
  AnalyzedSource S(Source);
  for (const clang::Decl *D : S.ctx().getTranslationUnitDecl()->decls())
    if (const auto *F = llvm::dyn_cast<clang::FunctionDecl>(D);
        F && F->getName() == "to_e2m1" && F->hasBody())
      return proveE2m1Helper(F, S.ctx(), ExactNaN);
  ADD_FAILURE() << "no helper";
  return {};
}

} // namespace

TEST(E2m1ProofTest, TheReferenceRoundsToNearestEvenAndSaturates) {
  EXPECT_EQ(e2m1Reference(0.25f), 0);  // a tie: to the even code 0
  EXPECT_EQ(e2m1Reference(0.75f), 2);  // a tie: to the even code 2 (1.0)
  EXPECT_EQ(e2m1Reference(2.5f), 4);   // a tie: 2.0
  EXPECT_EQ(e2m1Reference(-3.0f), 13); // sign bit and 3.0
  EXPECT_EQ(e2m1Reference(1e30f), 7);  // satfinite: 6.0
  EXPECT_EQ(e2m1Reference(INFINITY), 7);
}

TEST(E2m1ProofTest, ALadderOfThresholdsIsProved) {
  E2m1Verdict V = prove(ladder(Even));
  EXPECT_EQ(V.Why, "");
  EXPECT_GT(V.Cells, 10u);
  // The sign comes from `v < 0`: -0.0 is encoded +0.
  EXPECT_TRUE(V.NegZeroIsPositive);
}

TEST(E2m1ProofTest, AWrongTieOrThresholdIsFound) {
  // 0.75 rounded down (to 0.5, an odd code): not round-to-nearest-even.
  std::vector<std::string> Down = Even;
  Down[1] = "<=";
  EXPECT_EQ(prove(ladder(Down)).Why,
            "the tie at 0.75 goes to the odd code 1, not to the even code 2");
  // A threshold off the grid's midpoint.
  std::string Off = ladder(Even);
  Off.replace(Off.find("1.75f"), 5, "1.70f");
  EXPECT_EQ(prove(Off).Why, "its threshold 1.7 is not the midpoint 1.75 (1.7 "
                            "gives code 0x4, round-to-nearest-even 0x3)");
}

TEST(E2m1ProofTest, ArchitecturesWithTheInstruction) {
  EXPECT_EQ(hasE2m1Instruction("sm_100a"), true);
  EXPECT_EQ(hasE2m1Instruction("sm_120f"), true);
  EXPECT_EQ(hasE2m1Instruction("sm_90"), false);
  EXPECT_EQ(hasE2m1Instruction("sm_100"), false); // not family-specific
  EXPECT_EQ(hasE2m1Instruction("compute_90"), std::nullopt);
}
