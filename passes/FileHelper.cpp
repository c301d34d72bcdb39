//===- FileHelper.cpp - A host function a pass adds once a file -----------===//

#include "FileHelper.h"
#include "SourceLayout.h"

using namespace clang;
using namespace llvm;

namespace kopt {

void FileHelper::beginFile(const ASTContext &HC) {
  Present = declaresFileScopeFunction(HC, Name);
}

Expected<bool> FileHelper::addBefore(ArrayRef<const LaunchSite *> Launches,
                                     StringRef Text, EditSet &Edits,
                                     ASTContext &HC) {
  if (Present)
    return false;
  std::vector<const Decl *> Callers;
  for (const LaunchSite *L : Launches)
    Callers.push_back(L->CallerDecl);
  if (Error E = Edits.insertBefore(fileScopeBefore(Callers, HC), Text, HC))
    return std::move(E);
  return true;
}

} // namespace kopt
