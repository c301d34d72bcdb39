//===- OnePassVariance.cpp - The one-pass-variance pass -------------------===//
//
// A two-pass variance reads its elements twice: once for the mean, once
// for the squared deviations from it,
//
//   A: for (int i = threadIdx.x; i < n; i += blockDim.x) s += x[i];
//      ... combine s, mean = s / n ...
//   B: for (int i = threadIdx.x; i < n; i += blockDim.x) {
//        float d = x[i] - mean; v += d * d;
//      }
//
// For a memory-bound kernel over rows too long for the caches, the second
// read is a third of its traffic. B's contribution to v is a function of
// three sums over the same elements that A can accumulate before the mean
// is known. With K any value fixed per thread (the shift), d_i = x_i - K,
// S = sum d_i, Q = sum d_i^2, N the iteration count and c = mean - K,
//
//   sum (x_i - mean)^2 = sum (d_i - c)^2 = Q - c * (2 S - N c).
//
// The pass adds S, Q and N to A (K is the thread's first element, read
// before A at A's first index: then c is small and the difference does not
// cancel catastrophically) and replaces B by that closed form:
//
//   float kopt_var_k = 0.0f;
//   {
//     int i = threadIdx.x;
//     if (i < n)
//       kopt_var_k = x[i];
//   }
//   float kopt_var_s = 0.0f, kopt_var_q = 0.0f;
//   unsigned long long kopt_var_n = 0;
//   for (int i = threadIdx.x; i < n; i += blockDim.x) {
//     s += x[i];
//     float kopt_var_d = x[i] - kopt_var_k;
//     kopt_var_s += kopt_var_d;
//     kopt_var_q += kopt_var_d * kopt_var_d;
//     ++kopt_var_n;
//   }
//   ...
//   if (kopt_var_n != 0) {
//     const float kopt_var_c = mean - kopt_var_k;
//     v += kopt_var_q - kopt_var_c * (2.0f * kopt_var_s -
//                                     static_cast<float>(kopt_var_n) *
//                                     kopt_var_c);
//   }
//
// Legality (each failure is a missed remark):
//   * B adds the square of `element - centre` to a local floating-point
//     scalar and does nothing else (locals that feed the update aside); the
//     centre has no side effects and reads neither B's variables nor v
//     (DeviationSums.h): B's contribution is sum (x_i - centre)^2 over
//     its iterations, with the centre's value where B stood;
//   * A is an earlier sibling loop that loads the same element on every
//     iteration, over the same iterations, from a `__restrict__` pointer
//     the kernel only reads (ReReadLoops.h, as register-cache, in its
//     SameIterations shape: the same start, step and bound, each one value
//     for the kernel): the values A sees are the values B would have read;
//   * A declares none of the names the element is written with (its text,
//     B's counter included, is copied into A: ReReadLoops pairs only
//     elements indexed alike, so A's counter has B's counter's name);
//   * the sums are of each thread's own iterations, whichever later pass
//     divides them (cluster-split, vectorize-loads): the formula holds for
//     any set of iterations whose S, Q and N are accumulated together;
//   * reassociate=true: Q - c (2S - Nc) rounds differently from the sum of
//     squares it replaces (Rounding; kopt-search offers it where the
//     problem's tolerance admits it). An empty thread (N = 0) adds nothing,
//     as B did.
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

const char *const Why = "variance not computed in one pass: ";

/// The names of one fold's sums.
struct Sums {
  std::string K, S, Q, N, D, C;
};

class OnePassVariancePass : public KernelPass<OnePassVarianceOptions> {
  bool rewritesInstances() const override { return true; }

