//===- E2m1Proof.cpp - Is a helper exactly float -> e2m1? -----------------===//
//
// The partition proof of E2m1Proof.h. Cells: each constant the helper
// compares with (and its negation for |x|), the open intervals between
// them, +0 and -0, +-inf and NaN by sign; the e2m1 midpoints join them so
// the reference is constant on each cell too. Comparisons met on the way
// add constants; the partition is refined until no new constant appears.
//
//===----------------------------------------------------------------------===//

#include "kopt/Analysis/E2m1Proof.h"
#include "E2m1Interpreter.h"

#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <set>

using namespace clang;
using namespace clang::ast_matchers;
using namespace llvm;

namespace kopt {

namespace {

/// Midpoints of the e2m1 grid {0, 0.5, 1, 1.5, 2, 3, 4, 6}: where round to
/// nearest changes its code.
constexpr double Midpoints[] = {0.25, 0.75, 1.25, 1.75, 2.5, 3.5, 5.0};

} // namespace

int e2m1Reference(float X) {
  if (std::isnan(X))
    return 0x7;
  static const double Grid[8] = {0, 0.5, 1, 1.5, 2, 3, 4, 6};
  int Sign = std::signbit(X) ? 0x8 : 0x0;
  double A = std::fabs(static_cast<double>(X));
  if (A >= 6)
    return Sign | 7;
  int Best = 0;
  double BestDist = std::numeric_limits<double>::infinity();
  for (int C = 0; C < 8; ++C) {
    double D = std::fabs(A - Grid[C]);
    if (D < BestDist || (D == BestDist && C % 2 == 0)) {
      BestDist = D;
      Best = C;
    }
  }
  return Sign | Best;
}

namespace {

/// Shortest decimal that reads back as V (as a float when V is one).
std::string formatNumber(double V) {
  bool IsFloat = static_cast<double>(static_cast<float>(V)) == V;
  for (int Digits = 1; Digits <= 17; ++Digits) {
    std::string S = formatv("{0}", format("%.*g", Digits, V)).str();
    double Back = std::strtod(S.c_str(), nullptr);
    if (IsFloat ? static_cast<float>(Back) == static_cast<float>(V) : Back == V)
      return S;
  }
  return formatv("{0}", format("%.17g", V)).str();
}

std::string formatCode(int64_t C) { return utohexstr(uint64_t(C), false); }

/// One float of each cell of the partition by Points (sorted): each point
/// that is a float, one float strictly between neighbours (where there is
/// one), +-0, +-inf and a NaN of each sign.
std::vector<float> cellRepresentatives(const std::set<double> &Points) {
  const float Inf = std::numeric_limits<float>::infinity();
  std::vector<float> Reps = {-0.0f, 0.0f, -Inf, Inf};
  std::vector<double> Sorted = {-double(Inf)};
  for (double P : Points)
    if (P != 0 && std::isfinite(P))
      Sorted.push_back(P);
  Sorted.push_back(0.0);
  Sorted.push_back(double(Inf));
  std::sort(Sorted.begin(), Sorted.end());
  Sorted.erase(std::unique(Sorted.begin(), Sorted.end()), Sorted.end());
  for (size_t I = 0; I < Sorted.size(); ++I) {
    double P = Sorted[I];
    if (P != 0 && std::isfinite(P) &&
        static_cast<double>(static_cast<float>(P)) == P)
      Reps.push_back(static_cast<float>(P));
    if (I + 1 == Sorted.size())
      break;
    // The smallest float above P.
    float F = static_cast<float>(P);
    while (static_cast<double>(F) <= P)
      F = std::nextafter(F, Inf);
    if (static_cast<double>(F) < Sorted[I + 1])
      Reps.push_back(F);
  }
  uint32_t NaNs[] = {0x7fc00000u, 0xffc00000u};
  for (uint32_t B : NaNs) {
    float F;
    std::memcpy(&F, &B, sizeof F);
    Reps.push_back(F);
  }
  return Reps;
}

} // namespace

E2m1Verdict proveE2m1Helper(const FunctionDecl *Helper, ASTContext &AC,
                            bool ExactNaN) {
  E2m1Verdict V;
  e2m1::Interpreter Interp(Helper, AC);
  std::set<double> HelperThresholds;
  std::map<uint32_t, int64_t> Codes; // by bit pattern of the representative
  std::vector<float> Reps;
  for (unsigned Round = 0;; ++Round) {
    std::set<double> Points = HelperThresholds;
    for (double M : Midpoints) {
      Points.insert(M);
      Points.insert(-M);
    }
    size_t Before = HelperThresholds.size();
    Reps = cellRepresentatives(Points);
    Codes.clear();
    for (float R : Reps) {
      std::optional<int64_t> C = Interp.run(R, HelperThresholds);
      if (!C) {
        V.Why = Interp.why();
        return V;
      }
      uint32_t B;
      std::memcpy(&B, &R, sizeof B);
      Codes[B] = *C;
    }
    if (HelperThresholds.size() == Before)
      break;
    if (Round == 8 || HelperThresholds.size() > 2000) {
      V.Why = "the constants it compares with do not settle";
      return V;
    }
  }
  V.Cells = Reps.size();

  // Compare in order of magnitude, so the first difference reported is the
  // one nearest zero.
  std::sort(Reps.begin(), Reps.end(), [](float A, float B) {
    bool NA = std::isnan(A), NB = std::isnan(B);
    if (NA != NB)
      return NB;
    if (std::fabs(A) != std::fabs(B))
      return std::fabs(A) < std::fabs(B);
    return !std::signbit(A) && std::signbit(B);
  });
  std::vector<double> Positive;
  for (double T : HelperThresholds)
    if (T > 0)
      Positive.push_back(T);
  for (float R : Reps) {
    uint32_t B;
    std::memcpy(&B, &R, sizeof B);
    int64_t Got = Codes[B];
    int Want = e2m1Reference(R);
    if (Got == Want)
      continue;
    if (std::isnan(R)) {
      if (!ExactNaN) {
        V.NaNDiffers = true;
        continue;
      }
      if (std::signbit(R) && Got == 0xF) {
        V.NegNaNKeepsSign = true;
        continue;
      }
      V.Why = formatv("a NaN{0} gives code 0x{1}, the intrinsic +6 (0x7)",
                      std::signbit(R) ? " with the sign bit set" : "",
                      formatCode(Got))
                  .str();
      return V;
    }
    if (R == 0 && std::signbit(R) && Got == 0x0) {
      V.NegZeroIsPositive = true;
      continue;
    }
    double A = std::fabs(static_cast<double>(R));
    // The midpoint nearest to R, and the helper's constant nearest to it.
    const double *NearMid = std::min_element(
        std::begin(Midpoints), std::end(Midpoints), [&](double X, double Y) {
          return std::fabs(X - A) < std::fabs(Y - A);
        });
    std::optional<double> Near;
    if (!Positive.empty())
      Near = *std::min_element(Positive.begin(), Positive.end(),
                               [&](double X, double Y) {
                                 return std::fabs(X - A) < std::fabs(Y - A);
                               });
    std::string Detail =
        formatv("{0} gives code 0x{1}, round-to-nearest-even 0x{2}",
                formatNumber(R), formatCode(Got), formatCode(Want))
            .str();
    bool HasMid = is_contained(Positive, *NearMid);
    if (std::isfinite(A) && !HasMid && Near &&
        std::fabs(*Near - *NearMid) < 1.0) {
      V.Why = formatv("its threshold {0} is not the midpoint {1} ({2})",
                      formatNumber(*Near), formatNumber(*NearMid), Detail)
                  .str();
      return V;
    }
    if (A == *NearMid && (Got & 0x8) == (Want & 0x8) && Got >= 0) {
      V.Why = formatv("the tie at {0}{1} goes to {2}code {3}, not to the even "
                      "code {4}",
                      std::signbit(R) ? "-" : "", formatNumber(A),
                      (Got & 1) ? "the odd " : "", Got & 7, Want & 7)
                  .str();
      return V;
    }
    if (Got >= 0 && Got <= 0xF && (Got & 0x8) != (Want & 0x8) &&
        (Got & 7) == (Want & 7)) {
      V.Why = formatv("{0} gives code 0x{1}: its sign bit differs from the "
                      "intrinsic's (0x{2})",
                      formatNumber(R), formatCode(Got), formatCode(Want))
                  .str();
      return V;
    }
    V.Why = Detail;
    return V;
  }
  return V;
}

bool isFloatToInteger(const FunctionDecl *FD) {
  return FD->getNumParams() == 1 && !FD->isVariadic() &&
         FD->getParamDecl(0)
             ->getType()
             .getCanonicalType()
             .getUnqualifiedType()
             ->isSpecificBuiltinType(BuiltinType::Float) &&
         FD->getReturnType()->isIntegerType() &&
         !FD->getReturnType()->isBooleanType();
}

std::optional<bool> hasE2m1Instruction(StringRef Arch) {
  if (!Arch.consume_front("sm_"))
    return std::nullopt;
  bool Specific = Arch.consume_back("a") || Arch.consume_back("f");
  unsigned N;
  if (Arch.getAsInteger(10, N))
    return std::nullopt;
  return Specific && N >= 100 && N < 130;
}

bool looksLikeE4m3(const FunctionDecl *FD) {
  std::string Name = StringRef(FD->getNameAsString()).lower();
  if (StringRef(Name).contains("e4m3") || StringRef(Name).contains("fp8"))
    return true;
  if (!FD->getBody())
    return false;
  for (const BoundNodes &N :
       match(findAll(stmt(
                 anyOf(floatLiteral().bind("f"), integerLiteral(equals(448))))),
             *FD->getBody(), FD->getASTContext())) {
    const auto *F = N.getNodeAs<FloatingLiteral>("f");
    if (!F || F->getValueAsApproximateDouble() == 448.0)
      return true;
  }
  return false;
}

} // namespace kopt
