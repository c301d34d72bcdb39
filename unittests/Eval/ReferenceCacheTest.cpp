#include "kopt/Eval/ReferenceCache.h"

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <unistd.h>

using namespace kopt::eval;
namespace fs = std::filesystem;

namespace {

TEST(ReferenceCache, KeyNamesLibraryProblemAndSeed) {
  std::string K = referenceCacheKey("lib", "problem", 1);
  EXPECT_EQ(K.size(), 64u);
  EXPECT_EQ(K, referenceCacheKey("lib", "problem", 1));
  EXPECT_NE(K, referenceCacheKey("lib2", "problem", 1));
  EXPECT_NE(K, referenceCacheKey("lib", "problem2", 1));
  EXPECT_NE(K, referenceCacheKey("lib", "problem", 2));
}

void writeFile(const fs::path &P, std::size_t Bytes) {
  std::ofstream(P, std::ios::binary) << std::string(Bytes, 'x');
}

// The least recently used manifest goes first, with all of its entries;
// files of other groups stay.
TEST(ReferenceCache, PruneRemovesWholeGroupsOldestFirst) {
  fs::path Dir = fs::temp_directory_path() /
                 ("kopt-refcache-test-" + std::to_string(::getpid()));
  fs::remove_all(Dir);
  fs::create_directories(Dir);
  auto Now = fs::file_time_type::clock::now();
  const char *Keys[] = {"aaa", "bbb", "ccc"};
  for (int G = 0; G < 3; ++G) {
    std::string K = Keys[G];
    writeFile(Dir / (K + ".json"), 100);
    writeFile(Dir / (K + "-shape0-seed1.bin"), 1000);
    writeFile(Dir / (K + "-shape0-seed501.bin"), 1000);
    // bbb is the oldest, then aaa, then ccc.
    int Age = G == 1 ? 300 : (G == 0 ? 200 : 100);
    fs::last_write_time(Dir / (K + ".json"), Now - std::chrono::seconds(Age));
  }
  EXPECT_EQ(pruneKeyedFiles(Dir, 1u << 20), 0u); // under the bound
  EXPECT_EQ(pruneKeyedFiles(Dir, 4500), 2100u);  // one group goes
  EXPECT_FALSE(fs::exists(Dir / "bbb.json"));
  EXPECT_FALSE(fs::exists(Dir / "bbb-shape0-seed1.bin"));
  EXPECT_TRUE(fs::exists(Dir / "aaa-shape0-seed1.bin"));
  EXPECT_EQ(pruneKeyedFiles(Dir, 0), 4200u); // everything
  EXPECT_TRUE(fs::is_empty(Dir));
  fs::remove_all(Dir);
}

} // namespace
