//===- SkippedBodies.cpp - Bodies the preamble did not keep ---------------===//
#include "kopt/Frontend/SkippedBodies.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Frontend/ASTUnit.h"
#include "clang/Lex/Lexer.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/ADT/StringMap.h"

#include <memory>
#include <mutex>

using namespace clang;

namespace kopt {

namespace {

/// The text of a definition from \p Begin through the `}` closing the body
/// that follows the declarator ending at \p DeclEnd, lexed (raw) from the
/// file; empty when the locations are not in one file or no body follows.
std::string definitionText(const ASTContext &Ctx, SourceLocation Begin,
                           SourceLocation DeclEnd) {
  const SourceManager &SM = Ctx.getSourceManager();
  Begin = SM.getExpansionLoc(Begin);
  DeclEnd = SM.getExpansionLoc(DeclEnd);
  FileID File = SM.getFileID(Begin);
  if (Begin.isInvalid() || DeclEnd.isInvalid() || SM.getFileID(DeclEnd) != File)
    return "";
  bool Invalid = false;
  StringRef Buffer = SM.getBufferData(File, &Invalid);
  unsigned Start = SM.getFileOffset(Begin), From = SM.getFileOffset(DeclEnd);
  if (Invalid || Start > From || From >= Buffer.size())
    return "";
  Lexer Lex(SM.getLocForStartOfFile(File), Ctx.getLangOpts(), Buffer.begin(),
            Buffer.begin() + From, Buffer.end());
  int Depth = 0;
  for (Token Tok;;) {
    Lex.LexFromRawLexer(Tok);
    if (Tok.is(tok::eof) || (Depth == 0 && Tok.is(tok::semi)))
      return "";
    if (Tok.is(tok::l_brace))
      ++Depth;
    if (Tok.is(tok::r_brace) && --Depth == 0)
      return Buffer
          .slice(Start, SM.getFileOffset(Tok.getLocation()) + Tok.getLength())
          .str();
    if (Depth < 0)
      return "";
  }
}

/// A type the small translation unit can spell without the header's
/// declarations.
bool isSpellable(QualType T) { return T->isBuiltinType(); }

/// `template int ceil_div<int>(int, int);`: the explicit instantiation that
/// gives \p Spec a body in the small translation unit; empty when a type or
/// argument has no spelling there.
std::string instantiationText(const FunctionDecl *Spec) {
  const TemplateArgumentList *Args = Spec->getTemplateSpecializationArgs();
  PrintingPolicy Policy(Spec->getASTContext().getLangOpts());
  if (!Args || !isSpellable(Spec->getReturnType()))
    return "";
  std::string Text = "template " + Spec->getReturnType().getAsString(Policy) +
                     " " + Spec->getNameAsString() + "<";
  for (unsigned I = 0; I < Args->size(); ++I) {
    const TemplateArgument &A = Args->get(I);
    if (I)
      Text += ", ";
    if (A.getKind() == TemplateArgument::Type && isSpellable(A.getAsType()))
      Text += A.getAsType().getAsString(Policy);
    else if (A.getKind() == TemplateArgument::Integral)
      Text += "(" + std::to_string(A.getAsIntegral().getExtValue()) + ")";
    else
      return "";
  }
  Text += ">(";
  for (unsigned I = 0; I < Spec->getNumParams(); ++I) {
    QualType T = Spec->getParamDecl(I)->getType();
    if (!isSpellable(T))
      return "";
    Text += (I ? ", " : "") + T.getAsString(Policy);
  }
  return Text + ");\n";
}

/// The function named \p Name with a body in \p AST: the specialization of
/// a template of that name when \p Template, else a plain function.
const FunctionDecl *findDefinition(ASTUnit &AST, StringRef Name,
                                   bool Template) {
  for (const Decl *D : AST.getASTContext().getTranslationUnitDecl()->decls()) {
    if (const auto *FT = dyn_cast<FunctionTemplateDecl>(D);
        FT && Template && FT->getName() == Name) {
      for (const FunctionDecl *S : FT->specializations())
        if (S->hasBody())
          return S;
    } else if (const auto *F = dyn_cast<FunctionDecl>(D);
               F && !Template && F->getName() == Name && F->hasBody()) {
      return F;
    }
  }
  return nullptr;
}

/// One small translation unit and the definition found in it.
struct Reparsed {
  std::unique_ptr<ASTUnit> AST;
  const FunctionDecl *Definition = nullptr;
};

/// Parses \p Text alone and finds \p Name's definition in it, once per
/// text for the life of the process.
const FunctionDecl *reparse(const std::string &Text, StringRef Name,
                            bool Template) {
  static std::mutex Lock;
  // The small ASTs keep a pointer to their diagnostics' consumer: it lives
  // as long as they do (constructed first, destroyed last).
  static IgnoringDiagConsumer Quiet;
  static llvm::StringMap<Reparsed> Cache;
  std::lock_guard<std::mutex> Guard(Lock);
  auto [It, New] = Cache.try_emplace(Text);
  if (!New)
    return It->second.Definition;
  It->second.AST = tooling::buildASTFromCodeWithArgs(
      Text,
      {"-std=c++17", "-fsyntax-only", "-D__host__=", "-D__device__=",
       "-D__forceinline__=inline", "-D__inline__=inline"},
      "kopt-helper.cpp", "kopt", std::make_shared<PCHContainerOperations>(),
      tooling::getClangStripDependencyFileAdjuster(),
      tooling::FileContentMappings(), &Quiet);
  if (It->second.AST && !It->second.AST->getDiagnostics().hasErrorOccurred())
    It->second.Definition = findDefinition(*It->second.AST, Name, Template);
  return It->second.Definition;
}

} // namespace

const FunctionDecl *definitionOf(const FunctionDecl *Callee) {
  const FunctionDecl *Def = nullptr;
  if (!Callee || Callee->hasBody(Def))
    return Def;
  // The user's helpers only: a system header's (CUDA's, the C library's)
  // are not read again, which would cost a parse each for nothing.
  const SourceManager &SM = Callee->getASTContext().getSourceManager();
  if (isa<CXXMethodDecl>(Callee) || !Callee->getDeclName().isIdentifier() ||
      SM.isInSystemHeader(SM.getExpansionLoc(Callee->getLocation())))
    return nullptr;
  const FunctionTemplateDecl *Template = Callee->getPrimaryTemplate();
  const FunctionDecl *Pattern =
      Template ? Template->getTemplatedDecl() : Callee;
  for (const FunctionDecl *R : Pattern->redecls()) {
    if (!R->hasSkippedBody())
      continue;
    const Decl *Whole =
        Template ? static_cast<const Decl *>(R->getDescribedFunctionTemplate())
                 : R;
    if (!Whole)
      return nullptr;
    std::string Text = definitionText(R->getASTContext(), Whole->getBeginLoc(),
                                      R->getEndLoc());
    if (Text.empty())
      return nullptr;
    Text += "\n";
    if (Template) {
      std::string Instantiation = instantiationText(Callee);
      if (Instantiation.empty())
        return nullptr;
      Text += Instantiation;
    }
    return reparse(Text, Callee->getName(), Template != nullptr);
  }
  return nullptr;
}

} // namespace kopt
