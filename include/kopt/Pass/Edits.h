//===- Edits.h - The source edits a pass proposes ---------------*- C++ -*-===//
//
// Passes never write files: they return edits of the original text. Edits
// from the device-side and host-side ASTs index the same text, so identical
// edits from both are merged into one and conflicting ones are refused.
//
//===----------------------------------------------------------------------===//

#ifndef KOPT_PASS_EDITS_H
#define KOPT_PASS_EDITS_H

#include "clang/AST/ASTContext.h"
#include "clang/Tooling/Core/Replacement.h"
#include "llvm/Support/Error.h"

#include <string>

namespace kopt {

class EditSet {
public:
  explicit EditSet(std::string FilePath) : FilePath(std::move(FilePath)) {}

  /// Replaces the characters of R (a token range in the main file).
  llvm::Error replace(clang::SourceRange R, llvm::StringRef Text,
                      const clang::ASTContext &Ctx);
  /// Replaces a character range given by offsets into the main file.
  llvm::Error replaceChars(unsigned Offset, unsigned Length,
                           llvm::StringRef Text);
  llvm::Error insertBefore(clang::SourceLocation L, llvm::StringRef Text,
                           const clang::ASTContext &Ctx);
  llvm::Error insertAfterToken(clang::SourceLocation L, llvm::StringRef Text,
                               const clang::ASTContext &Ctx);

  /// Adds all of Other's edits, or none when one conflicts; identical
  /// edits are kept once.
  llvm::Error merge(const EditSet &Other);

  bool empty() const { return Replaces.empty(); }
  size_t size() const { return Replaces.size(); }
  const clang::tooling::Replacements &replacements() const { return Replaces; }

  /// Applies the edits to Code (the text they were made against).
  llvm::Expected<std::string> apply(llvm::StringRef Code) const;

private:
  llvm::Error add(const clang::tooling::Replacement &R);

  std::string FilePath;
  clang::tooling::Replacements Replaces;
};

} // namespace kopt

#endif // KOPT_PASS_EDITS_H
