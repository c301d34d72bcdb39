//===- Store.cpp - The SQLite store of a search ---------------------------===//
//
// Plain SQLite (Debian's libsqlite3) through a small statement wrapper.
// WAL journal and synchronous=NORMAL: a SIGKILL at any moment leaves the
// last committed transaction readable; a transaction is one candidate's
// change or one evaluation with its candidate's new status.
//
//===----------------------------------------------------------------------===//
#include "kopt/Search/Store.h"
#include "StoreStatement.h"

#include <sqlite3.h>

namespace kopt::search {

namespace {

/// 2 added llm_exchanges and lessons, 3 probes; an older store gains the
/// tables when opened (nothing else changed).
constexpr int SchemaVersion = 3;

const char *Schema = R"sql(
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS problems(
  id INTEGER PRIMARY KEY, name TEXT NOT NULL, spec_path TEXT NOT NULL,
  source_sha256 TEXT NOT NULL, UNIQUE(spec_path, source_sha256));
CREATE TABLE IF NOT EXISTS candidates(
  id INTEGER PRIMARY KEY, problem_id INTEGER NOT NULL REFERENCES problems(id),
  recipe TEXT NOT NULL, parent_id INTEGER, depth INTEGER NOT NULL,
  proposer TEXT NOT NULL, status TEXT NOT NULL, reason TEXT NOT NULL,
  source TEXT, source_sha256 TEXT, sass_sha256 TEXT, duplicate_of INTEGER,
  expanded INTEGER NOT NULL DEFAULT 0, created_at TEXT NOT NULL, UNIQUE(problem_id, recipe));
CREATE TABLE IF NOT EXISTS evaluations(
  candidate_id INTEGER NOT NULL REFERENCES candidates(id),
  executor TEXT NOT NULL, status TEXT NOT NULL, speedup REAL,
  speedup_low REAL, speedup_high REAL, median_ms REAL,
  baseline_median_ms REAL, achieved_gbps REAL,
  fraction_of_copy_bandwidth REAL, gpu_seconds REAL NOT NULL, device TEXT,
  driver TEXT, clocks TEXT, kopt_version TEXT, record TEXT NOT NULL,
  evaluated_at TEXT NOT NULL, PRIMARY KEY(candidate_id, executor));
CREATE TABLE IF NOT EXISTS llm_exchanges(
  id INTEGER PRIMARY KEY, problem_id INTEGER NOT NULL REFERENCES problems(id),
  seq INTEGER NOT NULL, parent_id INTEGER, kind TEXT NOT NULL,
  provider TEXT NOT NULL, model TEXT NOT NULL, url TEXT NOT NULL,
  request TEXT NOT NULL, http_status INTEGER NOT NULL, reply TEXT NOT NULL,
  attempts INTEGER NOT NULL, text TEXT NOT NULL, input_tokens INTEGER NOT NULL,
  output_tokens INTEGER NOT NULL, stop_reason TEXT NOT NULL,
  error TEXT NOT NULL, source TEXT NOT NULL, replayed INTEGER NOT NULL,
  created_at TEXT NOT NULL, UNIQUE(problem_id, seq));
CREATE TABLE IF NOT EXISTS lessons(
  id INTEGER PRIMARY KEY, problem TEXT NOT NULL, executor TEXT NOT NULL,
  features TEXT NOT NULL, recipe TEXT NOT NULL, what TEXT NOT NULL,
  speedup REAL NOT NULL, created_at TEXT NOT NULL,
  UNIQUE(problem, executor, recipe));
CREATE TABLE IF NOT EXISTS probes(
  source_sha256 TEXT NOT NULL, steps TEXT NOT NULL, tool TEXT NOT NULL,
  remarks TEXT NOT NULL, created_at TEXT NOT NULL,
  PRIMARY KEY(source_sha256, steps, tool));
)sql";

} // namespace

using detail::now;
using detail::Statement;

