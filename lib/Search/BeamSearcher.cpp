//===- BeamSearcher.cpp - Expand the W best, round after round ------------===//
//
// Each round expands the W best candidates measured so far that have not
// been expanded (ranked by rankCandidates: speedup, and the shorter recipe
// where intervals overlap). A round whose children are all slower than the
// beam leaves the next round the best of what is left.
//
//===----------------------------------------------------------------------===//
#include "kopt/Search/Searcher.h"

namespace kopt::search {

namespace {

class BeamSearcher : public Searcher {
public:
  explicit BeamSearcher(const SearcherOptions &O) : Width(O.BeamWidth) {}
  std::string name() const override { return "beam"; }

  std::vector<const Candidate *>
  parents(const std::vector<const Candidate *> &Fresh,
          const std::vector<const Candidate *> &) override {
    return bestParents(Fresh, Width);
  }

private:
  int Width;
};

} // namespace

std::unique_ptr<Searcher> createBeamSearcher(const SearcherOptions &O) {
  return std::make_unique<BeamSearcher>(O);
}

} // namespace kopt::search
