//===- ProblemValidator.h - Checks a problem against its source -*- C++ -*-===//
//
// The consistency half of `kopt-bench validate`: the source and reference
// exist, both define the entry, and the entry's parameters are exactly the
// spec's args in order (pointer for a buffer, a matching scalar type for a
// scalar, cudaStream_t for the stream). No compiler and no GPU are needed.
//
//===----------------------------------------------------------------------===//
#ifndef KOPT_SPEC_PROBLEMVALIDATOR_H
#define KOPT_SPEC_PROBLEMVALIDATOR_H

#include "kopt/Spec/EntrySignature.h"
#include "kopt/Spec/Problem.h"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace kopt::spec {

/// Reads a whole file; nullopt if it cannot be read.
std::optional<std::string> readTextFile(const std::filesystem::path &Path);

/// Errors comparing \p Sig, found in \p File, with the spec's args.
std::vector<std::string> checkEntryAgainstArgs(const Problem &P,
                                               const EntrySignature &Sig,
                                               const std::string &File);

/// Checks the problem's source and reference against the spec.
std::vector<std::string> validateProblemSources(const Problem &P);

/// True when a C/C++ type named \p TypeName may carry elements of \p T.
/// Unknown names (typedefs, structs) are accepted: the spec's dtype is
/// authoritative for them.
bool typeCanCarry(const std::string &TypeName, DType T, bool IsPointer);

} // namespace kopt::spec

#endif // KOPT_SPEC_PROBLEMVALIDATOR_H
