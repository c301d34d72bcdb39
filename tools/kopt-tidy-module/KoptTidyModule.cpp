//===- KoptTidyModule.cpp - kopt's passes as clang-tidy checks ------------===//
//
// A plugin for Debian's clang-tidy-22:
//
//   clang-tidy-22 --load=kopt-tidy-module.so --checks='-*,kopt-*' f.cu -- ...
//
// registers one check per pass, `kopt-<pass>`, whose options are the pass's
// parameters in CamelCase (kopt-vectorize-loads.Width). The checks adapt
// kopt's passes through the Tidy library (the same findings and verified
// fix-its as kopt-tidy); nothing of a pass is reimplemented here.
//
// clang-tidy parses a CUDA file once, for the device. kopt needs both sides
// (kernels and their launch sites), so the first kopt check to run on a
// file parses it with kopt's frontend, with the -I, -iquote, -D and -U flags
// and the GPU arch of clang-tidy's own parse, and runs every enabled kopt
// check at once; the others read the shared result.
//
//===----------------------------------------------------------------------===//

#include "kopt/Frontend/CudaFrontend.h"
#include "kopt/Passes/BuiltinPasses.h"
#include "kopt/Tidy/Checks.h"
#include "kopt/Tidy/FileChecker.h"

#include "clang-tidy/ClangTidyCheck.h"
#include "clang-tidy/ClangTidyModule.h"
#include "clang/AST/ASTContext.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Basic/TargetInfo.h"
#include "clang/Lex/HeaderSearch.h"
#include "clang/Lex/HeaderSearchOptions.h"
#include "clang/Lex/Preprocessor.h"
#include "clang/Lex/PreprocessorOptions.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Path.h"

#include <mutex>

using namespace clang;
using namespace clang::ast_matchers;
using namespace clang::tidy;

namespace kopt {
namespace {

/// The parse flags clang-tidy's own parse of the file used.
struct ParseFlags {
  std::vector<std::string> Args;
  std::string GpuArch = "sm_90";
  std::string ResourceDir;

  std::string key() const {
    return GpuArch + "\n" + ResourceDir + "\n" + llvm::join(Args, "\n");
  }
};

ParseFlags flagsOf(const Preprocessor &PP) {
  ParseFlags F;
  const HeaderSearchOptions &HS =
      PP.getHeaderSearchInfo().getHeaderSearchOpts();
  F.ResourceDir = HS.ResourceDir;
  for (const HeaderSearchOptions::Entry &E : HS.UserEntries) {
    if (E.Group == frontend::Angled)
      F.Args.push_back("-I" + E.Path);
    else if (E.Group == frontend::Quoted)
      F.Args.push_back("-iquote" + E.Path);
  }
  for (const auto &[Macro, IsUndef] : PP.getPreprocessorOpts().Macros)
    F.Args.push_back((IsUndef ? "-U" : "-D") + Macro);
  for (const TargetInfo *T : {&PP.getTargetInfo(), PP.getAuxTargetInfo()})
    if (T && T->getTriple().isNVPTX() &&
        llvm::StringRef(T->getTargetOpts().CPU).starts_with("sm_"))
      F.GpuArch = T->getTargetOpts().CPU;
  return F;
}

/// The findings of the last file, shared by the checks that run on it.
class SharedFindings {
public:
  std::shared_ptr<const std::vector<Finding>>
  get(ClangTidyContext &Ctx, llvm::StringRef Path, llvm::StringRef Code,
      const ParseFlags &Flags, std::string &Error) {
    std::lock_guard<std::mutex> Lock(Mutex);
    std::string Key =
        (Path + "\n" +
         llvm::toHex(llvm::StringRef(std::to_string(llvm::hash_value(Code)))) +
         "\n" + Flags.key())
            .str();
    if (Key == LastKey) {
      Error = LastError;
      return Last;
    }
    LastKey = Key;
    Last = compute(Ctx, Path, Code, Flags, LastError);
    Error = LastError;
    return Last;
  }

private:
  static std::shared_ptr<const std::vector<Finding>>
  compute(ClangTidyContext &Ctx, llvm::StringRef Path, llvm::StringRef Code,
          const ParseFlags &Flags, std::string &Error) {
    const PassRegistry &Registry = builtinPasses();
    const ClangTidyOptions::OptionMap &Options = Ctx.getOptions().CheckOptions;
    std::vector<CheckRequest> Requests;
    for (const PassSpec &Spec : Registry.passes()) {
      std::string Name = checkName(Spec);
      if (!Ctx.isCheckEnabled(Name))
        continue;
      auto Lookup = [&](llvm::StringRef Opt) -> std::optional<std::string> {
        auto It = Options.find(Name + "." + Opt.str());
        if (It == Options.end())
          return std::nullopt;
        return It->getValue().Value;
      };
      // A bad value is reported by the check's constructor.
      if (llvm::Expected<PassInstance> I = checkInstance(Spec, Lookup))
        Requests.push_back({Name, std::move(*I)});
      else
        llvm::consumeError(I.takeError());
    }
    auto Out = std::make_shared<std::vector<Finding>>();
    FrontendOptions FO;
    FO.GpuArch = Flags.GpuArch;
    FO.ResourceDir = Flags.ResourceDir;
    FO.ExtraArgs = Flags.Args;
    CudaFrontend Frontend(FO);
    llvm::Expected<std::unique_ptr<FileChecker>> Checker =
        FileChecker::parse(Frontend, Path, Code);
    if (!Checker) {
      // One line: the side that failed and its first diagnostic.
      llvm::handleAllErrors(
          Checker.takeError(),
          [&](const ParseError &PE) {
            Error =
                std::string(PE.Side == CudaSide::Device ? "device" : "host") +
                "-side parse failed";
            if (!PE.Diagnostics.empty())
              Error += ": " + PE.Diagnostics.front();
          },
          [&](const llvm::ErrorInfoBase &E) { Error = E.message(); });
      return Out;
    }
    *Out = (*Checker)->run(Requests);
    return Out;
  }

