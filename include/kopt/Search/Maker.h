//===- Maker.h - Candidates made by kopt-opt, side by side, once -*- C++
//-*-===//
//
// Making a candidate is running kopt-opt on a source with a recipe; its
// output and remarks are a function of (the kopt-opt program, the nvcc its
// resource checks run, the environment, the source's text, the recipe). A
// Maker runs the jobs of a round in one `kopt-opt --batch` process a
// worker, side by side, and remembers each output in a memo directory
// under that key: a job made before (earlier in the search, by an earlier
// search of the same problem, before a resume, or ahead of time while a
// device evaluated: prepare()) is a copy of the same bytes instead of
// another kopt-opt run. Searches may share the memo (kopt-search keeps it
// in the cache directory): entries are renamed into place whole, and
// prune() removes those used longest ago. Only the files a job names are
// written; what kopt-search stores does not depend on what the memo held.
//
//===----------------------------------------------------------------------===//
#ifndef KOPT_SEARCH_MAKER_H
#define KOPT_SEARCH_MAKER_H

#include "kopt/Search/KoptOpt.h"

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

namespace kopt::search {

class Maker {
public:
  /// \p Workers kopt-opt processes side by side (0: one a core); the memo
  /// lives in \p MemoDir, what prepare() makes goes to \p ScratchDir first
  /// (both created when needed).
  Maker(const KoptOpt &Opt, std::string MemoDir, std::string ScratchDir,
        unsigned Workers);

  /// Makes each job (its Out and Remarks written), from the memo where it
  /// holds the job; \p BatchBase names the batch files (".N.jsonl").
  std::vector<MadeCandidate> makeAll(const std::vector<MakeJob> &Jobs,
                                     const std::string &BatchBase);

  /// Makes into the memo, at the lowest priority, the jobs it does not
  /// hold yet (their Out and Remarks are not written); how many it made.
  std::size_t prepare(const std::vector<MakeJob> &Jobs);
  /// Processes prepare() runs side by side.
  unsigned workers() const { return Workers; }

  /// Jobs makeAll copied from the memo.
  long memoHits() const { return Hits; }

  /// Removes the entries used longest ago until the memo holds at most
  /// \p MaxBytes; the bytes removed.
  std::uintmax_t prune(std::uintmax_t MaxBytes) const;
  /// 512 MiB, or $KOPT_MAKE_MEMO_MAX_MB.
  static std::uintmax_t defaultMaxBytes();

private:
  /// The memo's name for J's output: the hash of the program, nvcc, the
  /// environment, the recipe and the source text; "" if the source cannot
  /// be read.
  std::string key(const MakeJob &J) const;
  /// Whether the memo holds an output under Key (its remarks and source).
  bool held(const std::string &Key) const;
  bool copyOut(const std::string &Key, const MakeJob &J) const;
  void remember(const std::string &Key, const MakeJob &J) const;
  /// Runs Jobs in Workers batch processes; results in job order.
  std::vector<MadeCandidate> run(const std::vector<MakeJob> &Jobs,
                                 const std::string &BatchBase,
                                 bool Background) const;

  const KoptOpt &Opt;
  std::string MemoDir, ScratchDir, ProgramId;
  unsigned Workers;
  std::atomic<long> Hits{0};
};

} // namespace kopt::search

#endif // KOPT_SEARCH_MAKER_H
