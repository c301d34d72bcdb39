//===- StoreTest.cpp - The SQLite store -----------------------------------===//
#include "kopt/Search/Store.h"

#include <gtest/gtest.h>

#include <sqlite3.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

using namespace kopt::search;
namespace fs = std::filesystem;

namespace {

struct TempDir {
  fs::path Path;
  TempDir() {
    std::string T = (fs::temp_directory_path() / "kopt-store-XXXXXX").string();
    Path = mkdtemp(T.data());
  }
  ~TempDir() { fs::remove_all(Path); }
};

/// A new store at \p Path, then \p Sql run on it directly (to make it look
/// like an older or newer one).
void storeThen(const std::string &Path, const char *Sql) {
  std::string Error;
  ASSERT_NE(Store::open(Path, true, Error), nullptr) << Error;
  sqlite3 *Db = nullptr;
  ASSERT_EQ(sqlite3_open(Path.c_str(), &Db), SQLITE_OK);
  EXPECT_EQ(sqlite3_exec(Db, Sql, nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(Db);
}

} // namespace

TEST(StoreTest, KeepsCandidatesAndEvaluationsAcrossReopening) {
  TempDir D;
  std::string Path = (D.Path / "s.sqlite").string(), Error;
  std::int64_t Id = 0;
  {
    auto S = Store::open(Path, true, Error);
    ASSERT_NE(S, nullptr) << Error;
    auto P = S->problem("axpby", "/p/problem.json", "abc");
    ASSERT_TRUE(P);
    Candidate C;
    C.Recipe = "launch-bounds";
    C.Proposer = "O";
    auto Added = S->addCandidate(*P, C);
    ASSERT_TRUE(Added);
    Id = *Added;
    auto Again = S->addCandidate(*P, C); // same recipe: same candidate
    ASSERT_TRUE(Again);
    EXPECT_EQ(*Again, Id);
    C.Id = Id;
    C.Status = "validated";
    C.Source = "__global__ void k() {}";
    C.SourceSha256 = "f00";
    ASSERT_TRUE(S->updateCandidate(C));
    Evaluation E;
    E.Executor = "gpu";
    E.Status = "ok";
    E.Speedup = 1.25;
    E.SpeedupLow = 1.2;
    E.SpeedupHigh = 1.3;
    E.Record = "{}";
    ASSERT_TRUE(S->addEvaluation(Id, E));
    ASSERT_TRUE(S->markExpanded(Id));
  }
  auto S = Store::open(Path, false, Error);
  ASSERT_NE(S, nullptr) << Error;
  auto Problems = S->problems();
  ASSERT_EQ(Problems.size(), 1u);
  std::vector<Candidate> All = S->candidates(Problems[0].Id, "gpu");
  ASSERT_EQ(All.size(), 1u);
  EXPECT_EQ(All[0].Status, "ok");
  EXPECT_EQ(All[0].Source, "__global__ void k() {}");
  EXPECT_TRUE(All[0].Expanded);
  ASSERT_TRUE(All[0].Eval);
  EXPECT_DOUBLE_EQ(All[0].Eval->Speedup, 1.25);
  // Another executor's view has the candidate but not the evaluation.
  std::vector<Candidate> Sim = S->candidates(Problems[0].Id, "simulate:cost");
  ASSERT_EQ(Sim.size(), 1u);
  EXPECT_FALSE(Sim[0].Eval);
}

TEST(StoreTest, RefusesAFileThatIsNotSQLite) {
  TempDir D;
  std::string Path = (D.Path / "garbage.sqlite").string(), Error;
  std::ofstream(Path) << "this is not a database, just text\n";
  EXPECT_EQ(Store::open(Path, true, Error), nullptr);
  EXPECT_NE(Error.find("not a readable SQLite database"), std::string::npos)
      << Error;
  std::ifstream In(Path);
  std::string Line;
  std::getline(In, Line);
  EXPECT_EQ(Line, "this is not a database, just text"); // untouched
}

TEST(StoreTest, RefusesAnotherProgramsDatabase) {
  TempDir D;
  std::string Path = (D.Path / "other.sqlite").string(), Error;
  sqlite3 *Db = nullptr;
  ASSERT_EQ(sqlite3_open(Path.c_str(), &Db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(Db, "CREATE TABLE users(name TEXT)", nullptr, nullptr,
                         nullptr),
            SQLITE_OK);
  sqlite3_close(Db);
  EXPECT_EQ(Store::open(Path, true, Error), nullptr);
  EXPECT_NE(Error.find("not a kopt-search store"), std::string::npos) << Error;
}

TEST(StoreTest, MissingFileWithoutCreateIsAnError) {
  TempDir D;
  std::string Error;
  EXPECT_EQ(Store::open((D.Path / "none.sqlite").string(), false, Error),
            nullptr);
  EXPECT_FALSE(Error.empty());
}

TEST(StoreTest, NumbersExchangesPerProblemAndKeepsLessons) {
  TempDir D;
  std::string Path = (D.Path / "s.sqlite").string(), Error;
  {
    auto S = Store::open(Path, true, Error);
    ASSERT_NE(S, nullptr) << Error;
    auto A = S->problem("a", "/a/problem.json", "1");
    auto B = S->problem("b", "/b/problem.json", "2");
    ASSERT_TRUE(A && B);
    for (std::int64_t Problem : {*A, *A, *B}) {
      LLMExchangeRow E;
      E.ProblemId = Problem;
      E.Kind = "propose";
      E.Request = "{\"model\":\"m\"}";
      E.Source = "__global__ void k() {}";
      ASSERT_TRUE(S->addExchange(E)) << S->lastError();
    }
    EXPECT_EQ(S->exchanges(*A).size(), 2u);
    EXPECT_EQ(S->exchanges(*A)[1].Seq, 2);
    EXPECT_EQ(S->exchanges(*B)[0].Seq, 1);
    ASSERT_TRUE(S->addLesson({"a", "gpu", "loop:grid-stride", "x", "y", 1.5}));
    ASSERT_TRUE(S->addLesson({"a", "gpu", "loop:grid-stride", "x", "z", 1.7}));
    ASSERT_TRUE(S->addLesson({"a", "simulate:cost", "f", "x", "y", 9}));
  }
  auto S = Store::open(Path, false, Error);
  ASSERT_NE(S, nullptr) << Error;
  auto X = S->exchange(1, 2);
  ASSERT_TRUE(X);
  EXPECT_EQ(X->Source, "__global__ void k() {}");
  EXPECT_FALSE(S->exchange(1, 3));
  auto L = S->lessons("gpu");
  ASSERT_EQ(L.size(), 1u); // the same recipe updated, not added
  EXPECT_EQ(L[0].What, "z");
  EXPECT_DOUBLE_EQ(L[0].Speedup, 1.7);
}

TEST(StoreTest, AVersionOneStoreGainsTheNewTables) {
  TempDir D;
  std::string Path = (D.Path / "old.sqlite").string(), Error;
  storeThen(Path, "DROP TABLE llm_exchanges; DROP TABLE lessons; DROP TABLE "
                  "probes; UPDATE meta SET value='1' WHERE "
                  "key='schema_version'");
  auto S = Store::open(Path, false, Error);
  ASSERT_NE(S, nullptr) << Error;
  auto A = S->problem("a", "/a/problem.json", "1");
  LLMExchangeRow E;
  E.ProblemId = *A;
  EXPECT_TRUE(S->addExchange(E)) << S->lastError();
}

TEST(StoreTest, KeepsProbesPerSourceStepsAndTool) {
  TempDir D;
  std::string Path = (D.Path / "p.sqlite").string(), Error;
  {
    auto S = Store::open(Path, true, Error);
    ASSERT_NE(S, nullptr) << Error;
    EXPECT_FALSE(S->probe("abc", "unroll", "kopt-opt 1 2"));
    EXPECT_TRUE(S->addProbe("abc", "unroll", "kopt-opt 1 2", "{\"r\": 1}"));
    EXPECT_TRUE(S->addProbe("abc", "unroll", "kopt-opt 1 2", "{\"r\": 2}"));
  }
  auto S = Store::open(Path, false, Error);
  ASSERT_NE(S, nullptr) << Error;
  EXPECT_EQ(S->probe("abc", "unroll", "kopt-opt 1 2"), "{\"r\": 2}");
  // Another kopt-opt, other steps, another source: not known.
  EXPECT_FALSE(S->probe("abc", "unroll", "kopt-opt 1 3"));
  EXPECT_FALSE(S->probe("abc", "launch-bounds", "kopt-opt 1 2"));
  EXPECT_FALSE(S->probe("abd", "unroll", "kopt-opt 1 2"));
}

TEST(StoreTest, AVersionTwoStoreGainsProbes) {
  TempDir D;
  std::string Path = (D.Path / "v2.sqlite").string(), Error;
  storeThen(Path, "DROP TABLE probes; UPDATE meta SET value='2' WHERE "
                  "key='schema_version'");
  auto S = Store::open(Path, false, Error);
  ASSERT_NE(S, nullptr) << Error;
  EXPECT_TRUE(S->addProbe("abc", "unroll", "t", "{}")) << S->lastError();
  S.reset();
  // A version this kopt-search does not know is refused.
  std::string Newer = (D.Path / "v4.sqlite").string();
  storeThen(Newer, "UPDATE meta SET value='4' WHERE key='schema_version'");
  EXPECT_EQ(Store::open(Newer, false, Error), nullptr);
  EXPECT_NE(Error.find("schema version '4'; this kopt-search reads versions "
                       "1 to 3"),
            std::string::npos)
      << Error;
}
