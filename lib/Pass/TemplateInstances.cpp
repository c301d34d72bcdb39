//===- TemplateInstances.cpp - One rewrite for every instantiation --------===//
//
// A template kernel is analysed as Clang instantiated it: each instantiation
// has types and constants a pass can reason about, and its statements keep
// the locations of the template's text, so an edit proposed for it is an
// edit of that text. The template is rewritten only when every
// instantiation the file uses asks for the same edits there: then each of
// them was checked, by the pass's own legality rules, with exactly the text
// it will be instantiated from. An explicit specialization is a kernel of
// its own, seen with its own launches only.
//
//===----------------------------------------------------------------------===//

#include "kopt/Pass/Pass.h"

#include "clang/AST/DeclTemplate.h"
#include "clang/Basic/CharInfo.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/STLExtras.h"

#include <set>
#include <tuple>
#include <variant>

using namespace clang;
using namespace llvm;

namespace kopt {

namespace {

using tooling::Replacement;

/// The template's text [Begin, End]: from `template` through its closing
/// brace. An edit at End (a copy inserted after it) belongs to it.
struct TextRange {
  unsigned Begin = 0, End = 0;
  bool touches(const Replacement &R) const {
    return R.getOffset() <= End && R.getOffset() + R.getLength() >= Begin;
  }
};

std::optional<TextRange> templateRange(const FunctionTemplateDecl *T,
                                       const ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  CharSourceRange R = SM.getExpansionRange(T->getSourceRange());
  if (R.isInvalid() || !SM.isInMainFile(R.getBegin()))
    return std::nullopt;
  unsigned End = SM.getFileOffset(R.getEnd());
  if (R.isTokenRange())
    End += Lexer::MeasureTokenLength(R.getEnd(), SM, Ctx.getLangOpts());
  return TextRange{SM.getFileOffset(R.getBegin()), End};
}

bool containsWord(StringRef Text, StringRef Word) {
  for (size_t At = Text.find(Word); At != StringRef::npos;
       At = Text.find(Word, At + 1)) {
    bool Before = At > 0 && isAsciiIdentifierContinue(Text[At - 1]);
    bool After = At + Word.size() < Text.size() &&
                 isAsciiIdentifierContinue(Text[At + Word.size()]);
    if (!Before && !After)
      return true;
  }
  return false;
}

/// A template argument as C++ writes it ("float", "256").
std::string argumentText(const TemplateArgument &A, const ASTContext &Ctx) {
  PrintingPolicy PP(Ctx.getLangOpts());
  PP.SuppressTagKeyword = true;
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  A.print(PP, OS, /*IncludeType=*/false);
  return Text;
}

/// The text of each template argument of Template's instantiations, by
/// parameter index ("float", "256").
std::vector<std::set<std::string>> argumentTexts(const FunctionTemplateDecl *T,
                                                 const KernelInfo &Template) {
  std::vector<std::set<std::string>> Out(T->getTemplateParameters()->size());
  for (const KernelInfo &I : Template.Instances) {
    const TemplateArgumentList *Args =
        I.Decl ? I.Decl->getTemplateSpecializationArgs() : nullptr;
    for (unsigned N = 0; Args && N < Args->size() && N < Out.size(); ++N)
      Out[N].insert(argumentText(Args->get(N), T->getASTContext()));
  }
  return Out;
}

/// A template parameter that an edit of the template's text replaces by
/// its argument (`T` by `float`, `BLOCK` by `256`): the old text names it,
/// the new one does not, and names an argument the old one did not. An edit
/// that drops a parameter's use without writing its value (a tree from
/// `BLOCK / 2` that becomes shuffles) is not one.
std::optional<std::string>
fixedParameter(const FunctionTemplateDecl *T,
               const std::vector<std::set<std::string>> &Arguments,
               const Replacement &R, StringRef Code) {
  StringRef Old = Code.substr(R.getOffset(), R.getLength());
  StringRef New = R.getReplacementText();
  const TemplateParameterList *Params = T->getTemplateParameters();
  for (unsigned N = 0; N < Params->size(); ++N) {
    const NamedDecl *P = Params->getParam(N);
    if (!P->getIdentifier() || !containsWord(Old, P->getName()) ||
        containsWord(New, P->getName()))
      continue;
    for (const std::string &A : Arguments[N])
      if (containsWord(New, A) && !containsWord(Old, A))
        return P->getName().str();
  }
  return std::nullopt;
}

using EditKey = std::tuple<unsigned, unsigned, std::string>;

EditKey key(const Replacement &R) {
  return {R.getOffset(), R.getLength(), R.getReplacementText().str()};
}

using RemarkKey = std::tuple<int, unsigned, unsigned, std::string>;

RemarkKey key(const Remark &R) { return {R.K, R.Line, R.Col, R.Message}; }

/// `(T == float && N == 256) || (...)`: the instantiations the pass checked,
/// as a condition on the template's parameters, or why there is none.
std::variant<std::string, Refusal>
checkedArguments(const FunctionTemplateDecl *T, const KernelInfo &Template) {
  std::string Cond;
  const TemplateParameterList *Params = T->getTemplateParameters();
  for (const KernelInfo &I : Template.Instances) {
    const TemplateArgumentList *Args =
        I.Decl ? I.Decl->getTemplateSpecializationArgs() : nullptr;
    if (!Args || Args->size() != Params->size())
      return Refusal{"its arguments are not one per parameter", Template.Loc};
    std::string One;
    for (unsigned N = 0; N < Params->size(); ++N) {
      const NamedDecl *P = Params->getParam(N);
      const TemplateArgument &A = Args->get(N);
      if (!P->getIdentifier() || P->isParameterPack() ||
          isa<TemplateTemplateParmDecl>(P))
        return Refusal{"a parameter is unnamed, a pack or a template",
                       Template.Loc};
      std::string Text = argumentText(A, T->getASTContext());
      std::string Name = P->getName().str();
      One += (One.empty() ? "" : " && ") +
             (isa<TemplateTypeParmDecl>(P)
                  ? "__is_same(" + Name + ", " + Text + ")"
                  : "(" + Name + ") == (" + Text + ")");
    }
    Cond += (Cond.empty() ? "(" : " ||\n      (") + One + ")";
  }
  return Cond;
}

/// What a pass proposed for one kernel, run on its own.
struct Outcome {
  const KernelInfo *Instance;
  EditSet Edits;
  std::vector<Remark> Remarks;
};

/// Runs Run on Instance in the view of the program where it stands for
/// Template (itself, for an explicit specialization) with its own launches.
Outcome runInView(PassContext &Ctx, const KernelInfo &Template,
                  const KernelInfo &Instance,
                  function_ref<void(KernelContext &)> Run) {
  ProgramInfo View = Ctx.info().forInstance(Template, Instance);
  // Found by its declaration: an explicit specialization has the name.
  const KernelInfo *Mine = nullptr;
  for (const KernelInfo &K : View.Kernels)
    if (K.Decl == Instance.Decl)
      Mine = &K;
  PassContext Sub(Ctx.source(), View, Ctx.params(), Ctx.estimator());
  KernelContext KC(Sub, *Mine);
  Run(KC);
  return {&Instance, Sub.takeEdits(), Sub.takeRemarks()};
}

} // namespace

bool runOnInstances(PassContext &Ctx, const KernelInfo &Template,
                    function_ref<void(KernelContext &)> Run) {
  ASTContext &AC = Ctx.deviceContext();
  const FunctionTemplateDecl *T =
      Template.Decl ? Template.Decl->getDescribedFunctionTemplate() : nullptr;
  std::optional<TextRange> Range = T ? templateRange(T, AC) : std::nullopt;
  auto Missed = [&](const Twine &Why) {
    Ctx.missed(Template.Name, Template.Loc,
               "template kernel not rewritten: " + Why);
    return false;
  };
  if (!Range)
    return Missed("it is written in a macro");
  if (Template.Instances.empty())
    return Missed("this file instantiates it nowhere (no launch or "
                  "instantiation of '" +
                  Template.Name + "' to analyse)");

  std::vector<Outcome> Outcomes;
  for (const KernelInfo &I : Template.Instances)
    Outcomes.push_back(runInView(Ctx, Template, I, Run));

  // Remarks every instantiation made once; the others with its name.
  std::map<RemarkKey, unsigned> Seen;
  for (const Outcome &O : Outcomes) {
    std::set<RemarkKey> Mine;
    for (const Remark &R : O.Remarks)
      if (Mine.insert(key(R)).second)
        ++Seen[key(R)];
  }
  std::set<RemarkKey> Emitted;
  auto KeepRemarks = [&](bool OnlyMissed) {
    for (const Outcome &O : Outcomes)
      for (Remark R : O.Remarks) {
        if (OnlyMissed && R.K != Remark::Missed)
          continue;
        bool Everywhere = Seen[key(R)] == Outcomes.size();
        if (Everywhere && !Emitted.insert(key(R)).second)
          continue;
        if (!Everywhere)
          R.Message += " (in " + R.Function + O.Instance->TemplateArgs + ")";
        Ctx.add(std::move(R));
      }
  };

  // The edits of the template's text must be one and the same.
  std::set<EditKey> First;
  for (const Replacement &R : Outcomes.front().Edits.replacements())
    if (Range->touches(R))
      First.insert(key(R));
  const Outcome *Differs = nullptr;
  for (const Outcome &O : Outcomes) {
    std::set<EditKey> Mine;
    for (const Replacement &R : O.Edits.replacements())
      if (Range->touches(R))
        Mine.insert(key(R));
    if (Mine != First) {
      Differs = &O;
      break;
    }
  }
  if (Differs) {
    KeepRemarks(/*OnlyMissed=*/true);
    return Missed("its instantiations " + Template.Name +
                  Outcomes.front().Instance->TemplateArgs + " and " +
                  Template.Name + Differs->Instance->TemplateArgs +
                  " would be rewritten differently");
  }
  auto Arguments = argumentTexts(T, Template);
  for (const Replacement &R : Outcomes.front().Edits.replacements())
    if (Range->touches(R))
      if (std::optional<std::string> P =
              fixedParameter(T, Arguments, R, Ctx.source().Code)) {
        KeepRemarks(/*OnlyMissed=*/true);
        return Missed("the rewrite would write an argument in place of "
                      "template parameter '" +
                      *P + "'");
      }
  EditSet All(Ctx.source().Path);
  // A template changed in place now holds text checked for these
  // instantiations only: the compiler refuses any other. Text inserted
  // just before or just after it (a helper, a copy) does not change it.
  bool InPlace = llvm::any_of(
      Outcomes.front().Edits.replacements(), [&](const Replacement &R) {
        bool Beside = R.getLength() == 0 && (R.getOffset() == Range->Begin ||
                                             R.getOffset() == Range->End);
        return Range->touches(R) && !Beside;
      });
  if (InPlace) {
    auto Cond = checkedArguments(T, Template);
    if (auto *Why = std::get_if<Refusal>(&Cond)) {
      KeepRemarks(/*OnlyMissed=*/true);
      return Missed(Why->Message);
    }
    const auto *Body = cast<CompoundStmt>(Template.Decl->getBody());
    const SourceManager &SM = AC.getSourceManager();
    // The first statement's indentation, or one level in from the brace's
    // line when the statement shares it.
    StringRef Code = Ctx.source().Code;
    unsigned Brace = SM.getFileOffset(Body->getLBracLoc());
    unsigned At = Body->body_empty() ? Brace
                                     : SM.getFileOffset(SM.getExpansionLoc(
                                           Body->body_front()->getBeginLoc()));
    unsigned Line = Code.rfind('\n', At) + 1;
    std::string Indent = Code.slice(Line, At).take_while(isSpace).str();
    if (Line <= Brace)
      Indent =
          Code.substr(Code.rfind('\n', Brace) + 1).take_while(isSpace).str() +
          "  ";
    std::string Pin = "\n" + Indent + "static_assert(" +
                      std::get<std::string>(Cond) + ",\n" + Indent +
                      "              \"kopt rewrote '" + Template.Name +
                      "' for these template arguments only\");";
    if (Error E = All.insertAfterToken(Body->getLBracLoc(), Pin, AC)) {
      KeepRemarks(/*OnlyMissed=*/true);
      return Missed(toString(std::move(E)));
    }
  }
  for (const Outcome &O : Outcomes)
    if (Error E = All.merge(O.Edits)) {
      KeepRemarks(/*OnlyMissed=*/true);
      return Missed(toString(std::move(E)));
    }
  if (Error E = Ctx.edits().merge(All)) {
    KeepRemarks(/*OnlyMissed=*/true);
    return Missed(toString(std::move(E)));
  }
  KeepRemarks(/*OnlyMissed=*/false);
  return true;
}

void runOnSpecialization(PassContext &Ctx, const KernelInfo &K,
                         function_ref<void(KernelContext &)> Run) {
  Outcome O = runInView(Ctx, K, K, Run);
  for (Remark &R : O.Remarks)
    Ctx.add(std::move(R));
  if (Error E = Ctx.edits().merge(O.Edits))
    Ctx.missed(K.Name, K.Loc,
               "specialization not rewritten: " + toString(std::move(E)));
}

} // namespace kopt
