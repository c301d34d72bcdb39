//===- SearchSpace.h - Passes and the values a search tries -----*- C++ -*-===//
//
// The search space comes from the pass registry (passes/Passes.def), as
// kopt-opt prints it with --print-passes=json: each pass, each typed
// parameter with its default, its effect on rounding and the values a
// search tries, and the named pipelines (`default` is -O).
//
//===----------------------------------------------------------------------===//
#ifndef KOPT_SEARCH_SEARCHSPACE_H
#define KOPT_SEARCH_SEARCHSPACE_H

#include "kopt/Search/Recipe.h"

#include <optional>
#include <string>
#include <vector>

namespace kopt::search {

struct SpaceParam {
  std::string Key, Type, Default;
  bool ChangesRounding = false;
  std::vector<std::string> Values; // tried besides the default
};

struct SpacePass {
  std::string Name;
  std::vector<SpaceParam> Params;

  const SpaceParam *param(const std::string &Key) const;
  /// \p Step's value of \p Key: the one it sets, else the default ("" for
  /// a key the pass lacks).
  std::string value(const RecipeStep &Step, const std::string &Key) const;
  /// \p Base with \p Key set to \p Value, written canonically (registry
  /// order, defaults left out).
  RecipeStep withParam(const RecipeStep &Base, const std::string &Key,
                       const std::string &Value) const;
};

struct SearchSpace {
  std::vector<SpacePass> Passes;
  std::string DefaultPipeline; // what -O runs

  const SpacePass *pass(const std::string &Name) const;
};

/// Parses kopt-opt's --print-passes=json; nullopt with \p Error set when the
/// text is not that document.
std::optional<SearchSpace> parseSearchSpace(const std::string &Json,
                                            std::string &Error);

} // namespace kopt::search

#endif // KOPT_SEARCH_SEARCHSPACE_H
