//===- DeviationFold.cpp - Sums folded into earlier loops -----------------===//
#include "DeviationFold.h"
#include "SourceLayout.h"
#include "kopt/Analysis/Names.h"

#include "clang/AST/Attr.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "clang/Basic/SourceManager.h"

#include <map>
#include <set>

using namespace clang;
using namespace clang::ast_matchers;
using namespace llvm;

namespace kopt {

namespace {

bool inside(const ForStmt *Loop, LineCol L, ASTContext &AC) {
  LineCol Begin = lineCol(Loop->getBeginLoc(), AC);
  LineCol End = lineCol(Loop->getEndLoc(), AC);
  return std::tie(Begin.Line, Begin.Col) <= std::tie(L.Line, L.Col) &&
         std::tie(L.Line, L.Col) <= std::tie(End.Line, End.Col);
}

/// The loop's offsets, from the line of its `#pragma` when it has one
/// (the pragma goes with the loop: before it nothing may be inserted, and
/// B's is replaced with it).
std::optional<std::pair<unsigned, unsigned>> loopOffsets(const ForStmt *Loop,
                                                         ASTContext &AC) {
  std::optional<std::pair<unsigned, unsigned>> R = stmtOffsets(Loop, AC);
  const auto *AS = dyn_cast_or_null<AttributedStmt>(
      AC.getParentMapContext().getParents(*Loop).empty()
          ? nullptr
          : AC.getParentMapContext().getParents(*Loop)[0].get<Stmt>());
  if (!R || !AS)
    return R;
  const SourceManager &SM = AC.getSourceManager();
  unsigned First = R->first;
  for (const Attr *At : AS->getAttrs()) {
    if (!isa<LoopHintAttr>(At))
      return std::nullopt;
    SourceLocation L = SM.getExpansionLoc(At->getLocation());
    if (SM.isInMainFile(L))
      First = std::min(First, SM.getFileOffset(L));
  }
  StringRef Code = SM.getBufferData(SM.getMainFileID());
  size_t Line = Code.rfind('\n', First);
  Line = Line == StringRef::npos ? 0 : Line + 1;
  size_t Hash = Code.find_first_not_of(" \t", Line);
  if (Hash == StringRef::npos || Code[Hash] != '#')
    return std::nullopt; // `_Pragma` or the pragma after other text
  return std::make_pair(unsigned(Hash), R->second);
}

/// The start of Offset's line when only blanks precede Offset on it.
std::optional<unsigned> ownLine(StringRef Code, unsigned Offset) {
  size_t Line = Code.rfind('\n', Offset);
  Line = Line == StringRef::npos ? 0 : Line + 1;
  if (!Code.slice(Line, Offset).trim().empty())
    return std::nullopt;
  return unsigned(Line);
}

} // namespace

std::vector<DeviationSumLoop> deviationSumLoops(KernelContext &KC,
                                                DeviationTerm Term,
                                                StringRef Why, StringRef None) {
  ASTContext &AC = KC.pass().deviceContext();
  std::vector<DeviationSumLoop> Out;
  bool Refused = false;
  for (const BoundNodes &N :
       match(findAll(forStmt().bind("f")), *KC.kernel().Decl->getBody(), AC)) {
    auto M = matchDeviationSum(N.getNodeAs<ForStmt>("f"), Term, AC);
    if (!M)
      continue;
    if (const auto *R = std::get_if<Refusal>(&*M)) {
      KC.refused(*R, Why);
      Refused = true;
    } else {
      Out.push_back(std::get<DeviationSumLoop>(*M));
    }
  }
  if (Out.empty() && !Refused)
    KC.missed(Why + None);
  return Out;
}

const ReReadGroup *foldPartner(KernelContext &KC, const ReReadLoops &Found,
                               const DeviationSumLoop &B, StringRef Why) {
  ASTContext &AC = KC.pass().deviceContext();
  LineCol Loc = lineCol(B.Loop->getBeginLoc(), AC);
  std::string Elem = sourceText(B.Element->getSourceRange(), AC);
  const ReReadGroup *G = nullptr;
  for (const ReReadGroup &R : Found.Groups)
    if (llvm::is_contained(R.Bs, B.Loop))
      G = &R;
  if (!G) {
    bool Said = false;
    for (const Refusal &R : Found.Refusals)
      if (inside(B.Loop, R.Loc, AC)) {
        KC.refused(R, Why);
        Said = true;
      }
    if (!Said)
      KC.missed(Loc, Why +
                         "no earlier loop of the same compound statement "
                         "reads '" +
                         Elem + "' over the same iterations");
    return nullptr;
  }
  const auto *Base =
      dyn_cast<DeclRefExpr>(B.Load->getBase()->IgnoreParenImpCasts());
  std::string Index =
      withoutSpaces(sourceText(B.Load->getIdx()->getSourceRange(), AC));
  bool Cached = Base && llvm::any_of(G->Loads, [&](const CachedLoad &C) {
                  return C.K.Base == Base->getDecl() && C.K.Index == Index;
                });
  LineCol ALoc = lineCol(G->A->getBeginLoc(), AC);
  if (!Cached) {
    KC.missed(Loc, Why + "the loop at " + str(ALoc) + " does not read '" +
                       Elem +
                       "' as a cacheable element (a __restrict__ pointer "
                       "the kernel only reads, loaded on every iteration)");
    return nullptr;
  }
  std::set<std::string> Shadowed;
  for (const VarDecl *V : varsDeclaredIn(G->A->getBody()))
    Shadowed.insert(V->getNameAsString());
  std::string Clash;
  forEachSubStmt(B.Element, [&](const Stmt *S) {
    if (const auto *Ref = dyn_cast<DeclRefExpr>(S))
      if (Shadowed.count(Ref->getDecl()->getNameAsString()))
        Clash = Ref->getDecl()->getNameAsString();
  });
  if (!Clash.empty()) {
    KC.missed(Loc, Why + "the loop at " + str(ALoc) + " declares '" + Clash +
                       "', which '" + Elem + "' names");
    return nullptr;
  }
  return G;
}

FoldLayout foldLayout(const ForStmt *A, const ForStmt *B, ASTContext &AC) {
  StringRef Code = AC.getSourceManager().getBufferData(
      AC.getSourceManager().getMainFileID());
  FoldLayout L;
  std::optional<std::pair<unsigned, unsigned>> AR = stmtOffsets(A, AC);
  L.In = AR ? indentAt(Code, AR->first) : "";
  L.BodyIn = L.In + "  ";
  if (const auto *CS = dyn_cast<CompoundStmt>(A->getBody());
      CS && !CS->body_empty())
    if (auto First = stmtOffsets(CS->body_front(), AC);
        First && indentAt(Code, First->first).size() > L.In.size() &&
        StringRef(indentAt(Code, First->first)).starts_with(L.In))
      L.BodyIn = indentAt(Code, First->first);
  L.Step = L.BodyIn.substr(L.In.size());
  std::optional<std::pair<unsigned, unsigned>> BR = stmtOffsets(B, AC);
  L.BIn = BR ? indentAt(Code, BR->first) : L.In;
  return L;
}

std::string deviationType(const DeviationSumLoop &B, ASTContext &AC) {
  PrintingPolicy PP(AC.getLangOpts());
  PP.SuppressTagKeyword = true;
  QualType AccType = B.Acc->getType().getUnqualifiedType();
  return AccType.getCanonicalType() == B.Type ? typeAsWritten(AccType, PP)
                                              : B.Type.getAsString(PP);
}

std::string literalOf(StringRef Type, StringRef Value) {
  if (Type == "float")
    return (Value + ".0f").str();
  if (Type == "double")
    return (Value + ".0").str();
  return ("static_cast<" + Type + ">(" + Value + ")").str();
}

std::string foldElement(const DeviationFold &F, ASTContext &AC) {
  std::string Text = sourceText(F.B.Element->getSourceRange(), AC);
  if (F.B.Element->getType().getCanonicalType().getUnqualifiedType() ==
      F.B.Type)
    return Text;
  return "static_cast<" + F.Type + ">(" + Text + ")";
}

std::string foldCenter(const DeviationFold &F, ASTContext &AC) {
  std::string Text = sourceText(F.B.Center->getSourceRange(), AC);
  const Expr *C = F.B.Center->IgnoreParenImpCasts();
  if (isa<DeclRefExpr, FloatingLiteral, IntegerLiteral, ParenExpr>(C))
    return Text;
  return "(" + Text + ")";
}

std::string firstElementLines(const DeviationFold &F, StringRef Name,
                              StringRef Init, ASTContext &AC) {
  PrintingPolicy PP(AC.getLangOpts());
  PP.SuppressTagKeyword = true;
  const ForStmt *A = F.G->A;
  CountedLoop CL = *matchCountedLoop(A);
  const std::string &In = F.Layout.In, &Step = F.Layout.Step;
  return (In + F.Type + " " + Name + " = " + Init + ";\n" + In + "{\n" + In +
          Step + typeAsWritten(CL.Var->getType().getUnqualifiedType(), PP) +
          " " + CL.Var->getNameAsString() + " = " +
          sourceText(CL.Init->getSourceRange(), AC) + ";\n" + In + Step +
          "if (" + sourceText(A->getCond()->getSourceRange(), AC) + ")\n" + In +
          Step + Step + Name + " = " + foldElement(F, AC) + ";\n" + In + "}\n")
      .str();
}

bool applyFolds(KernelContext &KC, const std::vector<DeviationFold> &Folds,
                StringRef Why) {
  ASTContext &AC = KC.pass().deviceContext();
  StringRef Code = KC.pass().source().Code;
  EditSet Edits(KC.pass().source().Path);
  // Everything one A gets, in the order of its folds.
  std::map<const ForStmt *, std::pair<std::string, std::string>> PerA;
  std::vector<const ForStmt *> Order;
  auto Fail = [&](LineCol Loc, const Twine &What) {
    KC.missed(Loc, Why + What);
    return false;
  };
  for (const DeviationFold &F : Folds) {
    const ForStmt *A = F.G->A;
    std::optional<std::pair<unsigned, unsigned>> AR = loopOffsets(A, AC);
    std::optional<std::pair<unsigned, unsigned>> BR = loopOffsets(F.B.Loop, AC);
    LineCol Loc = lineCol(F.B.Loop->getBeginLoc(), AC);
    if (!AR || !BR)
      return Fail(Loc, "a loop is written in a macro");
    auto &[Before, Tail] = PerA[A];
    if (Before.empty() && Tail.empty())
      Order.push_back(A);
    Before += F.Before;
    Tail += F.Tail;
    std::string Closed = F.Closed;
    unsigned From = BR->first;
    if (std::optional<unsigned> Line = ownLine(Code, From)) {
      From = *Line;
      Closed = F.Layout.BIn + Closed;
    }
    if (Error E = Edits.replaceChars(From, BR->second - From, Closed))
      return Fail(Loc, toString(std::move(E)));
  }
  for (const ForStmt *A : Order) {
    const auto &[Before, Tail] = PerA[A];
    std::optional<std::pair<unsigned, unsigned>> AR = loopOffsets(A, AC);
    std::optional<std::pair<unsigned, unsigned>> Body =
        stmtOffsets(A->getBody(), AC);
    LineCol ALoc = lineCol(A->getBeginLoc(), AC);
    if (!Body)
      return Fail(ALoc, "the loop's body is written in a macro");
    FoldLayout L = foldLayout(A, A, AC);
    std::optional<unsigned> Line = ownLine(Code, AR->first);
    Error E = Line ? Edits.replaceChars(*Line, 0, Before)
                   : Edits.replaceChars(AR->first, 0,
                                        Before.substr(L.In.size()) + L.In);
    if (!E) {
      if (isa<CompoundStmt>(A->getBody())) {
        // Before the closing brace, after the last statement.
        unsigned Close = Body->second - 1;
        size_t LineStart = Code.rfind('\n', Close);
        bool OwnLine = LineStart != StringRef::npos &&
                       Code.slice(LineStart + 1, Close).trim().empty();
        E = OwnLine ? Edits.replaceChars(LineStart + 1, 0, Tail)
                    : Edits.replaceChars(Close, 0, "\n" + Tail + L.In);
      } else {
        // A body of one statement gets braces, the first after the loop's
        // `)`.
        unsigned Paren =
            AC.getSourceManager().getFileOffset(A->getRParenLoc()) + 1;
        std::string Stmt = Code.slice(Body->first, Body->second).str();
        E = Edits.replaceChars(Paren, Body->second - Paren,
                               " {\n" + L.In + L.Step + Stmt + "\n" + Tail +
                                   L.In + "}");
      }
    }
    if (E)
      return Fail(ALoc, toString(std::move(E)));
  }
  if (Error E = KC.edits().merge(Edits))
    return Fail(KC.kernel().Loc, toString(std::move(E)));
  return true;
}

} // namespace kopt
