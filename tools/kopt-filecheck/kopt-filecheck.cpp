//===- kopt-filecheck.cpp - LLVM's FileCheck where LLVM is not installed --===//
//
//   kopt-filecheck CHECK-FILE [--input-file FILE] [--check-prefix P]...
//
// A problem's FileCheck patterns over a candidate's ptxas output or SASS
// (docs/problem-spec.md, "filecheck") are matched by LLVM's FileCheck
// library. GPU hosts have no LLVM, so this small driver is linked
// statically and carried there like kopt-opt; the evaluator also accepts
// LLVM's own FileCheck, whose command line this one follows.
//
// Exit codes: 0 the input matches, 1 it does not (FileCheck's diagnostics
// on stderr), 2 usage error or unreadable file.
//
//===----------------------------------------------------------------------===//
#include "llvm/ADT/SmallString.h"
#include "llvm/FileCheck/FileCheck.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/WithColor.h"

using namespace llvm;

static cl::opt<std::string>
    CheckFilename(cl::Positional, cl::desc("<check-file>"), cl::Required);
static cl::opt<std::string>
    InputFilename("input-file", cl::desc("File to check (default: stdin)"),
                  cl::value_desc("filename"), cl::init("-"));
static cl::list<std::string>
    CheckPrefixes("check-prefix",
                  cl::desc("Prefix of the check lines (default: CHECK)"));

static std::unique_ptr<MemoryBuffer> readOrExit(StringRef Path) {
  auto Buffer = MemoryBuffer::getFileOrSTDIN(Path, /*IsText=*/true);
  if (!Buffer) {
    WithColor::error(errs(), "kopt-filecheck")
        << "cannot read '" << Path << "': " << Buffer.getError().message()
        << "\n";
    exit(2);
  }
  return std::move(*Buffer);
}

int main(int Argc, char **Argv) {
  InitLLVM X(Argc, Argv);
  cl::ParseCommandLineOptions(
      Argc, Argv,
      "kopt-filecheck: match a file against FileCheck patterns (LLVM's "
      "FileCheck library)\n");

  FileCheckRequest Request;
  for (const std::string &Prefix : CheckPrefixes)
    Request.CheckPrefixes.push_back(Prefix);
  FileCheck FC(Request);
  if (!FC.ValidateCheckPrefixes()) {
    WithColor::error(errs(), "kopt-filecheck")
        << "check prefixes must start with a letter and contain only "
           "alphanumerics, hyphens and underscores, and be unique\n";
    return 2;
  }

  SourceMgr SM;
  std::unique_ptr<MemoryBuffer> CheckFile = readOrExit(CheckFilename);
  SmallString<4096> CheckBuffer;
  StringRef CheckText = FC.CanonicalizeFile(*CheckFile, CheckBuffer);
  SM.AddNewSourceBuffer(MemoryBuffer::getMemBuffer(CheckText, CheckFilename),
                        SMLoc());
  if (FC.readCheckFile(SM, CheckText))
    return 2;

  std::unique_ptr<MemoryBuffer> Input = readOrExit(InputFilename);
  SmallString<4096> InputBuffer;
  StringRef InputText = FC.CanonicalizeFile(*Input, InputBuffer);
  StringRef InputName =
      InputFilename == "-" ? StringRef("<stdin>") : StringRef(InputFilename);
  SM.AddNewSourceBuffer(MemoryBuffer::getMemBuffer(InputText, InputName),
                        SMLoc());
  return FC.checkInput(SM, InputText) ? 0 : 1;
}