bool Store::exec(const std::string &Sql) {
  char *Message = nullptr;
  if (sqlite3_exec(Db, Sql.c_str(), nullptr, nullptr, &Message) == SQLITE_OK)
    return true;
  LastError = Message ? Message : sqlite3_errmsg(Db);
  sqlite3_free(Message);
  return false;
}

std::unique_ptr<Store> Store::open(const std::string &Path, bool Create,
                                   std::string &Error) {
  sqlite3 *Db = nullptr;
  int Flags = SQLITE_OPEN_READWRITE | (Create ? SQLITE_OPEN_CREATE : 0);
  if (sqlite3_open_v2(Path.c_str(), &Db, Flags, nullptr) != SQLITE_OK) {
    Error = "cannot open the store " + Path + ": " +
            (Db ? sqlite3_errmsg(Db) : "out of memory");
    sqlite3_close(Db);
    return nullptr;
  }
  sqlite3_busy_timeout(Db, 10000);
  std::unique_ptr<Store> S(new Store(Db));
  // A file that is not SQLite fails here ("file is not a database").
  Statement Tables(Db, "SELECT name FROM sqlite_master WHERE type='table'");
  bool HasMeta = false, HasOthers = false;
  int Rc;
  while (Tables.ok() && (Rc = Tables.step()) == SQLITE_ROW)
    (Tables.text(0) == "meta" ? HasMeta : HasOthers) = true;
  if (!Tables.ok() || Rc != SQLITE_DONE) {
    Error = Path + " is not a readable SQLite database: " + sqlite3_errmsg(Db);
    return nullptr;
  }
  if (!HasMeta && HasOthers) {
    Error = Path + " is an SQLite database of something else, not a "
                   "kopt-search store (it has no 'meta' table); nothing was "
                   "changed";
    return nullptr;
  }
  if (HasMeta) {
    Statement Meta(Db, "SELECT value FROM meta WHERE key='format'");
    if (!Meta.ok() || Meta.step() != SQLITE_ROW ||
        Meta.text(0) != "kopt-search") {
      Error = Path + " is not a kopt-search store; nothing was changed";
      return nullptr;
    }
    Statement Version(Db, "SELECT value FROM meta WHERE key='schema_version'");
    std::string Seen = Version.ok() && Version.step() == SQLITE_ROW
                           ? Version.text(0)
                           : std::string();
    bool Known = false;
    for (int V = 1; V <= SchemaVersion; ++V)
      Known |= Seen == std::to_string(V);
    if (!Known) {
      Error = Path + " has schema version '" +
              (Seen.empty() ? std::string("?") : Seen) +
              "'; this kopt-search reads versions 1 to " +
              std::to_string(SchemaVersion);
      return nullptr;
    }
  }
  if (!S->exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;") ||
      !S->exec(std::string("BEGIN;") + Schema +
               "INSERT OR IGNORE INTO meta VALUES('format','kopt-search');"
               "INSERT OR IGNORE INTO meta VALUES('schema_version','" +
               std::to_string(SchemaVersion) + "'); UPDATE meta SET value='" +
               std::to_string(SchemaVersion) +
               "' WHERE key='schema_version'; COMMIT;")) {
    Error = "cannot initialize the store " + Path + ": " + S->LastError;
    return nullptr;
  }
  return S;
}

Store::~Store() { sqlite3_close(Db); }

std::optional<std::int64_t> Store::problem(const std::string &Name,
                                           const std::string &SpecPath,
                                           const std::string &SourceSha256) {
  Statement Insert(Db, "INSERT OR IGNORE INTO problems(name, spec_path, "
                       "source_sha256) VALUES(?,?,?)");
  Insert.bind(Name).bind(SpecPath).bind(SourceSha256);
  Statement Find(Db, "SELECT id FROM problems WHERE spec_path=? AND "
                     "source_sha256=?");
  Find.bind(SpecPath).bind(SourceSha256);
  if (Insert.step() != SQLITE_DONE || Find.step() != SQLITE_ROW) {
    LastError = sqlite3_errmsg(Db);
    return std::nullopt;
  }
  return Find.integer(0);
}

