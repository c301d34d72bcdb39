//===- ReferenceCache.h - The parent's side of the reference cache -*- C++ -*-//
//
// The reference's outputs of a run's correctness checks are computed once,
// by a child that loads no candidate, and kept on disk for the run's
// candidates and any later run with the same reference library, problem and
// seed base (lib/Eval/Device/ReferenceStore.h is the children's side). This
// is the parent's part: the key that names a manifest and the size bound.
//
//===----------------------------------------------------------------------===//
#ifndef KOPT_EVAL_REFERENCECACHE_H
#define KOPT_EVAL_REFERENCECACHE_H

#include <cstdint>
#include <filesystem>
#include <string>

namespace kopt::eval {

/// The manifest's name (hex SHA-256) for the reference library's bytes,
/// the problem.json text and the seed base; the input generator's version
/// is part of it, so a change of generator never reads stale outputs.
std::string referenceCacheKey(const std::string &LibraryBytes,
                              const std::string &ProblemText,
                              std::uint64_t SeedBase);

/// $KOPT_REFERENCE_CACHE_MAX_MB (default 4096) in bytes.
std::uintmax_t referenceCacheMaxBytes();

/// A cache's bound in bytes: the megabytes in $\p Var when it holds a
/// positive number, else \p DefaultMb.
std::uintmax_t cacheMaxBytes(const char *Var, double DefaultMb);

/// Removes the least recently used entries of a cache of files until the
/// files in \p Dir take at most \p MaxBytes; the bytes removed. An entry is
/// the files whose names start with the same key (up to the first '-' or
/// '.'), used when its .json file last changed: the reference cache's
/// KEY.json with its KEY-shapeN-seedS.bin, kopt-search's make memo's
/// KEY.remarks.json with its KEY.cu.
std::uintmax_t pruneKeyedFiles(const std::filesystem::path &Dir,
                               std::uintmax_t MaxBytes);

} // namespace kopt::eval

#endif // KOPT_EVAL_REFERENCECACHE_H
