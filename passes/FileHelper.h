//===- FileHelper.h - A host function a pass adds once a file ---*- C++ -*-===//
//
// restrict-const, split-grid and tile-matmul guard their rewritten launches
// with a small host function of their own (kopt_distinct_allocations,
// kopt_split_grid_fits, kopt_matmul_tiles_fit). It goes into the file once,
// at file scope before the first function that launches a kernel, and not
// at all when the file has it already (an earlier run, or an
// earlier kernel of this run).
//
//===----------------------------------------------------------------------===//

#ifndef KOPT_PASSES_FILEHELPER_H
#define KOPT_PASSES_FILEHELPER_H

#include "kopt/Analysis/KernelInfo.h"
#include "kopt/Pass/Edits.h"

#include "llvm/Support/Error.h"

#include <string>

namespace kopt {

class FileHelper {
public:
  explicit FileHelper(llvm::StringRef Name) : Name(Name) {}

  /// At the start of a file: whether it declares the helper already.
  void beginFile(const clang::ASTContext &HC);

  /// Adds Text to Edits before every function of the file that launches a
  /// kernel (a later kernel's rewritten launches call it too, and may sit
  /// in a function before this kernel's), unless the file has the helper;
  /// true when it did.
  llvm::Expected<bool> addBefore(const ProgramInfo &Info, llvm::StringRef Text,
                                 EditSet &Edits, clang::ASTContext &HC);

  /// Edits are merged into the pass's edits: the helper is in the file from
  /// now on if addBefore() \p Added it there.
  void committed(bool Added) { Present = Present || Added; }

private:
  std::string Name;
  bool Present = false;
};

} // namespace kopt

#endif // KOPT_PASSES_FILEHELPER_H
