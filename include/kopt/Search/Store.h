//===- Store.h - The SQLite store of a search -------------------*- C++ -*-===//
//
// Everything a search saw: problems, candidates with their recipes, sources,
// statuses and reasons, and evaluations with their timings and the record
// kopt-bench wrote. It is the only state that survives a crash: a search
// that is killed and run again reads it back and evaluates nothing twice.
// WAL mode; each change is one transaction. Schema: docs/search.md.
//
//===----------------------------------------------------------------------===//
#ifndef KOPT_SEARCH_STORE_H
#define KOPT_SEARCH_STORE_H

#include "kopt/Search/Candidate.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

struct sqlite3;

namespace kopt::search {

/// One request to an LLM and what came of it, as recorded (never a key).
struct LLMExchangeRow {
  std::int64_t Id = 0, ProblemId = 0;
  std::int64_t Seq = 0;      // 1, 2, ... within the problem: "llm#Seq"
  std::int64_t ParentId = 0; // the candidate it was shown
  std::string Kind;          // "propose" or "fix"
  std::string Provider, Model, Url, Request;
  long HttpStatus = 0;
  std::string Reply; // the last attempt's body
  int Attempts = 0;
  std::string Text; // the assistant's text
  std::uint64_t InputTokens = 0, OutputTokens = 0;
  std::string StopReason;
  std::string Error;  // why there is no candidate source ("" when there is)
  std::string Source; // the candidate source the reply gave
  bool Replayed = false;
};

/// What worked on one problem, for the prompts of others.
struct Lesson {
  std::string Problem;
  std::string Executor; // whose measurement: "gpu", "simulate:cost", ...
  std::string Features; // space-separated kernel features (Lessons.h)
  std::string Recipe, What;
  double Speedup = 0;
};

class Store {
public:
  /// Opens (creating when \p Create) the store at \p Path; nullptr with
  /// \p Error set for a file that is not a kopt-search store, a corrupt one
  /// or one that cannot be opened.
  static std::unique_ptr<Store> open(const std::string &Path, bool Create,
                                     std::string &Error);
  ~Store();

  /// The problem's id, added when new. Keyed by spec path and source hash:
  /// a changed source is another problem.
  std::optional<std::int64_t> problem(const std::string &Name,
                                      const std::string &SpecPath,
                                      const std::string &SourceSha256);
  struct ProblemRow {
    std::int64_t Id;
    std::string Name, SpecPath, SourceSha256;
  };
  std::vector<ProblemRow> problems();

  /// Every candidate of a problem with its evaluation by \p Executor (all
  /// executors when empty), by id.
  std::vector<Candidate> candidates(std::int64_t Problem,
                                    const std::string &Executor = "");
  /// Adds a proposed candidate; its id, or the id of the one with this
  /// recipe already.
  std::optional<std::int64_t> addCandidate(std::int64_t Problem,
                                           const Candidate &C);
  /// Saves what was learnt before the GPU: status, reason, source, hashes.
  bool updateCandidate(const Candidate &C);
  /// Records that \p CandidateId's children were proposed.
  bool markExpanded(std::int64_t CandidateId);
  /// Saves an evaluation and the candidate's resulting status, atomically.
  bool addEvaluation(std::int64_t CandidateId, const Evaluation &E);

  /// Records an exchange under the problem's next sequence number, which
  /// it returns (and sets in \p E).
  std::optional<std::int64_t> addExchange(LLMExchangeRow &E);
  /// The problem's exchanges by sequence number.
  std::vector<LLMExchangeRow> exchanges(std::int64_t Problem);
  std::optional<LLMExchangeRow> exchange(std::int64_t Problem,
                                         std::int64_t Seq);
  /// Adds or (same problem, executor and recipe) updates a lesson.
  bool addLesson(const Lesson &L);
  /// The lessons measured by \p Executor.
  std::vector<Lesson> lessons(const std::string &Executor);

  /// What `kopt-opt --probe` said of \p Steps on the source with hash
  /// \p SourceSha256, when \p Tool (KoptOpt::identity) said it before:
  /// the probes a resumed search would ask again are read back.
  std::optional<std::string> probe(const std::string &SourceSha256,
                                   const std::string &Steps,
                                   const std::string &Tool);
  bool addProbe(const std::string &SourceSha256, const std::string &Steps,
                const std::string &Tool, const std::string &Remarks);

  const std::string &lastError() const { return LastError; }

private:
  explicit Store(sqlite3 *Db) : Db(Db) {}
  bool exec(const std::string &Sql);
  sqlite3 *Db;
  std::string LastError;
};

} // namespace kopt::search

#endif // KOPT_SEARCH_STORE_H
