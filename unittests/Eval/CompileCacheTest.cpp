#include "kopt/Eval/CompileCache.h"
#include "kopt/Eval/Compiler.h"
#include "kopt/Eval/Sha256.h"

#include <gtest/gtest.h>

#include <fstream>
#include <unistd.h>

using namespace kopt::eval;
namespace fs = std::filesystem;

namespace {

class CompileCacheTest : public ::testing::Test {
protected:
  fs::path Root;
  void SetUp() override {
    std::string Template =
        (fs::temp_directory_path() / "kopt-cache-test-XXXXXX").string();
    ASSERT_NE(mkdtemp(Template.data()), nullptr);
    Root = Template;
  }
  void TearDown() override { fs::remove_all(Root); }

  static void write(const fs::path &Path, const std::string &Text) {
    std::ofstream(Path, std::ios::binary) << Text;
  }
  static std::string read(const fs::path &Path) {
    std::ifstream In(Path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(In), {});
  }
  /// A compile result whose library holds \p Bytes.
  CompileResult compiled(const std::string &Name, const std::string &Bytes) {
    CompileResult R;
    R.Ok = true;
    R.LibraryPath = (Root / Name).string();
    R.Log = "ptxas info    : Used 14 registers\n";
    R.Seconds = 2.5;
    write(R.LibraryPath, Bytes);
    return R;
  }
  static std::string key(char C) { return std::string(64, C); }
};

TEST_F(CompileCacheTest, RestoresWhatWasStored) {
  CompileCache Cache(Root / "cache", 1 << 20);
  Cache.store(key('a'), compiled("built.so", "library bytes"));
  CompileResult R;
  R.LibraryPath = (Root / "restored.so").string();
  ASSERT_TRUE(Cache.restore(key('a'), R));
  EXPECT_TRUE(R.Ok);
  EXPECT_TRUE(R.Cached);
  EXPECT_EQ(read(R.LibraryPath), "library bytes");
  EXPECT_EQ(R.Log, "ptxas info    : Used 14 registers\n");
  EXPECT_FALSE(R.SassInspected);

  CompileResult Other;
  Other.LibraryPath = (Root / "other.so").string();
  EXPECT_FALSE(Cache.restore(key('b'), Other));
  EXPECT_FALSE(Other.Ok);
  EXPECT_FALSE(fs::exists(Other.LibraryPath));
}

TEST_F(CompileCacheTest, DamagedEntryIsAMissAndIsRemoved) {
  CompileCache Cache(Root / "cache", 1 << 20);
  Cache.store(key('a'), compiled("built.so", "library bytes"));
  write(Root / "cache" / "compile" / key('a') / "library.so", "tampered");
  CompileResult R;
  R.LibraryPath = (Root / "restored.so").string();
  EXPECT_FALSE(Cache.restore(key('a'), R));
  EXPECT_FALSE(fs::exists(Root / "cache" / "compile" / key('a')));
  // Stored again, it is whole again.
  Cache.store(key('a'), compiled("built.so", "library bytes"));
  EXPECT_TRUE(Cache.restore(key('a'), R));
}

TEST_F(CompileCacheTest, FailedCompilesAndBadKeysAreNotStored) {
  CompileCache Cache(Root / "cache", 1 << 20);
  CompileResult Failed = compiled("built.so", "x");
  Failed.Ok = false;
  Cache.store(key('a'), Failed);
  Cache.store("../escape", compiled("built.so", "x"));
  EXPECT_FALSE(fs::exists(Root / "cache" / "compile" / key('a')));
  EXPECT_FALSE(fs::exists(Root / "cache" / "escape"));
}

TEST_F(CompileCacheTest, PrunesLeastRecentlyUsedOverTheLimit) {
  // Each entry holds a 600-byte library plus its log and meta.json.
  CompileCache Cache(Root / "cache", 1500);
  std::string Bytes(600, 'x');
  Cache.store(key('a'), compiled("a.so", Bytes));
  fs::last_write_time(Root / "cache" / "compile" / key('a'),
                      fs::file_time_type::clock::now() - std::chrono::hours(2));
  Cache.store(key('b'), compiled("b.so", Bytes));
  Cache.store(key('c'), compiled("c.so", Bytes));
  EXPECT_FALSE(fs::exists(Root / "cache" / "compile" / key('a')));
  EXPECT_TRUE(fs::exists(Root / "cache" / "compile" / key('c')));
}

TEST(CompileCacheKey, LineMarkersDoNotCount) {
  std::string A = "# 1 \"/a/kernel.cu\"\nint x;\n#line 7 \"/a/k.h\"\nint y;\n";
  std::string B = "# 1 \"/b/kernel.cu\"\nint x;\n#line 9 \"/b/k.h\"\nint y;\n";
  EXPECT_EQ(withoutLineMarkers(A), "int x;\nint y;\n");
  EXPECT_EQ(sourceDigest(A, A), sourceDigest(B, B));
  EXPECT_NE(sourceDigest(A, A), sourceDigest("int x;\n", "int x;\n"));
  // Device and host passes are not interchangeable.
  EXPECT_NE(sourceDigest("int x;\n", ""), sourceDigest("", "int x;\n"));
  // A pragma is code, not a marker.
  EXPECT_EQ(withoutLineMarkers("#pragma unroll\n"), "#pragma unroll\n");
}

} // namespace
