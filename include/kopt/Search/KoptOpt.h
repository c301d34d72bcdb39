//===- KoptOpt.h - The passes, through the kopt-opt program -----*- C++ -*-===//
//
// The search reaches the passes through kopt-opt, with a recipe as the whole
// interface (docs/architecture.md): what a search finds, `kopt-opt
// -passes=RECIPE` makes again, byte for byte, without kopt-search; and the
// search runs on a GPU host that carries a static kopt-opt but has no LLVM.
//
//===----------------------------------------------------------------------===//
#ifndef KOPT_SEARCH_KOPTOPT_H
#define KOPT_SEARCH_KOPTOPT_H

#include <string>
#include <vector>

namespace kopt::search {

struct MadeCandidate {
  bool Ok = false;
  std::string Error; // kopt-opt's message when it failed
  bool Resumed = false; // made from a parent's output (MakeJob)
};

/// One candidate to make: kopt-opt's input, pipeline, output and remarks.
/// With ResumeSteps, the output and remarks of the pipeline's first
/// ResumeSteps steps on Source are in ResumeCode and ResumeRemarks (a
/// parent's): kopt-opt runs only the steps after them, with the same result
/// (kopt-opt's Batch.h).
struct MakeJob {
  std::string Source, Recipe, Out, Remarks;
  std::size_t ResumeSteps = 0;
  std::string ResumeCode, ResumeRemarks;
};

class KoptOpt {
public:
  explicit KoptOpt(std::string Program) : Program(std::move(Program)) {}

  const std::string &program() const { return Program; }
  /// --print-passes=json; empty with \p Error set on failure.
  std::string searchSpace(std::string &Error) const;
  /// `kopt-opt SOURCE -passes=RECIPE -o OUT --remarks=REMARKS`.
  MadeCandidate make(const std::string &Source, const std::string &Recipe,
                     const std::string &Out, const std::string &Remarks) const;
  /// The same for each of \p Jobs, in one `kopt-opt --batch` process (the
  /// CUDA headers parsed once for jobs on one source; its job list is
  /// written to \p BatchFile). A job the batch left without an answer (the
  /// process crashed on it), or a resumed job that failed, is made alone
  /// and whole, so its own error is reported.
  /// \p Background runs the batch at the lowest priority (`nice -n 19`,
  /// where there is one): work done ahead must not slow what a device
  /// measures, nor the search's own making.
  std::vector<MadeCandidate> makeAll(const std::vector<MakeJob> &Jobs,
                                     const std::string &BatchFile,
                                     bool Background = false) const;
  /// Whether Clang parses \p Source as kopt-opt does (`--analyze`), with
  /// kopt-opt's diagnostics when it does not.
  MadeCandidate parse(const std::string &Source) const;
  /// `kopt-opt --analyze SOURCE`; empty on failure.
  std::string analyze(const std::string &Source) const;
  /// `kopt-opt SOURCE --probe -passes=STEPS --remarks=REMARKS`: what each
  /// step would do to SOURCE alone; the remarks JSON, or empty on failure.
  std::string probe(const std::string &Source, const std::string &Steps,
                    const std::string &Remarks) const;
  /// Which kopt-opt this is, for results kept across runs: its path, size
  /// and modification time (a rebuilt kopt-opt is another tool).
  std::string identity() const;

private:
  std::string Program;
};

} // namespace kopt::search

#endif // KOPT_SEARCH_KOPTOPT_H
