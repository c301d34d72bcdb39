//===- Proposer.h - Parents in, children with recipes out -------*- C++ -*-===//
//
// A proposer looks at a parent candidate (its recipe and source, its
// evaluation record with ptxas's resource usage and the timings, and the
// passes' remarks on it) and proposes children, each with the recipe that
// makes it from the problem's source. The built-in one walks the pass
// registry's parameter space; an LLM proposer plugs in here.
//
//===----------------------------------------------------------------------===//
#ifndef KOPT_SEARCH_PROPOSER_H
#define KOPT_SEARCH_PROPOSER_H

#include "kopt/Search/Candidate.h"
#include "kopt/Search/SearchSpace.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace kopt::search {

struct ProposalContext {
  const Candidate &Parent;
  /// kopt-opt's remarks for the parent's recipe (JSON text; "" for none).
  std::function<std::string()> Remarks;
  /// kopt-opt --analyze on the parent's source (JSON text).
  std::function<std::string()> Analysis;
};

struct Proposal {
  std::string Recipe;
  std::string Why; // "append vectorize-loads{width=4}", ...
};

class Proposer {
public:
  virtual ~Proposer();
  virtual std::string name() const = 0;
  virtual std::vector<Proposal> propose(const ProposalContext &Context) = 0;
};

/// Children from the registry: each pass appended with its defaults and
/// with each search value of one parameter; each step of the parent's
/// recipe removed, or one of its parameters changed. Values that change
/// floating-point rounding only when \p AllowRounding (the problem's
/// tolerance admits them).
std::unique_ptr<Proposer> createPassProposer(SearchSpace Space,
                                             bool AllowRounding);

/// "passes" (and later "llm"); nullptr for an unknown name.
std::unique_ptr<Proposer> createProposer(const std::string &Name,
                                         const SearchSpace &Space,
                                         bool AllowRounding);

} // namespace kopt::search

#endif // KOPT_SEARCH_PROPOSER_H
