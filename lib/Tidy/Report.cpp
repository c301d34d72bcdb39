//===- Report.cpp - Findings as diagnostics and as exported fixes ---------===//

#include "kopt/Tidy/Report.h"

#include "clang/Tooling/DiagnosticsYaml.h"

using namespace llvm;

namespace kopt {

void printFinding(raw_ostream &OS, const Finding &F, StringRef Code,
                  bool AsError) {
  StringRef Level = F.Severity == Finding::Note ? "note"
                    : AsError                   ? "error"
                                                : "warning";
  OS << F.File << ":" << F.Line << ":" << F.Col << ": " << Level << ": "
     << F.Message << " [" << F.Check
     << (AsError && F.Severity == Finding::Warning ? ",-warnings-as-errors"
                                                   : "")
     << "]\n";
  if (F.Offset > Code.size())
    return;
  // The line holding the offset (rfind looks strictly before it).
  size_t Begin = Code.rfind('\n', F.Offset);
  Begin = Begin == StringRef::npos ? 0 : Begin + 1;
  size_t End = Code.find('\n', F.Offset);
  StringRef Line =
      Code.slice(Begin, End == StringRef::npos ? Code.size() : End);
  OS << Line << "\n";
  for (size_t I = Begin; I < F.Offset; ++I)
    OS << (Code[I] == '\t' ? '\t' : ' ');
  OS << "^\n";
}

std::string exportFixesYaml(ArrayRef<Finding> Findings,
                            StringRef MainSourceFile, StringRef BuildDirectory,
                            function_ref<bool(const Finding &)> AsError) {
  clang::tooling::TranslationUnitDiagnostics TU;
  TU.MainSourceFile = MainSourceFile.str();
  for (const Finding &F : Findings) {
    auto Level = clang::tooling::Diagnostic::Remark;
    if (F.Severity == Finding::Warning)
      Level = AsError(F) ? clang::tooling::Diagnostic::Error
                         : clang::tooling::Diagnostic::Warning;
    clang::tooling::Diagnostic D(F.Check, Level, BuildDirectory);
    D.Message.Message = F.Message;
    D.Message.FilePath = F.File;
    D.Message.FileOffset = F.Offset;
    if (!F.Fix.empty())
      D.Message.Fix[F.File] = F.Fix;
    TU.Diagnostics.push_back(std::move(D));
  }
  std::string Out;
  raw_string_ostream OS(Out);
  yaml::Output YAML(OS);
  YAML << TU;
  return Out;
}

} // namespace kopt
