//===- OnlineSoftmax.cpp - The online-softmax pass ------------------------===//
//
// A softmax in three passes reads its row three times: for the maximum,
// for the sum of exponentials, for the output,
//
//   A: for (int j = tid; j < n; j += blockDim.x) m = fmaxf(m, x[j]);
//      ... combine m into row_max ...
//   B: for (int j = tid; j < n; j += blockDim.x) s += expf(x[j] - row_max);
//      ... combine s ...
//   C: for (...) y[j] = expf(x[j] - row_max) / row_sum;
//
// For rows too long for the caches the second read is a third of the
// traffic. B's contribution to s, sum exp(x_i - c) over the thread's
// elements, equals S * exp(M - c) for M any value and S = sum exp(x_i - M).
// Taking M as the thread's running maximum (Milakov and Gimelshein's
// online normalizer) keeps every term at most 1, so A can accumulate S as
// it reads the elements, before c is known:
//
//   float kopt_sm_m = -3.40282347e+38f;   // lowest finite: exp(-inf - m)
//   float kopt_sm_s = 0.0f;               // is 0, not NaN
//   for (int j = tid; j < n; j += blockDim.x) {
//     m = fmaxf(m, x[j]);
//     const float kopt_sm_e = x[j];
//     const float kopt_sm_n = fmaxf(kopt_sm_m, kopt_sm_e);
//     kopt_sm_s = kopt_sm_s * expf(kopt_sm_m - kopt_sm_n) +
//                 expf(kopt_sm_e - kopt_sm_n);
//     kopt_sm_m = kopt_sm_n;
//   }
//   ...
//   if (kopt_sm_s != 0.0f) {
//     s += kopt_sm_s * expf(kopt_sm_m - row_max);
//   }
//
// Two exponentials an element and no branch: the form vectorize-loads
// takes (PartialCombine.h knows the pair), and on an H200 no slower than a
// form that branched on a new maximum with one exponential (1.18 against
// 1.22 ms on 16 rows of 4M through cluster-split, both unvectorized). A
// needs no maximum of its own (any loop reading the same elements
// serves); a thread without elements, or whose elements are all -inf,
// adds nothing, as B's zero terms did. NaN and +inf elements give NaN as
// B's terms did.
//
// Legality (each failure is a missed remark):
//   * B adds exp(element - centre) (expf, exp, __expf; the term or the
//     difference through locals) to a local floating-point scalar and does
//     nothing else; the centre has no side effects and reads neither B's
//     variables nor s (DeviationSums.h);
//   * A is an earlier sibling loop that loads the same element on every
//     iteration, over the same iterations, from a `__restrict__` pointer
//     the kernel only reads, and declares none of the names the element is
//     written with (DeviationFold.h: the same partner as one-pass-variance);
//   * the deviation is float or double (the lowest finite value starts the
//     running maximum);
//   * reassociate=true: the terms are summed in another order and scale
//     (Rounding; kopt-search offers it where the problem's tolerance admits
//     it).
//
//===----------------------------------------------------------------------===//

#include "DeviationFold.h"
#include "Options.h"
#include "SourceLayout.h"
#include "kopt/Analysis/Names.h"

using namespace clang;
using namespace llvm;

namespace kopt {

namespace {

const char *const Why = "softmax denominator not computed online: ";

/// The names of one fold's running values.
struct Running {
  std::string M, S, E, N;
};

class OnlineSoftmaxPass : public KernelPass<OnlineSoftmaxOptions> {
  bool rewritesInstances() const override { return true; }

