//===- Searcher.h - Which candidates to expand next -------------*- C++ -*-===//
//
// A searcher decides, round after round, which evaluated candidates become
// parents and which of their children are evaluated (KTT's two-method
// searcher). Beam (default), exhaustive, random and model (a Gaussian
// process over the moves measured so far: MoveModel.h) ship; one file each.
//
//===----------------------------------------------------------------------===//
#ifndef KOPT_SEARCH_SEARCHER_H
#define KOPT_SEARCH_SEARCHER_H

#include "kopt/Search/Candidate.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace kopt::search {

struct SearchSpace;

struct SearcherOptions {
  int BeamWidth = 4;
  std::uint64_t Seed = 1;
  /// The passes' parameter space, which the model reads moves with; may
  /// be null (the model then judges no move and evaluates every child).
  const SearchSpace *Space = nullptr;
};

class Searcher {
public:
  virtual ~Searcher();
  virtual std::string name() const = 0;
  /// The parents of the next round, from the candidates evaluated ok that
  /// have not been expanded yet (\p Fresh) and all ok ones (\p All).
  virtual std::vector<const Candidate *>
  parents(const std::vector<const Candidate *> &Fresh,
          const std::vector<const Candidate *> &All) = 0;
  /// Which of \p Proposed, the children proposed for \p Parent, to
  /// evaluate, in order; \p History holds every candidate of the problem
  /// so far. Default: all of them, in the proposers' order.
  virtual std::vector<std::size_t>
  children(const Candidate &Parent, const std::vector<Candidate> &Proposed,
           const std::vector<Candidate> &History);
};

/// Candidates by measured speedup, best first; where two confidence
/// intervals overlap the shorter recipe goes first.
std::vector<const Candidate *> rankCandidates(std::vector<const Candidate *> C);

/// The \p Width best of \p Fresh by rankCandidates: the beam's parents.
std::vector<const Candidate *>
bestParents(const std::vector<const Candidate *> &Fresh, int Width);

/// The best candidate evaluated ok (highest speedup), or nullptr.
const Candidate *bestCandidate(const std::vector<Candidate> &All);
/// The best evaluated-ok candidate of each device model (deviceModel()).
std::map<std::string, const Candidate *>
bestPerDeviceModel(const std::vector<Candidate> &All);

std::unique_ptr<Searcher> createBeamSearcher(const SearcherOptions &O);
std::unique_ptr<Searcher> createExhaustiveSearcher(const SearcherOptions &O);
std::unique_ptr<Searcher> createRandomSearcher(const SearcherOptions &O);
std::unique_ptr<Searcher> createModelSearcher(const SearcherOptions &O);
/// "beam", "exhaustive", "random" or "model"; nullptr for another name.
std::unique_ptr<Searcher> createSearcher(const std::string &Name,
                                         const SearcherOptions &O);

} // namespace kopt::search

#endif // KOPT_SEARCH_SEARCHER_H
