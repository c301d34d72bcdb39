//===- ExhaustiveSearcher.cpp - Expand everything, level by level ---------===//
//
// For small spaces: every candidate evaluated ok is expanded, and every
// child is evaluated, until --depth or a budget stops the search.
//
//===----------------------------------------------------------------------===//
#include "kopt/Search/Searcher.h"

namespace kopt::search {

namespace {

class ExhaustiveSearcher : public Searcher {
public:
  std::string name() const override { return "exhaustive"; }
  std::vector<const Candidate *>
  parents(const std::vector<const Candidate *> &Fresh,
          const std::vector<const Candidate *> &) override {
    return Fresh;
  }
};

} // namespace

std::unique_ptr<Searcher> createExhaustiveSearcher(const SearcherOptions &) {
  return std::make_unique<ExhaustiveSearcher>();
}

} // namespace kopt::search