  void runOnKernel(KernelContext &KC) override {
    const KernelInfo &K = KC.kernel();
    ASTContext &AC = KC.pass().deviceContext();
    std::vector<DeviationSumLoop> Candidates = deviationSumLoops(
        KC, DeviationTerm::Square, Why,
        "no loop only adds squared deviations of elements from a "
        "value it does not change (v += (x[i] - mean) * (x[i] - "
        "mean))");
    if (Candidates.empty())
      return;
    ReReadLoops Found = findReReadLoops(K, AC, ReReadShapes::SameIterations);
    std::set<std::string> Names = namesUsedIn(K.Decl, AC);
    std::vector<DeviationFold> Folds;
    for (const DeviationSumLoop &B : Candidates) {
      const ReReadGroup *G = foldPartner(KC, Found, B, Why);
      if (!G)
        continue;
      if (!options().Reassociate) {
        KC.missed(lineCol(B.Loop->getBeginLoc(), AC),
                  std::string(Why) + "the squared deviations of '" +
                      sourceText(B.Element->getSourceRange(), AC) + "' from '" +
                      sourceText(B.Center->getSourceRange(), AC) +
                      "' would be computed from sums the loop at " +
                      str(lineCol(G->A->getBeginLoc(), AC)) +
                      " accumulates, which round differently "
                      "(reassociate=true allows it)");
        continue;
      }
      DeviationFold F;
      F.B = B;
      F.G = G;
      F.Type = deviationType(B, AC);
      F.Layout = foldLayout(G->A, B.Loop, AC);
      Sums N{freshName(Names, "kopt_var_k"), freshName(Names, "kopt_var_s"),
             freshName(Names, "kopt_var_q"), freshName(Names, "kopt_var_n"),
             freshName(Names, "kopt_var_d"), freshName(Names, "kopt_var_c")};
      writeTexts(F, N, AC);
      Folds.push_back(std::move(F));
    }
    if (Folds.empty() || !applyFolds(KC, Folds, Why))
      return;
    for (const DeviationFold &F : Folds)
      KC.applied(lineCol(F.B.Loop->getBeginLoc(), AC),
                 "the squared deviations of '" +
                     sourceText(F.B.Element->getSourceRange(), AC) +
                     "' from '" + sourceText(F.B.Center->getSourceRange(), AC) +
                     "' come from sums the loop at " +
                     str(lineCol(F.G->A->getBeginLoc(), AC)) +
                     " accumulates (shifted by each thread's first element): "
                     "the elements are read once instead of twice; results "
                     "may differ in rounding");
  }

  /// Before A, the shift (the element A reads first, when it runs) and the
  /// sums, zero; at the end of A's body, the shifted element into the
  /// sums; in B's place, the sum of squared deviations from the sums.
  static void writeTexts(DeviationFold &F, const Sums &N, ASTContext &AC) {
    std::string Zero = literalOf(F.Type, "0");
    const std::string &In = F.Layout.In, &Body = F.Layout.BodyIn,
                      &Step = F.Layout.Step, &BIn = F.Layout.BIn;
    F.Before = firstElementLines(F, N.K, Zero, AC) + In + F.Type + " " + N.S +
               " = " + Zero + ", " + N.Q + " = " + Zero + ";\n" + In +
               "unsigned long long " + N.N + " = 0;\n";
    F.Tail = Body + F.Type + " " + N.D + " = " + foldElement(F, AC) + " - " +
             N.K + ";\n" + Body + N.S + " += " + N.D + ";\n" + Body + N.Q +
             " += " + N.D + " * " + N.D + ";\n" + Body + "++" + N.N + ";\n";
    F.Closed = "if (" + N.N + " != 0) {\n" + BIn + Step + "const " + F.Type +
               " " + N.C + " = " + foldCenter(F, AC) + " - " + N.K + ";\n" +
               BIn + Step + F.B.Acc->getNameAsString() + " += " + N.Q + " - " +
               N.C + " * (" + literalOf(F.Type, "2") + " * " + N.S +
               " - static_cast<" + F.Type + ">(" + N.N + ") * " + N.C + ");\n" +
               BIn + "}";
  }
};

} // namespace

std::unique_ptr<Pass> createOnePassVariancePass() {
  return std::make_unique<OnePassVariancePass>();
}

} // namespace kopt
