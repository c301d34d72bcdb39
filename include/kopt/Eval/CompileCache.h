//===- CompileCache.h - Compiled entry libraries by content -----*- C++ -*-===//
//
// A search compiles the same sources again and again: the reference for
// every batch, a candidate that two recipes produce, everything once more
// when a search resumes. The cache keeps each compiled library under a key
// that hashes everything the binary depends on (see compileCacheKey), so a
// hit is the binary nvcc would have produced, and is shared by `check`,
// `run` and kopt-search through the cache directory.
//
// An entry is a directory <root>/compile/<key>/ with the library, nvcc's log
// (ptxas -v), the SASS when cuobjdump read it, and meta.json with the
// library's SHA-256; an entry whose library does not match it is removed and
// counts as a miss. Entries are written to a temporary directory and renamed
// into place, so concurrent writers never expose half an entry. The least
// recently used entries are removed once the cache exceeds its size limit.
//
//===----------------------------------------------------------------------===//
#ifndef KOPT_EVAL_COMPILECACHE_H
#define KOPT_EVAL_COMPILECACHE_H

#include <cstdint>
#include <filesystem>
#include <string>

namespace kopt::eval {

struct CompileResult;

/// Preprocessed source without its line markers (`# 12 "file"`), which name
/// paths: the same code included from two places has the same digest.
std::string withoutLineMarkers(const std::string &Preprocessed);

class CompileCache {
public:
  /// \p Root is the cache directory (entries go to Root/compile);
  /// \p MaxBytes bounds the total size of the entries.
  CompileCache(std::filesystem::path Root, std::uintmax_t MaxBytes);

  /// Copies the entry \p Key into R.LibraryPath and fills R's log, SASS and
  /// resources. False on a miss or a damaged entry (then removed).
  bool restore(const std::string &Key, CompileResult &R) const;

  /// Stores a successful compile \p R under \p Key; failures to store are
  /// not errors (the next compile simply misses).
  void store(const std::string &Key, const CompileResult &R) const;

  const std::filesystem::path &directory() const { return Dir; }

  /// The default limit (4 GiB), or $KOPT_COMPILE_CACHE_MAX_MB.
  static std::uintmax_t defaultMaxBytes();

private:
  std::filesystem::path Dir;
  std::uintmax_t MaxBytes;

  void prune() const;
};

} // namespace kopt::eval

#endif // KOPT_EVAL_COMPILECACHE_H
