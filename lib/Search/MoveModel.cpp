//===- MoveModel.cpp - Gaussian-process regression over moves -------------===//
#include "kopt/Search/MoveModel.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace kopt::search {

namespace {

/// log2 of \p Text when it is a positive number ("512", "0.5").
std::optional<double> log2Of(const std::string &Text) {
  if (Text.empty())
    return std::nullopt;
  char *End = nullptr;
  double V = std::strtod(Text.c_str(), &End);
  if (*End != '\0' || !(V > 0) || !std::isfinite(V))
    return std::nullopt;
  return std::log2(V);
}

// The weights of the three terms of moveSimilarity (the same pass and kind
// of move; the same parameters, nearby values; the same move): they add up
// to 1.
constexpr double SamePass = 0.25, SameParameter = 0.45, SameMove = 0.30;

} // namespace

MoveFeatures moveFeatures(const RecipeEdit &E) {
  MoveFeatures F;
  F.Pass = E.Step.Pass;
  switch (E.What) {
  case RecipeEdit::Kind::Append:
    F.Kind = "append";
    F.Value = E.Step.str();
    break;
  case RecipeEdit::Kind::Remove:
    F.Kind = "remove";
    F.Value = E.Step.str();
    break;
  case RecipeEdit::Kind::Set:
    F.Kind = "set";
    for (const RecipeEdit::Change &C : E.Changes) {
      F.Keys += (F.Keys.empty() ? "" : ",") + C.Key;
      F.Value += (F.Value.empty() ? "" : ",") + C.After;
    }
    if (E.Changes.size() == 1)
      F.Log2Value = log2Of(E.Changes.front().After);
    break;
  }
  return F;
}

double moveSimilarity(const MoveFeatures &A, const MoveFeatures &B) {
  // Moves of different kinds share nothing: removing a pass that gained
  // when it was appended is expected to lose, not to gain.
  if (A.Pass != B.Pass || A.Kind != B.Kind)
    return 0;
  double S = SamePass;
  if (A.Keys == B.Keys) {
    // Numeric values: a squared-exponential kernel in powers of two (a
    // factor of two apart: 0.61); other values: equal or not. A numeric
    // and a non-numeric value share nothing, which keeps the sum positive
    // semi-definite (two blocks of a block-diagonal kernel).
    double Near = 0;
    if (A.Log2Value && B.Log2Value) {
      double D = *A.Log2Value - *B.Log2Value;
      Near = std::exp(-0.5 * D * D);
    } else if (!A.Log2Value && !B.Log2Value) {
      Near = A.Value == B.Value;
    }
    S += SameParameter * Near;
  }
  if (A == B)
    S += SameMove;
  return S;
}

void MoveModel::observe(const MoveFeatures &Move, double Gain) {
  Moves.push_back(Move);
  Gains.push_back(Gain);
  Fitted = false;
}

void MoveModel::fit() {
  std::size_t N = Moves.size();
  Chol.assign(N * N, 0.0);
  // Cholesky of K + noise (K is positive semi-definite, the noise makes
  // it definite); a tiny jitter guards against rounding.
  for (std::size_t I = 0; I < N; ++I)
    for (std::size_t J = 0; J <= I; ++J) {
      double Sum = prior(Moves[I], Moves[J]);
      if (I == J)
        Sum += Config.NoiseVariance + 1e-9;
      for (std::size_t K = 0; K < J; ++K)
        Sum -= Chol[I * N + K] * Chol[J * N + K];
      Chol[I * N + J] =
          I == J ? std::sqrt(std::max(Sum, 1e-12)) : Sum / Chol[J * N + J];
    }
  Alpha = Gains;
  forward(Alpha);
  for (std::size_t I = N; I-- > 0;) { // back substitution with L^T
    for (std::size_t K = I + 1; K < N; ++K)
      Alpha[I] -= Chol[K * N + I] * Alpha[K];
    Alpha[I] /= Chol[I * N + I];
  }
  Fitted = true;
}

void MoveModel::forward(std::vector<double> &B) const {
  std::size_t N = Moves.size();
  for (std::size_t I = 0; I < N; ++I) {
    for (std::size_t K = 0; K < I; ++K)
      B[I] -= Chol[I * N + K] * B[K];
    B[I] /= Chol[I * N + I];
  }
}

MoveModel::Prediction MoveModel::predict(const MoveFeatures &Move) const {
  if (!Fitted) // a caller's mistake: answer the prior, not stale numbers
    return {0, std::sqrt(prior(Move, Move))};
  std::vector<double> Cross(Moves.size());
  for (std::size_t I = 0; I < Moves.size(); ++I)
    Cross[I] = prior(Moves[I], Move);
  Prediction P;
  for (std::size_t I = 0; I < Moves.size(); ++I)
    P.Mean += Cross[I] * Alpha[I];
  forward(Cross); // v = L^-1 k; variance = k(x, x) - v.v
  double Var = prior(Move, Move);
  for (double V : Cross)
    Var -= V * V;
  P.StdDev = std::sqrt(std::max(Var, 0.0));
  return P;
}

} // namespace kopt::search
