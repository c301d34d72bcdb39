//===- MoveModel.h - What a move of the pass proposer is worth --*- C++ -*-===//
//
// A Gaussian-process regression over the moves a search has measured (one
// step appended, removed or given other parameters: CombineMoves.h's
// RecipeEdit), predicting the gain of a move not yet tried, as the log of
// the child's speedup over its parent's. Moves are compared by what they
// change: the same pass, the same parameter, and for a numeric parameter how
// far apart the values are (in powers of two), so that a block size of 1024
// borrows from what 512 did (Kernel Tuner's Bayesian optimisation, over the
// moves of a lineage instead of a fixed grid).
//
//===----------------------------------------------------------------------===//
#ifndef KOPT_SEARCH_MOVEMODEL_H
#define KOPT_SEARCH_MOVEMODEL_H

#include "kopt/Search/CombineMoves.h"

#include <optional>
#include <string>
#include <vector>

namespace kopt::search {

/// What the model knows of a move.
struct MoveFeatures {
  std::string Pass;
  std::string Kind;  // "append", "remove" or "set"
  std::string Keys;  // set: the keys changed, comma-separated; else ""
  std::string Value; // set: the values after; append, remove: the step
  /// set: log2 of the new value when one numeric parameter changes to a
  /// positive number.
  std::optional<double> Log2Value;

  bool operator==(const MoveFeatures &O) const {
    return Pass == O.Pass && Kind == O.Kind && Keys == O.Keys &&
           Value == O.Value;
  }
};

MoveFeatures moveFeatures(const RecipeEdit &E);

/// The prior covariance of two moves' gains over the signal variance, in
/// [0, 1]: a sum of positive semi-definite terms (the same pass and kind of
/// move; also the same keys with nearby values; the same move). Moves of
/// different kinds (an append and a removal of one pass) share nothing.
double moveSimilarity(const MoveFeatures &A, const MoveFeatures &B);

class MoveModel {
public:
  struct Settings {
    /// Prior variance of a move's gain (0.3^2: a move may change the
    /// speed by about a third either way).
    double SignalVariance = 0.09;
    /// Variance of one move's gain from parent to parent (0.04^2).
    double NoiseVariance = 0.0016;
  };

  MoveModel() : MoveModel(Settings()) {}
  explicit MoveModel(Settings S) : Config(S) {}

  /// Adds a measured move; fit() must run before the next predict().
  void observe(const MoveFeatures &Move, double Gain);
  void fit();
  std::size_t observations() const { return Moves.size(); }

  struct Prediction {
    double Mean = 0, StdDev = 0;
  };
  Prediction predict(const MoveFeatures &Move) const;

private:
  Settings Config;
  std::vector<MoveFeatures> Moves;
  std::vector<double> Gains;
  std::vector<double> Chol;  // lower Cholesky factor of K + noise, row-major
  std::vector<double> Alpha; // (K + noise)^-1 gains
  bool Fitted = true;

  double prior(const MoveFeatures &A, const MoveFeatures &B) const {
    return Config.SignalVariance * moveSimilarity(A, B);
  }
  /// Solves L x = B in place (forward substitution).
  void forward(std::vector<double> &B) const;
};

} // namespace kopt::search

#endif // KOPT_SEARCH_MOVEMODEL_H
