//===- EntrySignature.h - The entry function's parameter list ---*- C++ -*-===//
//
// Finds the host entry function (the launcher problem.json names) in source
// text and classifies its parameters as pointers, scalars or the stream.
// Used to check a spec against its source, to refuse candidates whose entry
// signature changed, and to tell the shim which calling convention to use.
//
//===----------------------------------------------------------------------===//
#ifndef KOPT_SPEC_ENTRYSIGNATURE_H
#define KOPT_SPEC_ENTRYSIGNATURE_H

#include "kopt/Spec/SourceTokenizer.h"

#include <optional>
#include <string>
#include <vector>

namespace kopt::spec {

struct EntryParam {
  enum class Kind { Pointer, Scalar, Stream, Other };
  Kind ParamKind = Kind::Other;
  /// The type with qualifiers that do not change the calling convention
  /// (const, volatile, __restrict__) removed: "float*", "int", "void*".
  std::string CanonicalType;
  /// The pointee for pointers, the type for scalars: "float", "__half".
  std::string BaseType;
  std::string Name; // may be empty
};

struct EntrySignature {
  std::string Name;
  std::string ReturnType;
  std::vector<EntryParam> Params;
  int Line = 0;
  bool IsDefinition = false;

  /// "void(float*,float*,float*,float,float,int,cudaStream_t)".
  std::string canonical() const;
};

/// Finds the declaration or definition of \p EntryName in \p Tokens;
/// a definition wins over a declaration. \p Error says why on failure.
std::optional<EntrySignature>
findEntrySignature(const std::vector<Token> &Tokens,
                   const std::string &EntryName, std::string &Error);

} // namespace kopt::spec

#endif // KOPT_SPEC_ENTRYSIGNATURE_H