std::vector<Store::ProblemRow> Store::problems() {
  std::vector<ProblemRow> Rows;
  Statement Q(Db, "SELECT id, name, spec_path, source_sha256 FROM problems "
                  "ORDER BY id");
  while (Q.step() == SQLITE_ROW)
    Rows.push_back({Q.integer(0), Q.text(1), Q.text(2), Q.text(3)});
  return Rows;
}

std::vector<Candidate> Store::candidates(std::int64_t Problem,
                                         const std::string &Executor) {
  std::vector<Candidate> Out;
  Statement Q(Db,
              "SELECT c.id, c.parent_id, c.depth, c.proposer, c.recipe, "
              "c.status, c.reason, c.source, c.source_sha256, c.sass_sha256, "
              "c.duplicate_of, c.expanded, e.executor, e.status, e.speedup, "
              "e.speedup_low, e.speedup_high, e.median_ms, "
              "e.baseline_median_ms, e.achieved_gbps, "
              "e.fraction_of_copy_bandwidth, e.gpu_seconds, e.device, "
              "e.driver, e.clocks, e.kopt_version, e.record "
              "FROM candidates c LEFT JOIN evaluations e ON "
              "e.candidate_id = c.id AND (? = '' OR e.executor = ?) "
              "WHERE c.problem_id = ? ORDER BY c.id");
  Q.bind(Executor).bind(Executor).bind(Problem);
  while (Q.step() == SQLITE_ROW) {
    Candidate C;
    C.Id = Q.integer(0);
    C.ParentId = Q.integer(1);
    C.Depth = (int)Q.integer(2);
    C.Proposer = Q.text(3);
    C.Recipe = Q.text(4);
    C.Status = Q.text(5);
    C.Reason = Q.text(6);
    C.Source = Q.text(7);
    C.SourceSha256 = Q.text(8);
    C.SassSha256 = Q.text(9);
    C.DuplicateOf = Q.integer(10);
    C.Expanded = Q.integer(11) != 0;
    if (!Q.text(12).empty()) {
      Evaluation E;
      E.Executor = Q.text(12);
      E.Status = Q.text(13);
      E.Speedup = Q.real(14);
      E.SpeedupLow = Q.real(15);
      E.SpeedupHigh = Q.real(16);
      E.MedianMs = Q.real(17);
      E.BaselineMedianMs = Q.real(18);
      E.AchievedGbps = Q.maybeReal(19);
      E.FractionOfCopyBandwidth = Q.maybeReal(20);
      E.GpuSeconds = Q.real(21);
      E.Device = Q.text(22);
      E.Driver = Q.text(23);
      E.Clocks = Q.text(24);
      E.KoptVersion = Q.text(25);
      E.Record = Q.text(26);
      C.Eval = E;
      if (!Out.empty() && Out.back().Id == C.Id)
        continue; // another executor's evaluation of the same candidate
    }
    Out.push_back(std::move(C));
  }
  return Out;
}

std::optional<std::int64_t> Store::addCandidate(std::int64_t Problem,
                                                const Candidate &C) {
  Statement Insert(Db, "INSERT OR IGNORE INTO candidates(problem_id, recipe, "
                       "parent_id, depth, proposer, status, reason, "
                       "created_at) VALUES(?,?,?,?,?,?,?,?)");
  Insert.bind(Problem)
      .bind(C.Recipe)
      .bind(C.ParentId)
      .bind((std::int64_t)C.Depth)
      .bind(C.Proposer)
      .bind(C.Status)
      .bind(C.Reason)
      .bind(now());
  Statement Find(Db, "SELECT id FROM candidates WHERE problem_id=? AND "
                     "recipe=?");
  Find.bind(Problem).bind(C.Recipe);
  if (Insert.step() != SQLITE_DONE || Find.step() != SQLITE_ROW) {
    LastError = sqlite3_errmsg(Db);
    return std::nullopt;
  }
  return Find.integer(0);
}

