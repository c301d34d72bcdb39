//===- RemarkHints.h - What remarks say about a parent's moves -*- C++ -*-===//
//
// kopt-opt's remarks on a candidate say, pass by pass, what each step of its
// recipe applied and why it missed the rest. The pass proposer reads them
// to make only children that can differ from their parent: a step that
// applied nothing is not removed (the child would be the parent) and its
// parameters are not changed, except those its missed remarks name
// ("... (reassociate=true allows it)"), which come first.
//
//===----------------------------------------------------------------------===//
#ifndef KOPT_SEARCH_REMARKHINTS_H
#define KOPT_SEARCH_REMARKHINTS_H

#include "kopt/Search/SearchSpace.h"

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace kopt::search {

struct PassOutcome {
  long Applied = 0, Missed = 0;
  /// Parameter values the pass's missed remarks name (`key=value` with key
  /// one of the pass's parameters), in the order first met.
  std::vector<std::pair<std::string, std::string>> Suggested;
};

/// The remarks of kopt-opt's --remarks JSON by pass; empty when the text is
/// not that document.
std::map<std::string, PassOutcome> passOutcomes(const std::string &RemarksJson,
                                                const SearchSpace &Space);

/// Counts each step's applied remarks (the remarks' "step") into Applied,
/// sized to the steps; false when the text is not a remarks document.
bool stepOutcomes(const std::string &RemarksJson, std::vector<long> &Applied);

/// For each step of Steps, the parameter values its missed remarks name
/// (as PassOutcome::Suggested), from the remarks' "step"; empty lists when
/// the text is not a remarks document.
std::vector<std::vector<std::pair<std::string, std::string>>>
stepSuggestions(const std::string &RemarksJson, const SearchSpace &Space,
                const std::vector<std::string> &StepPasses);

} // namespace kopt::search

#endif // KOPT_SEARCH_REMARKHINTS_H
