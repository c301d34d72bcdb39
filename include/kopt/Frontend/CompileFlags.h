//===- CompileFlags.h - Compilation databases and nvcc flags ----*- C++ -*-===//
//
// Users build CUDA with nvcc, so their compile_commands.json holds nvcc flags
// that Clang does not accept. This translates what carries meaning for a
// parse (include paths, macros, language standard, GPU arch) and drops the
// rest, as clangd users have to do by hand.
//
//===----------------------------------------------------------------------===//

#ifndef KOPT_FRONTEND_COMPILEFLAGS_H
#define KOPT_FRONTEND_COMPILEFLAGS_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace kopt {

struct TranslatedFlags {
  /// Flags to pass to Clang's CUDA frontend.
  std::vector<std::string> ClangArgs;
  /// The GPU arch the command compiled for (sm_XX), if it named one.
  std::optional<std::string> GpuArch;
  /// Flags that had no meaning for a parse and were dropped.
  std::vector<std::string> Dropped;
};

/// Translates one compile command (argv[0] is the compiler; the source file
/// and output flags are removed). Works for nvcc and for clang/gcc commands.
/// Relative include paths are made absolute against Directory (the
/// command's working directory), since kopt runs elsewhere.
TranslatedFlags translateCompileCommand(const std::vector<std::string> &Argv,
                                        llvm::StringRef SourceFile,
                                        llvm::StringRef Directory = "");

/// Looks SourceFile up in BuildDir/compile_commands.json and translates its
/// command. Fails if the database is missing or has no entry for the file.
llvm::Expected<TranslatedFlags> loadCompileFlags(llvm::StringRef BuildDir,
                                                 llvm::StringRef SourceFile);

/// The source files of BuildDir/compile_commands.json, as absolute paths.
llvm::Expected<std::vector<std::string>>
compileDatabaseFiles(llvm::StringRef BuildDir);

} // namespace kopt

#endif // KOPT_FRONTEND_COMPILEFLAGS_H
