//===- HostCode.h - The host side of a source -------------------*- C++ -*-===//
//
// Two candidates with the same SASS are the same program only if their host
// code is the same too: a launcher that runs half the grid, or copies back a
// kept result, compiles to the original's SASS. The search's SASS dedup
// keys on both: the SASS hash and this fingerprint of the host side.
//
//===----------------------------------------------------------------------===//
#ifndef KOPT_SEARCH_HOSTCODE_H
#define KOPT_SEARCH_HOSTCODE_H

#include <string>

namespace kopt::search {

/// \p Source's tokens (comments and spacing dropped) without the
/// definitions of functions that are only device code (`__global__`, or
/// `__device__` without `__host__`). Everything else stays, so two
/// sources with the same fingerprint differ at most in device code.
std::string hostFingerprint(const std::string &Source);

} // namespace kopt::search

#endif // KOPT_SEARCH_HOSTCODE_H
