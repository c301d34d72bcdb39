//===- CompileCache.cpp - Compiled entry libraries by content -------------===//
#include "kopt/Eval/CompileCache.h"
#include "kopt/Eval/Compiler.h"
#include "kopt/Eval/ReferenceCache.h"
#include "kopt/Eval/Sha256.h"
#include "kopt/Spec/ProblemValidator.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <vector>

namespace kopt::eval {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {
constexpr const char *LibraryName = "library.so";

bool writeFile(const fs::path &Path, const std::string &Text) {
  std::ofstream Out(Path, std::ios::binary);
  Out << Text;
  return static_cast<bool>(Out);
}

std::string uniqueSuffix() {
  static thread_local std::mt19937_64 Gen(std::random_device{}());
  std::ostringstream S;
  S << std::hex << Gen();
  return S.str();
}

bool validKey(const std::string &Key) {
  return Key.size() == 64 && std::all_of(Key.begin(), Key.end(), [](char C) {
           return (C >= '0' && C <= '9') || (C >= 'a' && C <= 'f');
         });
}
} // namespace

std::string withoutLineMarkers(const std::string &Preprocessed) {
  std::istringstream In(Preprocessed);
  std::string Line, Out;
  while (std::getline(In, Line)) {
    bool Marker = Line.rfind("#line", 0) == 0 ||
                  (Line.size() > 2 && Line[0] == '#' && Line[1] == ' ' &&
                   Line[2] >= '0' && Line[2] <= '9');
    if (!Marker)
      Out += Line + "\n";
  }
  return Out;
}

CompileCache::CompileCache(fs::path Root, std::uintmax_t MaxBytes)
    : Dir(std::move(Root) / "compile"), MaxBytes(MaxBytes) {}

std::uintmax_t CompileCache::defaultMaxBytes() {
  return cacheMaxBytes("KOPT_COMPILE_CACHE_MAX_MB", 4096);
}

bool CompileCache::restore(const std::string &Key, CompileResult &R) const {
  if (!validKey(Key))
    return false;
  fs::path Entry = Dir / Key;
  std::error_code EC;
  if (!fs::is_directory(Entry, EC))
    return false;
  json Meta;
  auto MetaText = spec::readTextFile(Entry / "meta.json");
  auto Library = spec::readTextFile(Entry / LibraryName);
  auto Log = spec::readTextFile(Entry / "log.txt");
  try {
    if (MetaText)
      Meta = json::parse(*MetaText);
  } catch (const json::exception &) {
  }
  if (!Meta.is_object() || !Library || !Log ||
      Meta.value("library_sha256", "") != sha256Hex(*Library)) {
    fs::remove_all(Entry, EC); // damaged: recompile and store it again
    return false;
  }
  bool SassInspected = Meta.value("sass_inspected", false);
  std::optional<std::string> Sass;
  if (SassInspected && !(Sass = spec::readTextFile(Entry / "sass.txt"))) {
    fs::remove_all(Entry, EC);
    return false;
  }
  if (!writeFile(R.LibraryPath, *Library))
    return false;
  R.Ok = true;
  R.Cached = true;
  R.Log = *Log;
  R.Seconds = 0;
  R.Sass = Sass.value_or("");
  R.SassInspected = SassInspected;
  R.Resources = ResourceUsage();
  parsePtxasLog(R.Log, R.Resources);
  if (SassInspected)
    parseSass(R.Sass, R.Resources);
  // Least recently used goes first when pruning.
  fs::last_write_time(Entry, fs::file_time_type::clock::now(), EC);
  return true;
}

void CompileCache::store(const std::string &Key, const CompileResult &R) const {
  if (!R.Ok || !validKey(Key))
    return;
  std::error_code EC;
  fs::path Final = Dir / Key;
  if (fs::exists(Final, EC))
    return;
  auto Library = spec::readTextFile(R.LibraryPath);
  if (!Library)
    return;
  fs::path Temp = Dir / (".tmp-" + Key + "-" + uniqueSuffix());
  fs::create_directories(Temp, EC);
  json Meta = {{"library_sha256", sha256Hex(*Library)},
               {"sass_inspected", R.SassInspected},
               {"compile_seconds", R.Seconds},
               {"command", R.Command}};
  bool Written = !EC && writeFile(Temp / LibraryName, *Library) &&
                 writeFile(Temp / "log.txt", R.Log) &&
                 (!R.SassInspected || writeFile(Temp / "sass.txt", R.Sass)) &&
                 writeFile(Temp / "meta.json", Meta.dump(2) + "\n");
  if (Written)
    fs::rename(Temp, Final, EC); // fails when another writer won: fine
  if (!Written || EC)
    fs::remove_all(Temp, EC);
  else
    prune();
}

void CompileCache::prune() const {
  struct Entry {
    fs::path Path;
    fs::file_time_type Used;
    std::uintmax_t Bytes;
  };
  std::vector<Entry> Entries;
  std::uintmax_t Total = 0;
  std::error_code EC;
  auto Now = fs::file_time_type::clock::now();
  for (const fs::directory_entry &E : fs::directory_iterator(Dir, EC)) {
    std::string Name = E.path().filename().string();
    if (Name.rfind(".tmp-", 0) == 0 &&
        Now - E.last_write_time(EC) > std::chrono::hours(1)) {
      fs::remove_all(E.path(), EC); // left by a writer that was killed
      continue;
    }
    if (!E.is_directory(EC) || !validKey(Name))
      continue;
    std::uintmax_t Bytes = 0;
    for (const fs::directory_entry &F : fs::directory_iterator(E.path(), EC))
      if (F.is_regular_file(EC))
        Bytes += F.file_size(EC);
    Entries.push_back({E.path(), E.last_write_time(EC), Bytes});
    Total += Bytes;
  }
  if (Total <= MaxBytes)
    return;
  std::sort(Entries.begin(), Entries.end(),
            [](const Entry &A, const Entry &B) { return A.Used < B.Used; });
  for (const Entry &E : Entries) {
    if (Total <= MaxBytes)
      break;
    fs::remove_all(E.Path, EC);
    Total -= E.Bytes;
  }
}

} // namespace kopt::eval
