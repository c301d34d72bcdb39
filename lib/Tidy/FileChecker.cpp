//===- FileChecker.cpp - One file's findings and fix-its ------------------===//

#include "kopt/Tidy/FileChecker.h"
#include "kopt/Pass/Pass.h"
#include "kopt/Pass/PassRegistry.h"
#include "kopt/Rewrite/VerifiedRewrite.h"

#include "llvm/ADT/STLExtras.h"

#include <map>
#include <string>

using namespace llvm;
using clang::tooling::Replacement;
using clang::tooling::Replacements;

namespace kopt {

namespace {

/// Offsets of each line's first character, for line:col <-> offset.
class LineTable {
public:
  explicit LineTable(StringRef Code) {
    Starts.push_back(0);
    for (size_t I = 0; I < Code.size(); ++I)
      if (Code[I] == '\n')
        Starts.push_back(I + 1);
    Size = Code.size();
  }
  unsigned offset(unsigned Line, unsigned Col) const {
    if (Line == 0 || Line > Starts.size())
      return 0;
    return std::min<size_t>(Starts[Line - 1] + (Col ? Col - 1 : 0), Size);
  }

private:
  std::vector<size_t> Starts;
  size_t Size;
};

/// A main-file character range that belongs to a kernel: its definition or
/// one of its launches.
struct KernelRange {
  std::string Name;
  unsigned Begin, End;
};

void addRange(std::vector<KernelRange> &Out, llvm::StringRef Kernel,
              clang::SourceRange R, const clang::SourceManager &SM) {
  clang::SourceLocation B = SM.getExpansionLoc(R.getBegin());
  clang::SourceLocation E = SM.getExpansionLoc(R.getEnd());
  if (SM.isInMainFile(B) && SM.isInMainFile(E))
    Out.push_back({Kernel.str(), SM.getFileOffset(B), SM.getFileOffset(E) + 1});
}

/// The main-file character ranges of each kernel's definition and of each
/// of its launches.
std::vector<KernelRange> kernelRanges(const ProgramInfo &Info,
                                      ParsedSource &Source) {
  std::vector<KernelRange> Out;
  for (const KernelInfo &K : Info.Kernels)
    if (K.Decl)
      addRange(Out, K.Name, K.Decl->getSourceRange(),
               Source.Device->getSourceManager());
  for (const LaunchSite &L : Info.LaunchSites)
    if (L.Call)
      addRange(Out, L.Kernel, L.Call->getSourceRange(),
               Source.Host->getSourceManager());
  return Out;
}

} // namespace

FileChecker::FileChecker(const CudaFrontend &Frontend, ParsedSource Parsed)
    : Frontend(Frontend), Source(std::move(Parsed)), Original(Source.Code),
      Info(analyzeProgram(Source, Frontend.options().GpuArch)),
      Signatures(entrySignatures(Info)), Nolint(Original) {}

Expected<std::unique_ptr<FileChecker>>
FileChecker::parse(const CudaFrontend &Frontend, StringRef Path,
                   StringRef Code) {
  Expected<ParsedSource> Parsed = Frontend.parse(Path, Code);
  if (!Parsed)
    return Parsed.takeError();
  return std::unique_ptr<FileChecker>(
      new FileChecker(Frontend, std::move(*Parsed)));
}

std::vector<Finding> FileChecker::runPass(const CheckRequest &R,
                                          ResourceEstimator *Estimator) {
  std::vector<Remark> Remarks;
  EditSet Edits(Source.Path);
  {
    std::unique_ptr<Pass> Impl = R.Pass.spec().Create();
    PassContext Ctx(Source, Info, R.Pass, Estimator);
    Impl->run(Ctx);
    Remarks = Ctx.takeRemarks();
    Edits = Ctx.takeEdits();
  }

  LineTable Lines(Original);
  std::vector<Finding> Out;
  // The first warning of each kernel ("" for the file), by index in Out.
  std::map<std::string, size_t> FirstWarning;
  for (const Remark &Rm : Remarks) {
    Finding F;
    F.Check = R.Check;
    F.Severity = Rm.K == Remark::Applied ? Finding::Warning : Finding::Note;
    F.Missed = Rm.K != Remark::Applied;
    F.File = Source.Path;
    F.Message = Rm.Message;
    F.Line = Rm.Line;
    F.Col = Rm.Col;
    if (!F.Line)
      if (const KernelInfo *K = Info.kernel(Rm.Function)) {
        F.Line = K->Loc.Line;
        F.Col = K->Loc.Col;
      }
    if (!F.Line)
      F.Line = F.Col = 1;
    F.Offset = Lines.offset(F.Line, F.Col);
    if (F.Severity == Finding::Warning) {
      FirstWarning.try_emplace(Rm.Function, Out.size());
      FirstWarning.try_emplace("", Out.size());
    }
    Out.push_back(std::move(F));
  }

  // Each edit goes to the warning of the kernel it lies in or launches,
  // else to the pass's first warning; edits no warning can own are dropped.
  std::vector<KernelRange> Kernels = kernelRanges(Info, Source);
  for (const Replacement &Rep : Edits.replacements()) {
    std::string Owner;
    for (const KernelRange &K : Kernels)
      if (K.Begin <= Rep.getOffset() && Rep.getOffset() < K.End &&
          FirstWarning.count(K.Name))
        Owner = K.Name;
    auto It = FirstWarning.find(Owner);
    if (It == FirstWarning.end())
      continue;
    // Edits of one pass never overlap (EditSet refuses that); should a
    // subset still not merge, run() finds the fix-it's edits incomplete
    // when it verifies them, or this edit is simply not offered.
    if (Error E = Out[It->second].Fix.add(Rep))
      consumeError(std::move(E));
  }

  // NOLINT drops a diagnostic and the edits it carries.
  erase_if(Out, [&](const Finding &F) {
    return Nolint.suppresses(F.Line, F.Check);
  });
  return Out;
}

std::string FileChecker::verify(StringRef Code) {
  auto [It, Inserted] = Verified.try_emplace(Code.str());
  if (Inserted)
    It->second = verifyText(Frontend, Source, Code, Signatures);
  return It->second;
}

std::string FileChecker::verifyEdits(const Replacements &Edits) {
  Expected<std::string> NewCode =
      clang::tooling::applyAllReplacements(Original, Edits);
  if (!NewCode)
    return "its edits do not apply: " + toString(NewCode.takeError());
  return verify(*NewCode);
}

namespace {

/// A check's edits, all of its findings' fix-its together.
Expected<Replacements> editsOf(ArrayRef<Finding> Fs) {
  Replacements All;
  for (const Finding &F : Fs)
    for (const Replacement &Rep : F.Fix)
      if (Error E = All.add(Rep))
        return std::move(E);
  return All;
}

/// Adds Edits to Into; false (Into unchanged) if they overlap its edits.
bool tryMerge(Replacements &Into, const Replacements &Edits) {
  Replacements Trial = Into;
  for (const Replacement &Rep : Edits)
    if (Error E = Trial.add(Rep)) {
      consumeError(std::move(E));
      return false;
    }
  Into = std::move(Trial);
  return true;
}

} // namespace

std::vector<Finding> FileChecker::run(ArrayRef<CheckRequest> Requests,
                                      ResourceEstimator *Estimator) {
  // Every pass sees the ASTs of the file as written: run them all before
  // verification re-parses the ASTs in place.
  std::vector<std::vector<Finding>> PerCheck;
  for (const CheckRequest &R : Requests)
    PerCheck.push_back(runPass(R, Estimator));

  // Why each check's fix-it is refused ("" when it is offered). The edits
  // of all checks whose edits do not overlap are verified together first:
  // one re-parse for the common case where all of them are good.
  std::vector<std::string> Why(PerCheck.size());
  std::vector<Replacements> Edits(PerCheck.size());
  std::vector<size_t> Together, Alone;
  Replacements Union;
  for (size_t I = 0; I < PerCheck.size(); ++I) {
    Expected<Replacements> E = editsOf(PerCheck[I]);
    if (!E) {
      Why[I] = "its edits conflict: " + toString(E.takeError());
      continue;
    }
    Edits[I] = std::move(*E);
    if (Edits[I].empty())
      continue;
    (tryMerge(Union, Edits[I]) ? Together : Alone).push_back(I);
  }
  if (!Together.empty() && !verifyEdits(Union).empty())
    append_range(Alone, Together);
  for (size_t I : Alone)
    Why[I] = verifyEdits(Edits[I]);

  std::vector<Finding> All;
  for (size_t I = 0; I < PerCheck.size(); ++I) {
    std::vector<Finding> &Fs = PerCheck[I];
    auto First = find_if(
        Fs, [](const Finding &F) { return F.Severity == Finding::Warning; });
    if (!Why[I].empty() && First != Fs.end()) {
      Finding N = *First;
      N.Severity = Finding::Note;
      N.Fix = Replacements();
      N.Message = "no fix-it: " + Why[I];
      for (Finding &F : Fs)
        F.Fix = Replacements();
      Fs.push_back(std::move(N));
    }
    append_range(All, std::move(Fs));
  }
  llvm::stable_sort(All, [](const Finding &A, const Finding &B) {
    return A.Offset < B.Offset;
  });
  return All;
}

FixResult FileChecker::fix(ArrayRef<Finding> Findings) {
  FixResult Result;
  Result.Code = Original;
  // The checks in order of first appearance, each with its edits.
  std::vector<std::pair<std::string, Replacements>> ByCheck;
  for (const Finding &F : Findings) {
    if (F.Fix.empty())
      continue;
    auto It = find_if(ByCheck, [&](auto &P) { return P.first == F.Check; });
    if (It == ByCheck.end()) {
      ByCheck.push_back({F.Check, Replacements()});
      It = std::prev(ByCheck.end());
    }
    tryMerge(It->second, F.Fix);
  }

  // All that merge, if that text is good (usually verified by run()
  // already); else one check at a time, keeping those that stay good.
  Replacements Union;
  std::vector<bool> InUnion;
  for (auto &[Check, Reps] : ByCheck)
    InUnion.push_back(tryMerge(Union, Reps));
  bool UnionGood = verifyEdits(Union).empty();

  Replacements Kept;
  for (size_t I = 0; I < ByCheck.size(); ++I) {
    auto &[Check, Reps] = ByCheck[I];
    Replacements Trial = Kept;
    std::string Why;
    if (!tryMerge(Trial, Reps))
      Why = "its edits overlap another check's";
    else if (!(UnionGood && InUnion[I]))
      Why = verifyEdits(Trial);
    if (!Why.empty()) {
      Result.Refused.push_back(Check + ": " + Why);
      continue;
    }
    Kept = std::move(Trial);
    Result.Applied += Reps.size();
    Result.Kept.push_back(Check);
  }
  Expected<std::string> Code =
      clang::tooling::applyAllReplacements(Original, Kept);
  // Kept is Union, or a set verified edit by edit: it applies.
  Result.Code = Code ? std::move(*Code) : Original;
  if (!Code) {
    Result.Refused.push_back("all: " + toString(Code.takeError()));
    Result.Applied = 0;
    Result.Kept.clear();
  }
  return Result;
}

} // namespace kopt
