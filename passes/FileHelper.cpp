//===- FileHelper.cpp - A host function a pass adds once a file -----------===//

#include "FileHelper.h"
#include "SourceLayout.h"

using namespace clang;
using namespace llvm;

namespace kopt {

void FileHelper::beginFile(const ASTContext &HC) {
  Present = declaresFileScopeFunction(HC, Name);
}

Expected<bool> FileHelper::addBefore(const ProgramInfo &Info, StringRef Text,
                                     EditSet &Edits, ASTContext &HC) {
  if (Present)
    return false;
  std::vector<const Decl *> Callers;
  const SourceManager &SM = HC.getSourceManager();
  for (const LaunchSite &L : Info.LaunchSites)
    if (L.CallerDecl &&
        SM.isInMainFile(SM.getExpansionLoc(L.CallerDecl->getBeginLoc())))
      Callers.push_back(L.CallerDecl);
  if (Error E = Edits.insertBefore(fileScopeBefore(Callers, HC), Text, HC))
    return std::move(E);
  return true;
}

} // namespace kopt
