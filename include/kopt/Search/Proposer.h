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
#include "kopt/Spec/Problem.h"

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace kopt::search {

struct ProposalContext {
  const Candidate &Parent;
  const spec::Problem &Problem;
  std::int64_t ProblemId;
  /// Every candidate of the problem so far, by id (what failed and why).
  const std::vector<Candidate> &History;
  /// kopt-opt's remarks for the parent's recipe (JSON text; "" for none).
  std::function<std::string()> Remarks;
  /// kopt-opt --analyze on the parent's source (JSON text).
  std::function<std::string()> Analysis;
  /// Nsight Compute metrics of the parent (Executor::profile; "" without
  /// a GPU). Costs one more run: ask only when they are used.
  std::function<std::string()> Profile = [] { return std::string(); };
  /// kopt-opt's remarks of each step of \p Steps (a pipeline) run alone on
  /// the parent's source (`kopt-opt --probe`; each remark's "step" says
  /// which); "" when it cannot be asked.
  std::function<std::string(const std::string &Steps)> Probe;
  /// Where a proposer counts the children it did not make, by reason
  /// ("remove: the step applied nothing"); may be null.
  std::map<std::string, long> *Skipped = nullptr;
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
  /// Another try at \p Context.Parent, which this proposer made and which
  /// did not compile (its Reason holds the compiler's message); \p Round
  /// counts from 1. Default: none.
  virtual std::vector<Proposal> repair(const ProposalContext &Context,
                                       int Round);
};

/// Children from the registry: each pass appended with its defaults and
/// with each search value of one parameter; each step of the parent's
/// recipe removed, or one of its parameters changed; neighbouring steps
/// swapped. Values that change floating-point rounding only when
/// \p AllowRounding (the problem's tolerance admits them). The parent's
/// remarks prune and order the moves (RemarkHints.h): parameter values its
/// missed remarks name come first; a step that applied nothing is neither
/// removed nor changed otherwise, and two such steps are not swapped.
/// Before all these, the moves that improved on an ancestor of the parent,
/// replayed on it (CombineMoves.h).
std::unique_ptr<Proposer> createPassProposer(SearchSpace Space,
                                             bool AllowRounding);

/// "passes"; nullptr for another name (the LLM proposer needs more than
/// this: createLLMProposer in LLMProposer.h).
std::unique_ptr<Proposer> createProposer(const std::string &Name,
                                         const SearchSpace &Space,
                                         bool AllowRounding);

} // namespace kopt::search

#endif // KOPT_SEARCH_PROPOSER_H
