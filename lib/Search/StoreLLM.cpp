//===- StoreLLM.cpp - The store's LLM exchanges and lessons ---------------===//
//
// Every request to an LLM and its reply (key-free: ChatClient redacts) with
// the source the reply gave, numbered per problem; `llm#N` in a recipe is
// the problem's exchange N, and --llm-replay serves a store's exchanges
// again in this order. Lessons are what a search found to work, kept for
// the prompts of later problems.
//
//===----------------------------------------------------------------------===//
#include "StoreStatement.h"
#include "kopt/Search/Store.h"

namespace kopt::search {

using detail::now;
using detail::Statement;

namespace {

constexpr const char *ExchangeColumns =
    "id, problem_id, seq, parent_id, kind, provider, model, url, request, "
    "http_status, reply, attempts, text, input_tokens, output_tokens, "
    "stop_reason, error, source, replayed";

LLMExchangeRow readExchange(const Statement &Q) {
  LLMExchangeRow E;
  int I = 0;
  E.Id = Q.integer(I++);
  E.ProblemId = Q.integer(I++);
  E.Seq = Q.integer(I++);
  E.ParentId = Q.integer(I++);
  E.Kind = Q.text(I++);
  E.Provider = Q.text(I++);
  E.Model = Q.text(I++);
  E.Url = Q.text(I++);
  E.Request = Q.text(I++);
  E.HttpStatus = static_cast<long>(Q.integer(I++));
  E.Reply = Q.text(I++);
  E.Attempts = static_cast<int>(Q.integer(I++));
  E.Text = Q.text(I++);
  E.InputTokens = static_cast<std::uint64_t>(Q.integer(I++));
  E.OutputTokens = static_cast<std::uint64_t>(Q.integer(I++));
  E.StopReason = Q.text(I++);
  E.Error = Q.text(I++);
  E.Source = Q.text(I++);
  E.Replayed = Q.integer(I++) != 0;
  return E;
}

} // namespace

std::optional<std::int64_t> Store::addExchange(LLMExchangeRow &E) {
  if (!exec("BEGIN IMMEDIATE;"))
    return std::nullopt;
  Statement Next(Db, "SELECT COALESCE(MAX(seq), 0) + 1 FROM llm_exchanges "
                     "WHERE problem_id=?");
  Next.bind(E.ProblemId);
  if (Next.step() != SQLITE_ROW) {
    LastError = Next.error();
    exec("ROLLBACK;");
    return std::nullopt;
  }
  E.Seq = Next.integer(0);
  Statement Insert(
      Db, "INSERT INTO llm_exchanges(problem_id, seq, parent_id, kind, "
          "provider, model, url, request, http_status, reply, attempts, text, "
          "input_tokens, output_tokens, stop_reason, error, source, replayed, "
          "created_at) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
  Insert.bind(E.ProblemId)
      .bind(E.Seq)
      .bind(E.ParentId)
      .bind(E.Kind)
      .bind(E.Provider)
      .bind(E.Model)
      .bind(E.Url)
      .bind(E.Request)
      .bind(static_cast<std::int64_t>(E.HttpStatus))
      .bind(E.Reply)
      .bind(static_cast<std::int64_t>(E.Attempts))
      .bind(E.Text)
      .bind(static_cast<std::int64_t>(E.InputTokens))
      .bind(static_cast<std::int64_t>(E.OutputTokens))
      .bind(E.StopReason)
      .bind(E.Error)
      .bind(E.Source)
      .bind(static_cast<std::int64_t>(E.Replayed))
      .bind(now());
  if (Insert.step() != SQLITE_DONE) {
    LastError = Insert.error();
    exec("ROLLBACK;");
    return std::nullopt;
  }
  E.Id = sqlite3_last_insert_rowid(Db);
  if (!exec("COMMIT;"))
    return std::nullopt;
  return E.Seq;
}

std::vector<LLMExchangeRow> Store::exchanges(std::int64_t Problem) {
  std::string Sql = std::string("SELECT ") + ExchangeColumns +
                    " FROM llm_exchanges WHERE problem_id=? ORDER BY seq";
  Statement Q(Db, Sql.c_str());
  Q.bind(Problem);
  std::vector<LLMExchangeRow> Out;
  while (Q.step() == SQLITE_ROW)
    Out.push_back(readExchange(Q));
  return Out;
}

std::optional<LLMExchangeRow> Store::exchange(std::int64_t Problem,
                                              std::int64_t Seq) {
  std::string Sql = std::string("SELECT ") + ExchangeColumns +
                    " FROM llm_exchanges WHERE problem_id=? AND seq=?";
  Statement Q(Db, Sql.c_str());
  Q.bind(Problem).bind(Seq);
  if (Q.step() != SQLITE_ROW)
    return std::nullopt;
  return readExchange(Q);
}

bool Store::addLesson(const Lesson &L) {
  Statement Q(Db, "INSERT INTO lessons(problem, executor, features, recipe, "
                  "what, speedup, created_at) VALUES(?,?,?,?,?,?,?) "
                  "ON CONFLICT(problem, executor, recipe) DO UPDATE SET "
                  "features=excluded.features, what=excluded.what, "
                  "speedup=excluded.speedup");
  Q.bind(L.Problem).bind(L.Executor).bind(L.Features).bind(L.Recipe);
  Q.bind(L.What).bind(L.Speedup);
  Q.bind(now());
  if (Q.step() != SQLITE_DONE) {
    LastError = Q.error();
    return false;
  }
  return true;
}

std::vector<Lesson> Store::lessons(const std::string &Executor) {
  Statement Q(Db, "SELECT problem, executor, features, recipe, what, speedup "
                  "FROM lessons WHERE executor=? ORDER BY id");
  Q.bind(Executor);
  std::vector<Lesson> Out;
  while (Q.step() == SQLITE_ROW)
    Out.push_back(
        {Q.text(0), Q.text(1), Q.text(2), Q.text(3), Q.text(4), Q.real(5)});
  return Out;
}

} // namespace kopt::search
