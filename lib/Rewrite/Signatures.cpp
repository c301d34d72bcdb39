//===- Signatures.cpp - The entry points a rewrite must keep --------------===//

#include "kopt/Rewrite/Signatures.h"

#include "clang/AST/Decl.h"

using namespace clang;

namespace kopt {

namespace {

std::string kernelParamType(QualType T, const ASTContext &Ctx) {
  PrintingPolicy P(Ctx.getLangOpts());
  if (T->isPointerType()) {
    QualType Pointee = T->getPointeeType();
    Pointee.removeLocalConst();
    return Ctx.getPointerType(Pointee).getUnqualifiedType().getAsString(P);
  }
  return T.getUnqualifiedType().getAsString(P);
}

std::string kernelSignature(const FunctionDecl *FD) {
  const ASTContext &Ctx = FD->getASTContext();
  std::string S = "(";
  for (unsigned I = 0; I < FD->getNumParams(); ++I) {
    if (I)
      S += ", ";
    S += kernelParamType(FD->getParamDecl(I)->getType(), Ctx);
  }
  return S + ")";
}

std::string launcherSignature(const FunctionDecl *FD) {
  PrintingPolicy P(FD->getASTContext().getLangOpts());
  return FD->getType().getCanonicalType().getAsString(P);
}

} // namespace

SignatureMap entrySignatures(const ProgramInfo &Info) {
  SignatureMap M;
  for (const KernelInfo &K : Info.Kernels)
    if (K.Decl)
      M["kernel '" + K.Name + "'"] = kernelSignature(K.Decl);
  for (const LaunchSite &L : Info.LaunchSites)
    if (L.CallerDecl)
      M["launcher '" + L.Caller + "'"] = launcherSignature(L.CallerDecl);
  return M;
}

std::string describeSignatureChange(const SignatureMap &Before,
                                    const SignatureMap &After) {
  for (const auto &[Name, Sig] : Before) {
    auto It = After.find(Name);
    if (It == After.end())
      return Name + " disappeared";
    if (It->second != Sig)
      return Name + " changed its signature from " + Sig + " to " + It->second;
  }
  // A new kernel leaves every entry point as it was (tile-matmul adds one
  // beside the original); a new launcher would change what host code runs.
  for (const auto &[Name, Sig] : After)
    if (!Before.count(Name) && !StringRef(Name).starts_with("kernel "))
      return Name + " appeared";
  return std::string();
}

} // namespace kopt
