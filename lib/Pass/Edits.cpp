//===- Edits.cpp - The source edits a pass proposes -----------------------===//

#include "kopt/Pass/Edits.h"

#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

using namespace clang;
using namespace llvm;

namespace kopt {

namespace {

Error notInMainFile() {
  return createStringError(inconvertibleErrorCode(),
                           "edit outside the main file or inside a macro");
}

} // namespace

Error EditSet::add(const tooling::Replacement &R) {
  // tooling::Replacements joins two insertions at one offset into one that
  // inserts both texts; the same edit proposed twice is one edit.
  if (llvm::is_contained(Replaces, R))
    return Error::success();
  if (Error E = Replaces.add(R))
    return createStringError(inconvertibleErrorCode(),
                             "conflicting edits: " + toString(std::move(E)));
  return Error::success();
}

Error EditSet::replaceChars(unsigned Offset, unsigned Length, StringRef Text) {
  return add(tooling::Replacement(FilePath, Offset, Length, Text));
}

Error EditSet::replace(SourceRange R, StringRef Text, const ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  CharSourceRange CR = Lexer::makeFileCharRange(
      CharSourceRange::getTokenRange(R), SM, Ctx.getLangOpts());
  if (CR.isInvalid() || !SM.isInMainFile(CR.getBegin()))
    return notInMainFile();
  unsigned Begin = SM.getFileOffset(CR.getBegin());
  unsigned End = SM.getFileOffset(CR.getEnd());
  return replaceChars(Begin, End - Begin, Text);
}

Error EditSet::insertBefore(SourceLocation L, StringRef Text,
                            const ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  if (L.isInvalid() || L.isMacroID() || !SM.isInMainFile(L))
    return notInMainFile();
  return replaceChars(SM.getFileOffset(L), 0, Text);
}

Error EditSet::insertAfterToken(SourceLocation L, StringRef Text,
                                const ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  if (L.isInvalid() || L.isMacroID() || !SM.isInMainFile(L))
    return notInMainFile();
  SourceLocation After =
      Lexer::getLocForEndOfToken(L, 0, SM, Ctx.getLangOpts());
  return replaceChars(SM.getFileOffset(After), 0, Text);
}

Error EditSet::merge(const EditSet &Other) {
  // All or nothing: a conflict leaves this set as it was.
  tooling::Replacements Before = Replaces;
  for (const tooling::Replacement &R : Other.Replaces)
    if (Error E = add(R)) {
      Replaces = std::move(Before);
      return E;
    }
  return Error::success();
}

Expected<std::string> EditSet::apply(StringRef Code) const {
  return tooling::applyAllReplacements(Code, Replaces);
}

} // namespace kopt
