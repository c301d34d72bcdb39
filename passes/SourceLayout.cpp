//===- SourceLayout.cpp - Offsets and indentation for text rewrites -------===//

#include "SourceLayout.h"

#include "kopt/Analysis/CudaAST.h"

#include "clang/AST/Attr.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/STLExtras.h"

using namespace clang;
using namespace llvm;

namespace kopt {

/// Character offsets [Begin, End) of a statement in the main file, through
/// the trailing semicolon of a statement that does not end in a `}`.
std::optional<std::pair<unsigned, unsigned>> stmtOffsets(const Stmt *S,
                                                         ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  if (!isRewritable(S->getSourceRange(), Ctx))
    return std::nullopt;
  CharSourceRange R = Lexer::makeFileCharRange(
      CharSourceRange::getTokenRange(S->getSourceRange()), SM,
      Ctx.getLangOpts());
  if (R.isInvalid())
    return std::nullopt;
  unsigned Begin = SM.getFileOffset(R.getBegin());
  unsigned End = SM.getFileOffset(R.getEnd());
  const Stmt *Last = S;
  while (true) {
    if (const auto *F = dyn_cast<ForStmt>(Last))
      Last = F->getBody();
    else if (const auto *W = dyn_cast<WhileStmt>(Last))
      Last = W->getBody();
    else if (const auto *R = dyn_cast<CXXForRangeStmt>(Last))
      Last = R->getBody();
    else if (const auto *I = dyn_cast<IfStmt>(Last))
      Last = I->getElse() ? I->getElse() : I->getThen();
    else
      break;
  }
  if (!isa<CompoundStmt>(Last)) {
    SourceLocation Semi = Lexer::findLocationAfterToken(
        S->getEndLoc(), tok::semi, SM, Ctx.getLangOpts(),
        /*SkipTrailingWhitespaceAndNewLine=*/false);
    if (Semi.isInvalid())
      return std::nullopt;
    End = SM.getFileOffset(Semi);
  }
  return std::make_pair(Begin, End);
}

std::optional<std::pair<unsigned, unsigned>>
macroHeadLoopOffsets(const ForStmt *F, ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  std::optional<std::pair<unsigned, unsigned>> Body =
      stmtOffsets(F->getBody(), Ctx);
  SourceLocation MacroBegin;
  // `for` is the expansion's first token, the invocation is written in the
  // main file (not inside another macro) and holds the head up to its `)`.
  if (!Body || !F->getBeginLoc().isMacroID() ||
      !Lexer::isAtStartOfMacroExpansion(F->getBeginLoc(), SM, Ctx.getLangOpts(),
                                        &MacroBegin) ||
      !MacroBegin.isFileID() || !SM.isInMainFile(MacroBegin))
    return std::nullopt;
  CharSourceRange Invocation = SM.getExpansionRange(F->getBeginLoc());
  SourceLocation Head = F->getRParenLoc();
  if (!Head.isMacroID() || SM.getExpansionLoc(Head) != MacroBegin)
    return std::nullopt;
  unsigned Begin = SM.getFileOffset(MacroBegin);
  unsigned InvocationEnd = SM.getFileOffset(Invocation.getEnd());
  if (InvocationEnd >= Body->first)
    return std::nullopt;
  return std::make_pair(Begin, Body->second);
}

std::optional<std::pair<unsigned, unsigned>> exprOffsets(const Expr *E,
                                                         ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  if (!isRewritable(E->getSourceRange(), Ctx))
    return std::nullopt;
  CharSourceRange R = Lexer::makeFileCharRange(
      CharSourceRange::getTokenRange(E->getSourceRange()), SM,
      Ctx.getLangOpts());
  if (R.isInvalid())
    return std::nullopt;
  return std::make_pair(SM.getFileOffset(R.getBegin()),
                        SM.getFileOffset(R.getEnd()));
}

std::optional<std::pair<unsigned, unsigned>>
expandedExprOffsets(const Expr *E, ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  CharSourceRange R = Lexer::makeFileCharRange(
      CharSourceRange::getTokenRange(E->getSourceRange()), SM,
      Ctx.getLangOpts());
  if (R.isInvalid() || !SM.isInMainFile(R.getBegin()) ||
      !SM.isInMainFile(R.getEnd()))
    return std::nullopt;
  return std::make_pair(SM.getFileOffset(R.getBegin()),
                        SM.getFileOffset(R.getEnd()));
}

/// Leading whitespace of the line holding Offset.
std::vector<BuiltinUse> builtinUses(const Stmt *S, ASTContext &Ctx) {
  std::vector<BuiltinUse> Out;
  forEachSubStmt(S, [&](const Stmt *Sub) {
    const auto *E = dyn_cast<PseudoObjectExpr>(Sub);
    std::optional<BuiltinRef> B = E ? matchBuiltin(E) : std::nullopt;
    if (!B)
      return;
    if (auto At = exprOffsets(E, Ctx))
      Out.push_back({*B, At->first, At->second, false});
    else
      Out.push_back({*B, 0, 0, true});
  });
  return Out;
}

bool anyInMacro(const std::vector<BuiltinUse> &Uses) {
  return any_of(Uses, [](const BuiltinUse &U) { return U.InMacro; });
}

std::string indentAt(StringRef Code, unsigned Offset) {
  size_t LineStart = Code.rfind('\n', Offset);
  LineStart = LineStart == StringRef::npos ? 0 : LineStart + 1;
  size_t End = LineStart;
  while (End < Code.size() && (Code[End] == ' ' || Code[End] == '\t'))
    ++End;
  return Code.slice(LineStart, End).str();
}

std::string indentOf(SourceLocation Loc, const ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  return indentAt(SM.getBufferData(SM.getMainFileID()),
                  SM.getFileOffset(SM.getExpansionLoc(Loc)));
}

std::optional<DefinitionLayout> definitionLayout(const FunctionDecl *F,
                                                 ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  const auto *Body = dyn_cast_or_null<CompoundStmt>(F->getBody());
  if (!Body ||
      !isRewritable(SourceRange(F->getLocation(), Body->getRBracLoc()), Ctx))
    return std::nullopt;
  DefinitionLayout L;
  L.Body = Body;
  const FunctionDecl *Pattern = F->getTemplateInstantiationPattern();
  const FunctionTemplateDecl *T =
      (Pattern ? Pattern : F)->getDescribedFunctionTemplate();
  L.Begin = SM.getFileOffset(
      SM.getExpansionLoc(T ? T->getBeginLoc() : F->getBeginLoc()));
  L.End = SM.getFileOffset(Body->getRBracLoc()) + 1;
  L.NameAt = SM.getFileOffset(F->getLocation());
  L.NameEnd = L.NameAt + F->getName().size();
  L.BodyStart = SM.getFileOffset(Body->getLBracLoc()) + 1;
  if (!(L.Begin < L.NameAt && L.NameEnd < L.End))
    return std::nullopt;
  L.Indent = Body->body_empty()
                 ? indentOf(F->getBeginLoc(), Ctx) + "  "
                 : indentOf(Body->body_front()->getBeginLoc(), Ctx);
  return L;
}

/// Adds Extra after every newline that starts a non-empty line.
std::string reindent(StringRef Text, StringRef Extra) {
  std::string Out;
  for (size_t I = 0; I < Text.size(); ++I) {
    Out.push_back(Text[I]);
    if (Text[I] == '\n' && I + 1 < Text.size() && Text[I + 1] != '\n')
      Out += Extra;
  }
  return Out;
}

/// Code[Begin, End) with the (offset, length, text) replacements applied.
std::string splice(StringRef Code, unsigned Begin, unsigned End,
                   std::vector<std::tuple<unsigned, unsigned, std::string>> R) {
  llvm::sort(R);
  std::string Out;
  unsigned Pos = Begin;
  for (const auto &[Off, Len, Text] : R) {
    Out += Code.slice(Pos, Off).str();
    Out += Text;
    Pos = Off + Len;
  }
  Out += Code.slice(Pos, End).str();
  return Out;
}

SourceLocation fileScopeBefore(const std::vector<const Decl *> &Users,
                               const ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  SourceLocation At;
  for (const Decl *Top : Users) {
    for (const DeclContext *DC = Top->getDeclContext();
         DC && !isa<TranslationUnitDecl>(DC); DC = DC->getParent())
      Top = cast<Decl>(DC);
    // A function template (or an instantiation of one) starts at its
    // `template <...>`.
    if (const auto *F = dyn_cast<FunctionDecl>(Top)) {
      if (const FunctionDecl *Pattern = F->getTemplateInstantiationPattern())
        F = Pattern;
      Top = F->getDescribedFunctionTemplate()
                ? static_cast<const Decl *>(F->getDescribedFunctionTemplate())
                : F;
    }
    SourceLocation Here = SM.getExpansionLoc(Top->getBeginLoc());
    if (At.isInvalid() || SM.isBeforeInTranslationUnit(Here, At))
      At = Here;
  }
  return At;
}

bool declaresFileScopeFunction(const ASTContext &Ctx, StringRef Name) {
  for (const Decl *D : Ctx.getTranslationUnitDecl()->decls())
    if (isa<FunctionDecl, FunctionTemplateDecl>(D))
      if (const auto *N = cast<NamedDecl>(D);
          N->getIdentifier() && N->getName() == Name)
        return true;
  return false;
}

std::string
bodyStatements(StringRef Code, const Stmt *Body,
               std::vector<std::tuple<unsigned, unsigned, std::string>> R,
               StringRef Indent, ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  std::optional<std::pair<unsigned, unsigned>> At = stmtOffsets(Body, Ctx);
  if (!At)
    return ";";
  unsigned Begin = At->first, End = At->second;
  std::string BodyIndent = indentAt(Code, At->first);
  if (const auto *CS = dyn_cast<CompoundStmt>(Body)) {
    Begin = SM.getFileOffset(CS->getLBracLoc()) + 1;
    End = SM.getFileOffset(CS->getRBracLoc());
    if (!CS->body_empty())
      BodyIndent =
          indentAt(Code, SM.getFileOffset(CS->body_front()->getBeginLoc()));
  }
  std::string Text =
      StringRef(splice(Code, Begin, End, std::move(R))).trim().str();
  if (Text.empty())
    return ";";
  std::string Extra = Indent.size() > BodyIndent.size()
                          ? Indent.substr(BodyIndent.size()).str()
                          : std::string();
  return reindent(Text, Extra);
}

std::optional<LaunchPieces> launchPieces(const CUDAKernelCallExpr *Call,
                                         ASTContext &HC) {
  if (!Call || !isRewritable(Call->getSourceRange(), HC))
    return std::nullopt;
  LaunchPieces P;
  const CallExpr *Config = Call->getConfig();
  for (unsigned I = 0; I < Config->getNumArgs(); ++I) {
    const Expr *A = userWrittenLaunchArg(Config->getArg(I));
    if (!A)
      break;
    P.Config.push_back(sourceText(A->getSourceRange(), HC));
    P.ConfigExprs.push_back(A);
    if (P.Config.back().empty())
      return std::nullopt;
  }
  for (const Expr *A : Call->arguments()) {
    std::string Text = sourceText(A->getSourceRange(), HC);
    if (Text.empty() || isa<CXXDefaultArgExpr>(A))
      return std::nullopt;
    P.Args.push_back(Text);
  }
  const auto *Ref =
      dyn_cast<DeclRefExpr>(Call->getCallee()->IgnoreParenImpCasts());
  if (Ref && Ref->hasExplicitTemplateArgs()) {
    P.Callee = sourceText(
        SourceRange(Ref->getBeginLoc(), Ref->getNameInfo().getEndLoc()), HC);
    P.CalleeArgs =
        sourceText(SourceRange(Ref->getLAngleLoc(), Ref->getRAngleLoc()), HC);
    if (P.CalleeArgs.empty())
      return std::nullopt;
  } else {
    P.Callee = sourceText(Call->getCallee()->getSourceRange(), HC);
  }
  if (P.Config.size() < 2 || P.Callee.empty())
    return std::nullopt;
  return P;
}

std::optional<std::tuple<unsigned, unsigned, std::string>>
launchBoundsReplacement(const FunctionDecl *F, unsigned Threads,
                        ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  std::string Bounds = "__launch_bounds__(" + std::to_string(Threads) + ")";
  const auto *A = F->getAttr<CUDALaunchBoundsAttr>();
  if (!A)
    return std::make_tuple(
        SM.getFileOffset(SM.getExpansionLoc(F->getLocation())), 0u,
        Bounds + " ");
  auto At = attrOffsets(A, Ctx);
  if (!At)
    return std::nullopt;
  return std::make_tuple(At->first, At->second - At->first, Bounds);
}

std::optional<std::pair<unsigned, unsigned>> attrOffsets(const Attr *A,
                                                         ASTContext &Ctx) {
  // Spelled through a macro (__launch_bounds__(256), __shared__): the
  // expansion range of the macro's invocation.
  const SourceManager &SM = Ctx.getSourceManager();
  CharSourceRange R = SM.getExpansionRange(A->getRange());
  if (!R.isValid() || !SM.isInMainFile(R.getBegin()))
    return std::nullopt;
  unsigned From = SM.getFileOffset(R.getBegin());
  unsigned To = SM.getFileOffset(R.getEnd());
  if (R.isTokenRange())
    To += Lexer::MeasureTokenLength(R.getEnd(), SM, Ctx.getLangOpts());
  return std::make_pair(From, To);
}

} // namespace kopt
