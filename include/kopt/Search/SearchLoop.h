//===- SearchLoop.h - Propose, validate, evaluate, store, repeat -*- C++
//-*-===//
//
// One problem's search. The roots are the original source and the -O
// result, so the search never returns something slower than either. Each
// round the searcher picks parents among the candidates evaluated ok, the
// proposers turn them into children, and each child is made (kopt-opt),
// de-duplicated (same source, then same SASS as one seen before), validated
// (compile, static rules) and evaluated, its verdict stored at once. The
// store is the state: run again after a crash and the loop picks up where
// it stopped, evaluating nothing twice.
//
//===----------------------------------------------------------------------===//
#ifndef KOPT_SEARCH_SEARCHLOOP_H
#define KOPT_SEARCH_SEARCHLOOP_H

#include "kopt/Search/Candidate.h"
#include "kopt/Search/Searcher.h"
#include "kopt/Spec/Problem.h"

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kopt::search {

class Executor;
class KoptOpt;
class Proposer;
class Store;

struct Budgets {
  std::optional<long> Candidates; // evaluations of this executor
  std::optional<double> GpuSeconds;
  std::optional<double> WallSeconds; // this run's
};

/// What the progress line shows.
struct SearchStats {
  long Evaluated = 0, Made = 0, Duplicates = 0;
  std::map<std::string, long> Failures; // by status
  /// Children the proposers did not make, by reason (moves that cannot
  /// change the parent's source).
  std::map<std::string, long> Skipped;
  const Candidate *Best = nullptr;
  double ElapsedSeconds = 0, GpuSeconds = 0;
  /// Wall seconds of this run by phase: proposing (the proposers, with the
  /// kopt-opt probes and remarks they ask for), making (kopt-opt),
  /// compiling (validation: nvcc, static rules), evaluating (waiting for
  /// the device's verdicts), repairing (asking a proposer to fix a failed
  /// candidate); and ahead (making the next round's children while the
  /// device evaluates, inside evaluating's time).
  std::map<std::string, double> PhaseSeconds;
  /// Seconds with an evaluation running on the device.
  double GpuBusySeconds = 0;
  /// The fraction of this run's wall time with an evaluation running.
  double gpuBusy() const;
  /// Children made ahead into the memo, and candidates the memo supplied.
  long MadeAhead = 0, MemoHits = 0;
  /// Candidates made from their parent's output (only their new steps run).
  long MadeFromParent = 0;
  /// `kopt-opt --probe` runs, and probes the store answered instead.
  long ProbesRun = 0, ProbesStored = 0;
  std::string Phase; // "making 12 candidates", "evaluating #34", ...
};

struct SearchOptions {
  int Depth = 3;
  Budgets Limits;
  bool DryRun = false;
  std::string WorkDir; // candidate sources and remarks go here
  /// The make memo (Maker.h), which searches may share; empty: WorkDir/made,
  /// this run's alone.
  std::string MemoDir;
  std::function<bool()> Interrupted;
  std::function<void(const SearchStats &)> OnProgress;
  unsigned Jobs = 0; // kopt-opt processes side by side; 0: one per core
  /// Make the children a round may propose while the device evaluates.
  bool LookAhead = false;
  /// Make and compile the next candidates while the device evaluates a
  /// batch (false: one after the other; the same candidates either way).
  bool Overlap = true;
};

struct SearchResult {
  /// budget-candidates, budget-gpu-s, budget-wall-s, depth (every
  /// candidate within --depth was expanded), interrupted, dry-run,
  /// problem-error.
  std::string StoppedBy;
  std::vector<std::string> Errors; // the problem's or the store's faults
  std::int64_t ProblemId = 0;
  std::vector<Candidate> Candidates; // everything stored, by id
  SearchStats Stats;
};

SearchResult runSearch(const spec::Problem &P, Store &S, Executor &E,
                       const KoptOpt &Opt, Searcher &Strategy,
                       std::vector<Proposer *> Proposers,
                       const std::string &DefaultPipeline,
                       const SearchOptions &O);

} // namespace kopt::search

#endif // KOPT_SEARCH_SEARCHLOOP_H
