//===- CombineMoves.h - Improving moves replayed on a parent ----*- C++ -*-===//
//
// A beam keeps the best child of a round and drops its siblings, so a
// change that improved on the parent but was not the best (a fold that
// saves a read, behind a block size that saved more) is lost unless the
// search tries it again on the winner. Combined moves do: each change that
// improved on one of the parent's ancestors (a sibling of the parent's
// lineage, its confidence interval above the ancestor's) is applied to the
// parent, the largest improvements first, and all of them together once
// (the greedy combination of compiler-flag tuning).
//
//===----------------------------------------------------------------------===//
#ifndef KOPT_SEARCH_COMBINEMOVES_H
#define KOPT_SEARCH_COMBINEMOVES_H

#include "kopt/Search/Proposer.h"
#include "kopt/Search/Recipe.h"
#include "kopt/Search/SearchSpace.h"

#include <optional>
#include <string>
#include <vector>

namespace kopt::search {

/// One move of the pass proposer, as an edit that can be replayed on
/// another recipe: a step appended, a step removed, or parameters of one
/// step set.
struct RecipeEdit {
  enum class Kind { Append, Remove, Set };
  Kind What = Kind::Append;
  /// Append: the new step; Remove: the step removed; Set: the step before
  /// the change (its pass names the step to change).
  RecipeStep Step;
  /// Set: (key, value before, value after), values as the registry writes
  /// them (a default spelled out).
  struct Change {
    std::string Key, Before, After;
  };
  std::vector<Change> Changes;
};

/// The edit that turns \p From into \p To, where it is one of the moves
/// above; nullopt otherwise (a swap, two changes, another start).
std::optional<RecipeEdit> recipeEdit(const Recipe &From, const Recipe &To,
                                     const SearchSpace &Space);

/// \p R with \p E replayed: an append unless R runs the pass already; a
/// removal of the one step equal to E's; parameters set on the one step of
/// E's pass whose values are still E's "before" (a step R changed itself is
/// left alone). nullopt where it does not apply.
std::optional<Recipe> applyEdit(const Recipe &R, const RecipeEdit &E,
                                const SearchSpace &Space);

/// The combined children of \p Context.Parent (above), at most \p Most of
/// them with one change each, then the one with all that apply.
std::vector<Proposal> combinedMoves(const ProposalContext &Context,
                                    const SearchSpace &Space,
                                    std::size_t Most = 4);

} // namespace kopt::search

#endif // KOPT_SEARCH_COMBINEMOVES_H
