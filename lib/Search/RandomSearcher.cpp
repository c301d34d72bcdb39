//===- RandomSearcher.cpp - Random parents, random children ---------------===//
//
// A baseline strategy: each round expands W candidates drawn at random from
// those not yet expanded and evaluates W children drawn at random from what
// they propose. Seeded (--seed), so a run can be repeated.
//
//===----------------------------------------------------------------------===//
#include "kopt/Search/Searcher.h"

#include <algorithm>
#include <numeric>
#include <random>

namespace kopt::search {

namespace {

class RandomSearcher : public Searcher {
public:
  explicit RandomSearcher(const SearcherOptions &O)
      : Width(O.BeamWidth), Engine(O.Seed) {}
  std::string name() const override { return "random"; }

  std::vector<const Candidate *>
  parents(const std::vector<const Candidate *> &Fresh,
          const std::vector<const Candidate *> &) override {
    std::vector<const Candidate *> Out = Fresh;
    shuffle(Out);
    if (Out.size() > static_cast<std::size_t>(Width))
      Out.resize(Width);
    return Out;
  }

  std::vector<std::size_t> children(const Candidate &,
                                    const std::vector<Candidate> &Proposed,
                                    const std::vector<Candidate> &) override {
    std::vector<std::size_t> Out(Proposed.size());
    std::iota(Out.begin(), Out.end(), 0);
    shuffle(Out);
    if (Out.size() > static_cast<std::size_t>(Width))
      Out.resize(Width);
    return Out;
  }

private:
  int Width;
  std::mt19937_64 Engine;

  /// Fisher-Yates with our own draws: std::shuffle's sequence differs
  /// between standard libraries, and a seed must repeat a run anywhere.
  template <typename T> void shuffle(std::vector<T> &V) {
    for (std::size_t I = V.size(); I > 1; --I)
      std::swap(V[I - 1], V[Engine() % I]);
  }
};

} // namespace

std::unique_ptr<Searcher> createRandomSearcher(const SearcherOptions &O) {
  return std::make_unique<RandomSearcher>(O);
}

} // namespace kopt::search
