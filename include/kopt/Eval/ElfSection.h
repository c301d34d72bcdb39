//===- ElfSection.h - One section of an ELF file's bytes --------*- C++ -*-===//
//
// Containment loads a candidate's device code without its host code: the
// fat binary nvcc embeds in the shared library's `.nv_fatbin` section is
// read from the file's bytes (no dlopen, no loader, no constructor), then
// handed to cudaLibraryLoadData.
//
//===----------------------------------------------------------------------===//
#ifndef KOPT_EVAL_ELFSECTION_H
#define KOPT_EVAL_ELFSECTION_H

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kopt::eval {

/// The bytes of section \p Name of the 64-bit little-endian ELF file
/// \p File, or nullopt with \p Error saying why (not ELF, truncated, no
/// such section, offsets outside the file).
std::optional<std::string> readElfSection(const std::string &File,
                                          const std::string &Name,
                                          std::string &Error);

/// A data object an ELF file defines (its static symbol table, .symtab):
/// name, value (an address relative to the load base in a shared
/// library) and size.
struct ElfObject {
  std::string Name;
  std::uint64_t Value = 0;
  std::uint64_t Size = 0;
};

/// The defined data objects of \p File with a size, at most \p Max; empty
/// when it has no static symbol table.
std::vector<ElfObject> elfDataObjects(const std::string &File, std::size_t Max);

/// The fat binaries in \p Section (a `.nv_fatbin` section holds one or
/// more, one after another, each a header with magic 0xBA55ED50 and its
/// size; padding between them is skipped), or nullopt with \p Error when
/// there is none or one runs past the section.
std::optional<std::vector<std::string>> fatBinaries(const std::string &Section,
                                                    std::string &Error);

} // namespace kopt::eval

#endif // KOPT_EVAL_ELFSECTION_H
