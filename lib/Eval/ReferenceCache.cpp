//===- ReferenceCache.cpp - The parent's side of the reference cache ------===//
#include "kopt/Eval/ReferenceCache.h"
#include "kopt/Eval/Sha256.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <vector>

namespace kopt::eval {

namespace fs = std::filesystem;

std::string referenceCacheKey(const std::string &LibraryBytes,
                              const std::string &ProblemText,
                              std::uint64_t SeedBase) {
  return sha256Hex("kopt-reference-cache-v1\ninputs: splitmix64 "
                   "(ElementCodec.h)\nlibrary " +
                   sha256Hex(LibraryBytes) + "\nproblem " +
                   sha256Hex(ProblemText) + "\nseed " +
                   std::to_string(SeedBase) + "\n");
}

std::uintmax_t cacheMaxBytes(const char *Var, double DefaultMb) {
  double Mb = DefaultMb;
  if (const char *Env = std::getenv(Var))
    if (double V = std::atof(Env); V > 0)
      Mb = V;
  return static_cast<std::uintmax_t>(Mb * 1024 * 1024);
}

std::uintmax_t referenceCacheMaxBytes() {
  return cacheMaxBytes("KOPT_REFERENCE_CACHE_MAX_MB", 4096);
}

std::uintmax_t pruneKeyedFiles(const fs::path &Dir, std::uintmax_t MaxBytes) {
  struct Group {
    fs::file_time_type Used = fs::file_time_type::min();
    std::uintmax_t Bytes = 0;
    std::vector<fs::path> Files;
  };
  // Every file of a group starts with its manifest's key: KEY.json,
  // KEY-shapeN-seedS.bin (and their .tmp siblings while being written).
  std::map<std::string, Group> Groups;
  std::uintmax_t Total = 0;
  std::error_code EC;
  for (const auto &E : fs::directory_iterator(Dir, EC)) {
    std::error_code FileEC;
    if (!E.is_regular_file(FileEC))
      continue;
    std::string Name = E.path().filename().string();
    Group &G = Groups[Name.substr(0, Name.find_first_of("-."))];
    std::uintmax_t Size = E.file_size(FileEC);
    if (FileEC)
      continue;
    G.Bytes += Size;
    Total += Size;
    G.Files.push_back(E.path());
    auto Time = E.last_write_time(FileEC);
    if (!FileEC && E.path().extension() == ".json")
      G.Used = Time;
  }
  std::vector<Group *> Order;
  for (auto &Entry : Groups)
    Order.push_back(&Entry.second);
  std::stable_sort(Order.begin(), Order.end(),
                   [](Group *A, Group *B) { return A->Used < B->Used; });
  std::uintmax_t Removed = 0;
  for (Group *G : Order) {
    if (Total - Removed <= MaxBytes)
      break;
    for (const fs::path &F : G->Files)
      fs::remove(F, EC);
    Removed += G->Bytes;
  }
  return Removed;
}

} // namespace kopt::eval
