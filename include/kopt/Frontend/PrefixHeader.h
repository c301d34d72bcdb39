//===- PrefixHeader.h - The precompiled prefix of every CUDA parse -*- C++ -*-//
//
// Before the first line of a .cu file, Clang's CUDA mode includes its
// runtime wrapper (the CUDA runtime, math and device function headers, the
// C++ headers they pull in) and kopt includes its nvcc prelude: about 0.4 s
// of parsing a side, the same for every file parsed with the same flags and
// most of the time kopt-opt spends on a small kernel. kopt precompiles that
// prefix once per set of flags into a cache directory and parses with
// `-include-pch`: the file then starts from the same state as if the prefix
// were parsed again (the same headers, macros and declarations), and the
// implicit includes, which re-include headers the PCH already holds, are
// skipped by their include guards. The tool chooses the directory
// (FrontendOptions::PrefixHeaderDir).
//
//===----------------------------------------------------------------------===//

#ifndef KOPT_FRONTEND_PREFIXHEADER_H
#define KOPT_FRONTEND_PREFIXHEADER_H

#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>
#include <vector>

namespace kopt {

/// The precompiled prefix for a parse with Args (the Clang arguments without
/// the driver name and the file: CudaFrontend::argsFor), built and stored
/// in Dir if it is not there yet. The file name is a hash of the arguments,
/// the Clang version and the prelude's text; Clang itself refuses a PCH
/// whose headers changed since (the parse then runs without it, and
/// forgetPrefixHeader removes it). None when it cannot be built: the parse
/// runs without it, as before.
std::optional<std::string> prefixHeaderFor(const std::vector<std::string> &Args,
                                           llvm::StringRef Dir);

/// The empty file a prefix is precompiled from: a parse that uses one
/// remaps it (empty) too, since Clang checks a PCH's inputs.
llvm::StringRef prefixMainFile();

/// Removes a prefix a parse could not use (stale headers), so that the next
/// parse builds it again.
void forgetPrefixHeader(llvm::StringRef Path);

} // namespace kopt

#endif // KOPT_FRONTEND_PREFIXHEADER_H