  std::mutex Mutex;
  std::string LastKey, LastError;
  std::shared_ptr<const std::vector<Finding>> Last;
};

SharedFindings &sharedFindings() {
  static SharedFindings S;
  return S;
}

bool showMissed(const ClangTidyCheck::OptionsView &Options,
                ClangTidyContext &Context) {
  std::optional<llvm::StringRef> V = Options.get("ShowMissed");
  if (!V) {
    const ClangTidyOptions::OptionMap &Global =
        Context.getOptions().CheckOptions;
    auto It = Global.find("ShowMissed");
    if (It != Global.end())
      V = It->getValue().Value;
  }
  return V && (V->equals_insensitive("true") || *V == "1");
}

class KoptPassCheck : public ClangTidyCheck {
public:
  KoptPassCheck(llvm::StringRef Name, ClangTidyContext *Context,
                const PassSpec &Spec)
      : ClangTidyCheck(Name, Context), Spec(Spec), Ctx(*Context),
        // Missed remarks as notes: `<check>.ShowMissed` or the global
        // `ShowMissed` option; off by default, as kopt-tidy's. (Read as
        // text: clang-tidy-22 does not export getLocalOrGlobal<bool>.)
        ShowMissed(showMissed(Options, *Context)) {
    auto Lookup = [&](llvm::StringRef Opt) -> std::optional<std::string> {
      if (std::optional<llvm::StringRef> V = Options.get(Opt))
        return V->str();
      return std::nullopt;
    };
    if (llvm::Expected<PassInstance> I = checkInstance(Spec, Lookup); !I)
      configurationDiag("%0") << llvm::toString(I.takeError());
  }

  void storeOptions(ClangTidyOptions::OptionMap &Opts) override {
    auto Lookup = [&](llvm::StringRef Opt) -> std::optional<std::string> {
      if (std::optional<llvm::StringRef> V = Options.get(Opt))
        return V->str();
      return std::nullopt;
    };
    for (const ParamSpec &P : Spec.Params) {
      std::optional<std::string> V = Lookup(optionName(P.Key));
      Options.store(Opts, optionName(P.Key),
                    V ? *V : checkDefault(Spec, P).str());
    }
  }

  void registerPPCallbacks(const SourceManager &, Preprocessor *PP,
                           Preprocessor *) override {
    Flags = flagsOf(*PP);
  }

  void registerMatchers(MatchFinder *Finder) override {
    Finder->addMatcher(translationUnitDecl().bind("tu"), this);
  }

  void check(const MatchFinder::MatchResult &Result) override {
    const SourceManager &SM = *Result.SourceManager;
    FileID Main = SM.getMainFileID();
    OptionalFileEntryRef Entry = SM.getFileEntryRefForID(Main);
    if (!Entry)
      return;
    llvm::SmallString<256> Path(Entry->getName());
    llvm::sys::fs::make_absolute(Path);
    llvm::sys::path::remove_dots(Path, /*remove_dot_dot=*/true);
    llvm::StringRef Code = SM.getBufferData(Main);
    std::string Error;
    std::shared_ptr<const std::vector<Finding>> Findings =
        sharedFindings().get(Ctx, Path, Code, Flags, Error);
    SourceLocation Start = SM.getLocForStartOfFile(Main);
    if (!Error.empty()) {
      // Reported once, by the first enabled kopt check.
      if (isFirstEnabled())
        diag(Start, "kopt could not parse this file for the device and the "
                    "host; no kopt check ran: %0")
            << Error;
      return;
    }
    for (const Finding &F : *Findings) {
      if (F.Check != getID())
        continue;
      SourceLocation Loc = Start.getLocWithOffset(F.Offset);
      if (F.Severity == Finding::Note) {
        if (!F.Missed || ShowMissed)
          diag(Loc, "%0", DiagnosticIDs::Note) << F.Message;
        continue;
      }
      DiagnosticBuilder D = diag(Loc, "%0") << F.Message;
      for (const tooling::Replacement &R : F.Fix) {
        SourceLocation B = Start.getLocWithOffset(R.getOffset());
        D << FixItHint::CreateReplacement(
            CharSourceRange::getCharRange(B, B.getLocWithOffset(R.getLength())),
            R.getReplacementText());
      }
    }
  }

private:
  bool isFirstEnabled() const {
    for (const PassSpec &S : builtinPasses().passes())
      if (Ctx.isCheckEnabled(checkName(S)))
        return checkName(S) == getID();
    return false;
  }

  const PassSpec &Spec;
  ClangTidyContext &Ctx;
  bool ShowMissed;
  ParseFlags Flags;
};

class KoptModule : public ClangTidyModule {
public:
  void addCheckFactories(ClangTidyCheckFactories &Factories) override {
    for (const PassSpec &Spec : builtinPasses().passes())
      Factories.registerCheckFactory(
          checkName(Spec), [&Spec](llvm::StringRef Name, ClangTidyContext *C) {
            return std::make_unique<KoptPassCheck>(Name, C, Spec);
          });
  }
};

} // namespace
} // namespace kopt

static ClangTidyModuleRegistry::Add<kopt::KoptModule>
    X("kopt-module", "kopt's passes as checks (kopt-<pass>).");
