//===- ObjectRules.cpp - Host calls read off the compiled library ---------===//
#include "kopt/Eval/ObjectRules.h"

#include "HostApiRules.h"

#include "kopt/Eval/ElfSection.h"
#include "kopt/Eval/Process.h"
#include "kopt/Spec/ProblemValidator.h"

#include <algorithm>
#include <cstring>
#include <elf.h>
#include <regex>
#include <set>
#include <tuple>

namespace kopt::eval {

namespace {
constexpr std::size_t CaptureNameBytes = 4096;
} // namespace

std::optional<ObjectImports> readObjectImports(const std::string &File,
                                               std::string &Error) {
  std::optional<std::string> Symbols = readElfSection(File, ".dynsym", Error);
  if (!Symbols)
    return std::nullopt;
  std::optional<std::string> Names = readElfSection(File, ".dynstr", Error);
  if (!Names)
    return std::nullopt;
  ObjectImports Out;
  std::set<std::string> Seen;
  for (std::size_t At = 0; At + sizeof(Elf64_Sym) <= Symbols->size();
       At += sizeof(Elf64_Sym)) {
    Elf64_Sym S;
    std::memcpy(&S, Symbols->data() + At, sizeof(S));
    if (S.st_shndx != SHN_UNDEF || S.st_name == 0 ||
        S.st_name >= Names->size())
      continue;
    const char *Start = Names->data() + S.st_name;
    std::string Name(Start, strnlen(Start, Names->size() - S.st_name));
    if (Seen.insert(Name).second)
      Out.Undefined.push_back(Name);
  }
  // A library without read-only data has no strings.
  std::string Ignored;
  if (std::optional<std::string> Data = readElfSection(File, ".rodata", Ignored))
    for (std::size_t Begin = 0; Begin < Data->size();) {
      std::size_t End = Data->find('\0', Begin);
      if (End == std::string::npos)
        End = Data->size();
      // Mangled registration names (DeviceNames.h) can be long.
      if (End - Begin >= 2 && End - Begin <= CaptureNameBytes)
        Out.Strings.push_back(Data->substr(Begin, End - Begin));
      Begin = End + 1;
    }
  return Out;
}

namespace {
RuleViolation objectViolation(RuleViolation V) {
  V.Line = 0;
  V.Origin = "host object";
  V.Message = "the compiled library " + V.Message;
  return V;
}

/// Host instructions no import gives away: system calls and time stamps.
/// objdump writes one instruction a line: "  1139:\tsyscall".
std::vector<RuleViolation> instructionRules(const std::string &Disassembly) {
  std::vector<RuleViolation> Out;
  std::set<std::string> Seen;
  for (std::size_t Begin = 0; Begin < Disassembly.size();) {
    std::size_t End = Disassembly.find('\n', Begin);
    if (End == std::string::npos)
      End = Disassembly.size();
    std::string Line = Disassembly.substr(Begin, End - Begin);
    Begin = End + 1;
    std::size_t Tab = Line.find(":\t");
    if (Tab == std::string::npos)
      continue;
    std::string Op = Line.substr(Tab + 2);
    Op = Op.substr(0, Op.find_first_of(" \t"));
    bool Timer = Op == "rdtsc" || Op == "rdtscp" || Op == "rdpid";
    bool System = Op == "syscall" || Op == "sysenter" ||
                  (Op == "int" && Line.find("$0x80") != std::string::npos);
    if ((!Timer && !System) || !Seen.insert(Op).second)
      continue;
    Out.push_back(objectViolation(
        {Timer ? "timer-read" : "process-control",
         "has a '" + Op + "' instruction in its host code (inline assembly)"}));
  }
  return Out;
}
} // namespace

std::vector<RuleViolation> checkObjectRules(const ObjectImports &Imports,
                                            const std::string &Disassembly,
                                            const spec::Problem &P) {
  std::vector<RuleViolation> Out;
  bool Lookup = false;
  for (const std::string &Name : Imports.Undefined) {
    if (isDriverLookup(Name)) {
      Lookup = true;
      continue;
    }
    if (std::optional<RuleViolation> V = hostCallViolation(Name)) {
      V->Message = "imports '" + Name + "': " + V->Message;
      Out.push_back(objectViolation(*V));
      continue;
    }
    std::string Lib = libraryOfSymbol(Name);
    if (!Lib.empty() &&
        std::find(P.AllowLibraries.begin(), P.AllowLibraries.end(), Lib) ==
            P.AllowLibraries.end())
      Out.push_back(objectViolation(
          {"vendor-library", "calls " + Lib + " ('" + Name +
                                 "'); problem.json does not list '" + Lib +
                                 "' in allow_libraries"}));
  }
  if (Lookup) {
    // The names it may look up are among its strings; a name built at run
    // time is not, and then no pointer query is either.
    static const std::regex DriverName(R"(cu[A-Z][A-Za-z0-9_]*)");
    std::vector<std::string> Looked, Other;
    for (const std::string &S : Imports.Strings)
      if (std::regex_match(S, DriverName))
        (isPointerQuery(S) ? Looked : Other).push_back(S);
    if (Looked.empty() || !Other.empty())
      Out.push_back(objectViolation(
          {"vendor-library",
           "looks up driver entry points by name at run time" +
               (Other.empty() ? std::string(" (no name it looks up is "
                                            "among its strings)")
                              : " ('" + Other.front() + "')")}));
  }
  for (RuleViolation &V : instructionRules(Disassembly))
    Out.push_back(V);
  return Out;
}

ObjectInspection inspectHostObject(const std::string &LibraryPath,
                                   const std::string &Objdump,
                                   const spec::Problem &P) {
  ObjectInspection Result;
  std::optional<std::string> Bytes = spec::readTextFile(LibraryPath);
  if (!Bytes) {
    Result.Error = "cannot read " + LibraryPath;
    return Result;
  }
  std::optional<ObjectImports> Imports =
      readObjectImports(*Bytes, Result.Error);
  if (!Imports)
    return Result;
  std::string Disassembly;
  if (Objdump.empty()) {
    // The imports still count; the instructions could not be read.
    Result.Error = "no objdump was found to read its host instructions";
    Result.Violations = checkObjectRules(*Imports, "", P);
    return Result;
  }
  {
    ProcessOptions Run;
    Run.TimeoutSeconds = 60;
    Run.MaxCapturedBytes = 256 << 20;
    ProcessResult R = runProcess(
        {Objdump, "-d", "--no-show-raw-insn", "-j", ".text", LibraryPath},
        Run);
    if (!R.succeeded()) {
      Result.Error = "objdump failed on the library (" + R.describeEnd() + ")";
      return Result;
    }
    Disassembly = std::move(R.Output);
  }
  Result.Inspected = true;
  Result.Violations = checkObjectRules(*Imports, Disassembly, P);
  return Result;
}

SettledRules settleRules(std::vector<RuleViolation> Violations,
                         const ObjectInspection &Object,
                         const spec::Problem &P) {
  // An allowed library brings imports of its own: the source decides then.
  bool ObjectDecides = Object.Inspected && P.AllowLibraries.empty();
  for (RuleViolation V : Object.Violations) {
    V.SecondOpinion = !P.AllowLibraries.empty();
    Violations.push_back(V);
  }
  SettledRules Out;
  std::set<std::tuple<std::string, std::string, int, std::string>> Seen;
  std::set<std::string> Noted;
  for (const RuleViolation &V : Violations) {
    if (!Seen.insert({V.Rule, V.File, V.Line, V.Line ? "" : V.Message}).second)
      continue;
    bool FromObject = V.Origin == "host object";
    if (!V.SecondOpinion || ObjectDecides == FromObject) {
      Out.Rejections.push_back(V);
      continue;
    }
    if (!Noted.insert(V.Message).second)
      continue;
    std::string Why = FromObject ? ": allow_libraries lists a library that "
                                   "may import it; the source decides]"
                                 : " by name only: the compiled library "
                                   "decides]";
    RuleViolation Note{FromObject ? "host-api-object" : "host-api-source",
                       V.Message + " [" + V.Rule + Why, V.Line, V.File};
    Note.Origin = V.Origin;
    Out.Notes.push_back(Note);
  }
  return Out;
}

} // namespace kopt::eval