bool Store::updateCandidate(const Candidate &C) {
  Statement Update(Db, "UPDATE candidates SET status=?, reason=?, source=?, "
                       "source_sha256=?, sass_sha256=?, duplicate_of=? "
                       "WHERE id=?");
  Update.bind(C.Status)
      .bind(C.Reason)
      .bind(C.Source)
      .bind(C.SourceSha256)
      .bind(C.SassSha256)
      .bind(C.DuplicateOf)
      .bind(C.Id);
  if (Update.step() != SQLITE_DONE) {
    LastError = sqlite3_errmsg(Db);
    return false;
  }
  return true;
}

bool Store::markExpanded(std::int64_t CandidateId) {
  Statement Update(Db, "UPDATE candidates SET expanded=1 WHERE id=?");
  Update.bind(CandidateId);
  if (Update.step() != SQLITE_DONE) {
    LastError = sqlite3_errmsg(Db);
    return false;
  }
  return true;
}

bool Store::addEvaluation(std::int64_t CandidateId, const Evaluation &E) {
  if (!exec("BEGIN IMMEDIATE"))
    return false;
  Statement Insert(
      Db, "INSERT OR REPLACE INTO evaluations(candidate_id, executor, status, "
          "speedup, speedup_low, speedup_high, median_ms, baseline_median_ms, "
          "achieved_gbps, fraction_of_copy_bandwidth, gpu_seconds, device, "
          "driver, clocks, kopt_version, record, evaluated_at) "
          "VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
  Insert.bind(CandidateId)
      .bind(E.Executor)
      .bind(E.Status)
      .bind(E.Speedup)
      .bind(E.SpeedupLow)
      .bind(E.SpeedupHigh)
      .bind(E.MedianMs)
      .bind(E.BaselineMedianMs)
      .bind(E.AchievedGbps)
      .bind(E.FractionOfCopyBandwidth)
      .bind(E.GpuSeconds)
      .bind(E.Device)
      .bind(E.Driver)
      .bind(E.Clocks)
      .bind(E.KoptVersion)
      .bind(E.Record)
      .bind(now());
  Statement Update(Db, "UPDATE candidates SET status=?, reason=CASE WHEN ? = "
                       "'' THEN reason ELSE ? END WHERE id=?");
  Update.bind(E.Status).bind(E.Reason).bind(E.Reason).bind(CandidateId);
  if (Insert.step() != SQLITE_DONE || Update.step() != SQLITE_DONE) {
    LastError = sqlite3_errmsg(Db);
    exec("ROLLBACK");
    return false;
  }
  return exec("COMMIT");
}

std::optional<std::string> Store::probe(const std::string &SourceSha256,
                                        const std::string &Steps,
                                        const std::string &Tool) {
  Statement Q(Db, "SELECT remarks FROM probes WHERE source_sha256=? AND "
                  "steps=? AND tool=?");
  Q.bind(SourceSha256).bind(Steps).bind(Tool);
  if (Q.step() != SQLITE_ROW)
    return std::nullopt;
  return Q.text(0);
}

bool Store::addProbe(const std::string &SourceSha256, const std::string &Steps,
                     const std::string &Tool, const std::string &Remarks) {
  Statement Q(Db, "INSERT OR REPLACE INTO probes(source_sha256, steps, tool, "
                  "remarks, created_at) VALUES(?,?,?,?,?)");
  Q.bind(SourceSha256).bind(Steps).bind(Tool).bind(Remarks).bind(now());
  if (Q.step() != SQLITE_DONE) {
    LastError = Q.error();
    return false;
  }
  return true;
}

} // namespace kopt::search
