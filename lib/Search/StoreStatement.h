//===- StoreStatement.h - Prepared SQLite statements (private) -*- C++ -*-===//
//
// The store's one wrapper around sqlite3_stmt, shared by Store.cpp and
// StoreLLM.cpp. Not installed: include/ has no SQLite in it.
//
//===----------------------------------------------------------------------===//
#ifndef KOPT_LIB_SEARCH_STORESTATEMENT_H
#define KOPT_LIB_SEARCH_STORESTATEMENT_H

#include <sqlite3.h>

#include <cstdint>
#include <ctime>
#include <optional>
#include <string>

namespace kopt::search::detail {

inline std::string now() {
  std::time_t T = std::time(nullptr);
  char Buffer[32];
  std::strftime(Buffer, sizeof(Buffer), "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&T));
  return Buffer;
}

/// One prepared statement; binds by position, steps, finalizes.
class Statement {
public:
  Statement(sqlite3 *Db, const char *Sql) : Db(Db) {
    if (sqlite3_prepare_v2(Db, Sql, -1, &S, nullptr) != SQLITE_OK)
      S = nullptr;
  }
  ~Statement() { sqlite3_finalize(S); }
  bool ok() const { return S != nullptr; }
  Statement &bind(const std::string &V) {
    sqlite3_bind_text(S, ++Index, V.c_str(), (int)V.size(), SQLITE_TRANSIENT);
    return *this;
  }
  Statement &bind(std::int64_t V) {
    sqlite3_bind_int64(S, ++Index, V);
    return *this;
  }
  Statement &bind(double V) {
    sqlite3_bind_double(S, ++Index, V);
    return *this;
  }
  Statement &bind(const std::optional<double> &V) {
    if (V)
      return bind(*V);
    sqlite3_bind_null(S, ++Index);
    return *this;
  }
  /// SQLITE_ROW, SQLITE_DONE or an error code.
  int step() { return S ? sqlite3_step(S) : SQLITE_ERROR; }
  std::string text(int Col) const {
    const unsigned char *T = sqlite3_column_text(S, Col);
    return T ? reinterpret_cast<const char *>(T) : "";
  }
  std::int64_t integer(int Col) const { return sqlite3_column_int64(S, Col); }
  double real(int Col) const { return sqlite3_column_double(S, Col); }
  std::optional<double> maybeReal(int Col) const {
    if (sqlite3_column_type(S, Col) == SQLITE_NULL)
      return std::nullopt;
    return real(Col);
  }
  std::string error() const { return sqlite3_errmsg(Db); }

private:
  sqlite3 *Db;
  sqlite3_stmt *S = nullptr;
  int Index = 0;
};

} // namespace kopt::search::detail

#endif // KOPT_LIB_SEARCH_STORESTATEMENT_H