  void runOnKernel(KernelContext &KC) override {
    const KernelInfo &K = KC.kernel();
    ASTContext &AC = KC.pass().deviceContext();
    std::vector<DeviationSumLoop> Candidates = deviationSumLoops(
        KC, DeviationTerm::Exp, Why,
        "no loop only adds exponentials of elements' deviations "
        "from a value it does not change (s += expf(x[i] - max))");
    if (Candidates.empty())
      return;
    ReReadLoops Found = findReReadLoops(K, AC, ReReadShapes::SameIterations);
    std::set<std::string> Names = namesUsedIn(K.Decl, AC);
    std::vector<DeviationFold> Folds;
    for (const DeviationSumLoop &B : Candidates) {
      LineCol Loc = lineCol(B.Loop->getBeginLoc(), AC);
      const ReReadGroup *G = foldPartner(KC, Found, B, Why);
      if (!G)
        continue;
      std::string Lowest = lowest(B.Type);
      if (Lowest.empty()) {
        KC.missed(Loc, std::string(Why) + "the deviation is a '" +
                           B.Type.getAsString() + "', not a float or a double");
        continue;
      }
      if (!options().Reassociate) {
        KC.missed(Loc, std::string(Why) + "the sum of exponentials of '" +
                           sourceText(B.Element->getSourceRange(), AC) +
                           "' less '" +
                           sourceText(B.Center->getSourceRange(), AC) +
                           "' would be accumulated in the loop at " +
                           str(lineCol(G->A->getBeginLoc(), AC)) +
                           " against each thread's running maximum, which "
                           "rounds differently (reassociate=true allows it)");
        continue;
      }
      DeviationFold F;
      F.B = B;
      F.G = G;
      F.Type = deviationType(B, AC);
      F.Layout = foldLayout(G->A, B.Loop, AC);
      Running R{freshName(Names, "kopt_sm_m"), freshName(Names, "kopt_sm_s"),
                freshName(Names, "kopt_sm_e"), freshName(Names, "kopt_sm_n")};
      writeTexts(F, R, Lowest, AC);
      Folds.push_back(std::move(F));
    }
    if (Folds.empty() || !applyFolds(KC, Folds, Why))
      return;
    for (const DeviationFold &F : Folds)
      KC.applied(lineCol(F.B.Loop->getBeginLoc(), AC),
                 "the sum of exponentials of '" +
                     sourceText(F.B.Element->getSourceRange(), AC) +
                     "' less '" + sourceText(F.B.Center->getSourceRange(), AC) +
                     "' comes from a running maximum and sum the loop at " +
                     str(lineCol(F.G->A->getBeginLoc(), AC)) +
                     " keeps (online softmax): the elements are read once "
                     "instead of twice; results may differ in rounding");
  }

  /// The lowest finite value of T, as a literal; "" for other types.
  static std::string lowest(QualType T) {
    if (T->isSpecificBuiltinType(BuiltinType::Float))
      return "-3.40282347e+38f";
    if (T->isSpecificBuiltinType(BuiltinType::Double))
      return "-1.7976931348623157e+308";
    return "";
  }

  /// Before A, the running maximum (lowest) and sum (zero); at the end of
  /// A's body, the element into them (without a branch); in B's place, the
  /// sum rescaled to the centre.
  static void writeTexts(DeviationFold &F, const Running &R,
                         const std::string &Lowest, ASTContext &AC) {
    std::string Exp = sourceText(F.B.Exp->getCallee()->getSourceRange(), AC);
    std::string Max =
        F.B.Type->isSpecificBuiltinType(BuiltinType::Float) ? "fmaxf" : "fmax";
    std::string Zero = literalOf(F.Type, "0");
    const std::string &In = F.Layout.In, &Body = F.Layout.BodyIn,
                      &BIn = F.Layout.BIn, &Step = F.Layout.Step;
    F.Before = In + F.Type + " " + R.M + " = " + Lowest + ";\n" + In + F.Type +
               " " + R.S + " = " + Zero + ";\n";
    F.Tail = Body + "const " + F.Type + " " + R.E + " = " + foldElement(F, AC) +
             ";\n" + Body + "const " + F.Type + " " + R.N + " = " + Max + "(" +
             R.M + ", " + R.E + ");\n" + Body + R.S + " = " + R.S + " * " +
             Exp + "(" + R.M + " - " + R.N + ") + " + Exp + "(" + R.E + " - " +
             R.N + ");\n" + Body + R.M + " = " + R.N + ";\n";
    F.Closed = "if (" + R.S + " != " + Zero + ") {\n" + BIn + Step +
               F.B.Acc->getNameAsString() + " += " + R.S + " * " + Exp + "(" +
               R.M + " - " + foldCenter(F, AC) + ");\n" + BIn + "}";
  }
};

} // namespace

std::unique_ptr<Pass> createOnlineSoftmaxPass() {
  return std::make_unique<OnlineSoftmaxPass>();
}

} // namespace kopt
